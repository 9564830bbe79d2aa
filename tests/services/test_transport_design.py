"""A design's transport through the service (issue 20): bad settings are refused naming the
field and nothing is stored; good ones reach the stored fabric."""

import pytest

from planner.designs.adapters import fabric_unpack
from planner.designs.models import Design
from planner.designs.services import DesignError, design_create

SPEC = {
    "name": "roce",
    "topology": "clos",
    "server": "XE9680",
    "servers": 4,
    "switches": {"leaf": "QFX5240-64OD"},
}


def test_bad_transport_is_refused_and_nothing_is_stored(seed_catalog, user):
    before = Design.objects.count()
    with pytest.raises(DesignError) as exc:
        design_create(owner=user, spec_document={**SPEC, "transport": {"ecn_max_kb": 200_000}})
    (problem,) = exc.value.problems
    assert problem["field"] == "transport.ecn_max_kb" and "165.2 MB" in problem["message"]
    assert Design.objects.count() == before


def test_transport_reaches_the_stored_fabric(seed_catalog, user):
    design = design_create(owner=user, spec_document={**SPEC, "transport": {"mtu_b": 9216}})
    revision = design.revisions.get(number=1)
    assert revision.spec["transport"] == {"mtu_b": 9216}
    assert fabric_unpack(revision.topology).settings.transport.roce.mtu_b == 9216
