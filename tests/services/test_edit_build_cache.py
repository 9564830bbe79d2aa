"""A canvas save after its preview stores what the preview built (issue 37 item 8): the edit
is parsed and checked once, and a different document, design name or base is built anew."""

import pytest

from planner.designs import selectors, services
from planner.designs.services import design_create, design_edit_topology, design_preview_topology
from tests.factories import ONE_SU_SPEC

pytestmark = pytest.mark.django_db


@pytest.fixture
def builds(monkeypatch):
    calls = []
    real = services.topology_build

    def counted(**kwargs):
        calls.append(kwargs["name"])
        return real(**kwargs)

    monkeypatch.setattr(services, "topology_build", counted)
    return calls


def test_the_save_reads_the_preview_build(seed_catalog, user, builds):
    design = design_create(owner=user, spec_document=ONE_SU_SPEC)
    document = selectors.revision_topology(design.latest_revision)
    edit = {"nodes": document["nodes"], "links": document["links"][:-1]}
    design_preview_topology(design=design, document=edit, base_revision=1)
    assert len(builds) == 1
    saved = design_edit_topology(design=design, user=user, document=edit, base_revision=1)
    assert len(builds) == 1  # nothing parsed again
    fabric = selectors.revision_fabric(saved)
    assert fabric.link_count == len(edit["links"])
    assert sum(saved.summary["links"].values()) == len(edit["links"])

    # Another document (one more link removed) on top of revision 2 is built anew.
    again = {"nodes": document["nodes"], "links": document["links"][:-2]}
    design_edit_topology(design=design, user=user, document=again, base_revision=2)
    assert len(builds) == 2
