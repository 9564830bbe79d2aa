"""The InfiniBand topology export (planner.domain.outputs.ib_topology): the as-built check,
which reads real ``ibnetdiscover`` output, reads it back with no finding, on every
InfiniBand preset; rates and GUIDs as ``ibnetdiscover`` writes them. The real tools (ibsim,
OpenSM, infiniband-diags) run it in tests/unit/test_opensm_ibsim.py."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from planner.domain.asbuilt.cabling import check_cabling
from planner.domain.asbuilt.names import FabricNames
from planner.domain.asbuilt.parsers import parse
from planner.domain.outputs.ib_topology import ca_guid, ib_rate, ib_topology_lines, switch_guid
from planner.domain.pipeline import build_fabric
from planner.domain.spec import parse_spec

EXAMPLES = Path(__file__).resolve().parents[2] / "planner" / "domain" / "examples"


def _fabric(facts, example, **extra):
    spec = yaml.safe_load((EXAMPLES / f"{example}.yaml").read_text())
    return build_fabric(parse_spec({**spec, **extra}), facts)


@pytest.mark.parametrize(
    ("example", "links", "rate"),
    [
        ("h100-superpod-4su", 2044, "4xNDR"),  # 127 DGX H100, QM9700: the published counts
        ("gb200-nvl72-ndr", None, "4xNDR"),
        ("b300-xdr-rail", None, "4xXDR"),
    ],
)
def test_export_reads_back_with_no_finding(facts, example, links, rate):
    fabric = _fabric(facts, example)
    text = "".join(ib_topology_lines(fabric, name=example, revision=3))
    rows = parse("ibnetdiscover", text)
    assert len(rows) == fabric.link_count == (links or fabric.link_count)
    report = check_cabling(FabricNames(fabric, facts), rows, whole_fabric=True)
    assert report.summary["links_in_place"] == fabric.link_count
    assert report.summary["findings"] == 0
    assert f'" {rate}\n' in text
    # each link from both ends; one block per switch and per linked host port
    ports = [line for line in text.splitlines() if line.startswith("[")]
    assert len(ports) == 2 * fabric.link_count


def test_guids_are_unique_and_leave_room_for_port_guids():
    guids = {switch_guid(n) for n in range(5000)} | {
        ca_guid(n, p) for n in range(500) for p in range(18)
    }
    assert len(guids) == 5000 + 500 * 18
    assert all(g % 16 == 0 for g in guids)  # ibsim's port GUIDs (node GUID + port) stay free


@pytest.mark.parametrize(
    ("gbps", "rate"),
    [(400, "4xNDR"), (200, "4xHDR"), (100, "4xEDR"), (800, "4xXDR"), (50, "2xEDR"), (3, "")],
)
def test_rates_as_ibnetdiscover_writes_them(gbps, rate):
    assert ib_rate(gbps) == rate
    if rate:  # and the parser reads the same speed back
        line = f'[1]\t"S-1"[2]\t\t# "x" {rate}'
        text = f'Switch\t2 "S-2"\t\t# "y"\n{line}\n'
        assert parse("ibnetdiscover", text)[0].speed_gbps == gbps


def test_descriptions_cannot_break_the_quotes(facts):
    fabric = _fabric(facts, "h100-superpod-1su")
    fabric.node_name[0] = 'gpu"evil\nSwitch 2 "S-1"'
    text = "".join(ib_topology_lines(fabric, name='a"b\nc', revision=None))
    assert "\nSwitch 2" not in text and 'a"b' not in text
    assert "# \"gpu'evil Switch 2 'S-1' 1/1\"" in text
