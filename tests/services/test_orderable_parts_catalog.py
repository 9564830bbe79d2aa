"""Issue 33 item 5, the stored catalog: the seed's cables and fibres keep the part number of
each length sold through the import, and a part superseded by a family that took its name as
an alias (980-9I570-00N030, the 30 m MFP7E10) resolves to the family once archived."""

import pytest

from inventory.models import FiberCable
from planner.designs.adapters import read_catalog_facts
from planner.domain.media import part_number_at
from tests.factories import part

pytestmark = pytest.mark.django_db


def test_the_seed_import_keeps_the_part_number_of_each_length(seed_catalog):
    fiber = FiberCable.objects.get(slug="MFP7E10-Nxxx")
    assert [item["part_number"] for item in fiber.length_parts][:2] == [
        "MFP7E10-N003",
        "MFP7E10-N005",
    ]
    assert fiber.provenance["length_parts.0"]["grade"] == "secondary"
    record = read_catalog_facts().parts["MFP7E10-Nxxx"]
    assert part_number_at(record, 10.0) == "MFP7E10-N010"


@pytest.mark.parametrize("archived", [True, False])
def test_an_archived_part_gives_its_name_to_the_live_family(seed_catalog, archived):
    old = part("fiber", "980-9I570-00N030", fiber_type="mmf")  # as an earlier seed stored it
    FiberCable.objects.filter(pk=old.pk).update(archived=archived)
    found = read_catalog_facts().parts["980-9I570-00N030"]
    assert found["slug"] == ("MFP7E10-Nxxx" if archived else "980-9I570-00N030")


def test_the_part_page_lists_each_length_sold_with_its_part_number(seed_catalog, logged_in_client):
    html = logged_in_client.get(FiberCable.objects.get(slug="MFP7E10-Nxxx").get_absolute_url())
    text = html.content.decode()
    start = text.index('<tr id="spec-length_parts">')
    row = text[start : text.index('<tr id="spec-', start + 1)]
    assert 'class="table nested"' in row and "Part number" in row and "Length (m)" in row
    for number in ("MFP7E10-N003", "MFP7E10-N010", "980-9I570-00N030"):
        assert number in row
    assert "grade-secondary" in row and "grade-inferred" in row  # each length's own grade
