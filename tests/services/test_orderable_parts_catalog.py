"""Issue 33 item 5, the stored catalog: the seed's cables and fibres keep the part number of
each length sold through the import, and a part superseded by a family that took its name as
an alias (980-9I570-00N030, the 30 m MFP7E10) resolves to the family once archived."""

from pathlib import Path

import pytest

from inventory.library.files import read_catalog_folder
from inventory.models import FiberCable
from planner.designs.adapters import read_catalog_facts
from planner.domain.catalog import facts_from_records
from planner.domain.media import part_number_at
from planner.domain.outputs.bom import bill_of_materials
from planner.domain.outputs.bom_counts import CABLES
from planner.domain.outputs.quote import QuoteTerms, price_quote
from planner.domain.pipeline import build_fabric
from planner.domain.spec import load_spec_text, parse_spec
from tests.factories import part

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def facts_h100():
    """The H100 4 SU cluster preset and its BOM, from the seed files."""
    facts = facts_from_records(read_catalog_folder(ROOT / "inventory/library/seed").parts)
    text = (ROOT / "planner/domain/examples/h100-superpod-4su-cluster.yaml").read_text()
    fabric = build_fabric(parse_spec(load_spec_text(text)), facts)
    return fabric, bill_of_materials(fabric, facts)


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


def test_the_customer_copy_names_the_part_number_to_order(facts_h100):
    from planner.quotes.files import customer_quote_lines

    fabric, bom = facts_h100
    quote = price_quote(bom, {}, QuoteTerms(currency="USD"))
    by_number = {line.part_number: line for line in bom.lines if line.category in CABLES}
    cables = [line for line in customer_quote_lines(quote) if line.part in by_number]
    assert {line.part for line in cables} == set(by_number) - {""}
    for line in cables:
        assert f"({line.part})" not in line.description  # not repeated after the name
        assert line.description.endswith(f"{by_number[line.part].length_m:g} m")
