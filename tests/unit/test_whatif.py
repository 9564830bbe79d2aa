"""What-if failures (planner.analyses.resilience.whatif) on small designs."""

from pathlib import Path

import numpy as np
import pytest
import yaml

from inventory.library.files import read_catalog_folder
from planner.analyses.errors import JobInputError
from planner.analyses.resilience.whatif import run_whatif, what_if
from planner.domain.fabric import ROLE
from planner.domain.pipeline import build_fabric
from planner.domain.spec import parse_spec

pytestmark = pytest.mark.unit
ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "planner" / "domain" / "examples"


@pytest.fixture(scope="module")
def facts():
    from planner.domain.catalog import facts_from_records

    return facts_from_records(read_catalog_folder(ROOT / "inventory" / "library" / "seed").parts)


def _build(facts, name: str, **extra):
    return build_fabric(
        parse_spec({**yaml.safe_load((EXAMPLES / f"{name}.yaml").read_text()), **extra}), facts
    )


@pytest.fixture(scope="module")
def two_spines(facts):
    # 24 servers at 3:1 on SN5600: two leaves, two spines
    fabric = _build(facts, "clos-3to1", servers=24)
    assert len(fabric.nodes_with_role("spine")) == 2 and len(fabric.nodes_with_role("leaf")) == 2
    return fabric


def test_a_spine_failure_in_a_two_spine_design_halves_leaf_uplink_capacity(two_spines):
    spine = two_spines.node_name[int(two_spines.nodes_with_role("spine")[0])]
    found = what_if(two_spines, [f"node:{spine}"])
    assert found.leaf_uplink_left == {
        "leaves": 2,
        "leaves_degraded": 2,
        "min_share": 0.5,
        "mean_share": 0.5,
    }
    answer = found.as_dict(two_spines)
    tier = answer["bandwidth_lost"]["leaf-spine"]
    assert tier["lost_tbps"] == tier["left_tbps"] == tier["capacity_tbps"] / 2
    assert answer["bandwidth_lost"]["server-leaf"]["lost_tbps"] == 0
    assert answer["bisection"]["share_left"] == 0.5
    assert answer["gpus"]["lost"] == answer["gpus"]["degraded"] == 0
    assert f"node:{spine}" in answer["blast_radius"]["nodes_down"]["ids"]
    assert answer["blast_radius"]["leaves_degraded"]["count"] == 2


def test_a_rack_failure_loses_its_servers_times_gpus_per_server(facts):
    fabric = _build(facts, "h100-superpod-4su")
    servers = fabric.nodes_with_role("server")
    rack = int(fabric.node_rack[servers[0]])
    in_rack = int((fabric.node_rack[servers] == rack).sum())
    found = what_if(fabric, [f"rack:{fabric.racks[rack]['name']}"])
    assert found.gpus_lost == in_rack * 8 == 32
    assert found.gpus_degraded == found.gpus_leaf_only == 0
    assert found.servers_in_state(3).size == in_rack


def test_leaf_and_link_failures_cut_off_or_degrade_gpus(two_spines):
    leaf = int(two_spines.nodes_with_role("leaf")[0])
    found = what_if(two_spines, [f"node:{two_spines.node_name[leaf]}"])
    assert found.gpus_lost == 96  # the 12 servers on that leaf, 8 GPUs each
    uplinks = np.flatnonzero(two_spines.link_a == leaf)
    uplinks = uplinks[two_spines.node_role[two_spines.link_b[uplinks]] == ROLE["spine"]]
    cut = what_if(two_spines, [f"link:{i}" for i in uplinks.tolist()])
    assert cut.gpus_leaf_only == 96 and cut.gpus_lost == 0
    one = what_if(two_spines, ["link:0"])
    assert one.gpus_lost == 1 and one.links_down.tolist() == [0]


def test_what_failed_reads_as_names_never_element_ids(two_spines):
    spine = two_spines.node_name[int(two_spines.nodes_with_role("spine")[0])]
    a, b = int(two_spines.link_a[0]), int(two_spines.link_b[0])
    rack = two_spines.racks[int(two_spines.node_rack[a])]["name"]
    failed = [f"node:{spine}", "link:0", f"cable:{int(two_spines.link_cable[0])}", f"rack:{rack}"]
    names = what_if(two_spines, failed).as_dict(two_spines)["failed_names"]
    assert names[0] == spine
    # the link by its two ends, cage/lane ports (2 logical ports per SN5600 cage at 400G)
    per_cage = int(two_spines.node_ports_per_cage[b])
    b_port = int(two_spines.link_b_port[0])
    b_name = f"{b_port // per_cage + 1}/{b_port % per_cage + 1}"
    assert names[1].startswith(two_spines.node_name[a]) and names[1].endswith(
        f"→ {two_spines.node_name[b]} {b_name}"
    )
    assert names[2] == f"the cable of {names[1]}"
    assert names[3] == f"Rack {rack}"
    assert not any(":" in name for name in names)


@pytest.mark.parametrize(
    ("element", "words"),
    [
        ("node:no-such-switch", "no device"),
        ("link:999999", "no link"),
        ("rack:R999-99", "no rack"),
        ("shelf:1", "unknown kind"),
        ("spine-01", "kind:id"),
    ],
)
def test_unknown_elements_are_named(two_spines, element, words):
    with pytest.raises(JobInputError) as caught:
        what_if(two_spines, [element])
    assert caught.value.field == "failed" and caught.value.element_ids == (element,)
    assert words in caught.value.message and repr(element) in caught.value.message


def test_the_job_runs_the_collective_before_and_after(two_spines):
    spine = two_spines.node_name[int(two_spines.nodes_with_role("spine")[0])]
    result = run_whatif(
        two_spines,
        failed=[f"node:{spine}"],
        traffic="all-to-all",
        routing="spraying",
        size_bytes=1e8,
    )
    before, after = result["before"], result["after"]
    assert before["ranks"] == after["ranks"] == 192 and result["left_out"] == 0
    # every cross-leaf byte now has half the spine capacity: twice the time
    assert after["completion_time_s"] == pytest.approx(2 * before["completion_time_s"])
    assert after["busbw_gbps"] == pytest.approx(before["busbw_gbps"] / 2)
    assert result["slowdown"] == pytest.approx(2.0)
    leaf = two_spines.node_name[int(two_spines.nodes_with_role("leaf")[0])]
    result = run_whatif(two_spines, failed=[f"node:{leaf}"], size_bytes=1e8, routing="spraying")
    assert result["after"]["ranks"] == 96 and result["left_out"] == 96


def test_job_page_explains_an_ecmp_run_that_is_faster_after_the_failure():
    from types import SimpleNamespace

    from simulation.whatif_page import whatif_context

    whatif = {
        "failed": ["node:spine-1"],
        "gpus": {"total": 64, "lost": 0, "leaf_only": 0, "degraded": 0, "unaffected": 64},
        "bisection": {"before_gbps": 1600.0, "after_gbps": 800.0, "share_left": 0.5},
        "blast_radius": {"nodes_down": {"count": 1}, "links_down": {"count": 8}},
        "bandwidth_lost": {},
    }

    def page(routing, slowdown):
        result = {"whatif": whatif, "routing": routing, "slowdown": slowdown}
        return whatif_context(SimpleNamespace(result=result))

    assert page("ecmp", 0.67)["faster_after"]
    assert not page("ecmp", 1.4)["faster_after"]
    assert not page("spraying", 0.9)["faster_after"]
