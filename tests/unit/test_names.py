"""The one naming module (planner.domain.names): ports, trays, OS interfaces, links, racks."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from planner.domain.fabric import TIER
from planner.domain.names import Names, PortScheme, end_text, port_name
from planner.domain.pipeline import build_fabric
from planner.domain.presets import preset_get
from planner.domain.spec import parse_spec

pytestmark = pytest.mark.unit
FRONTEND = Path(__file__).resolve().parents[2] / "frontend"


def _preset(facts, slug: str):
    return build_fabric(parse_spec(preset_get(slug).spec), facts)


@pytest.mark.parametrize("per_cage", [1, 2, 4, 8])
def test_cage_and_lane_from_the_logical_port(per_cage):
    scheme = PortScheme(per_cage)
    for port in range(64):
        cage, lane = port // per_cage + 1, port % per_cage + 1
        expected = str(cage) if per_cage == 1 else f"{cage}/{lane}"
        assert scheme.name(port) == port_name(per_cage, port) == expected
        assert scheme.parse(expected) == port
        assert scheme.label(port) == expected.replace("/", ".")


def test_tray_and_nic_on_a_rack_scale_system():
    one_plane, two_planes = PortScheme(1, tray_ports=4), PortScheme(1, tray_ports=8, planes=2)
    assert [one_plane.name(p) for p in (0, 3, 4, 71)] == [
        "tray 1 NIC 1",
        "tray 1 NIC 4",
        "tray 2 NIC 1",
        "tray 18 NIC 4",
    ]
    assert two_planes.name(9) == "tray 2 NIC 1 plane 2"
    for scheme in (one_plane, two_planes):
        assert [scheme.parse(scheme.name(p)) for p in range(144)] == list(range(144))
        assert scheme.parse("5") == 4  # the rack's port number is read too
        with pytest.raises(ValueError, match="NIC"):
            scheme.parse("tray 1 NIC 9")


def test_every_port_of_three_presets_reads_back_and_names_are_unique(facts):
    for slug in ("gb300-nvl72-xdr", "b300-spectrum-x-twin-plane", "h100-superpod-4su-cluster"):
        fabric = _preset(facts, slug)
        names = Names(fabric, facts)
        ends = set()
        for link in range(fabric.link_count):
            for node, port in (
                (int(fabric.link_a[link]), int(fabric.link_a_port[link])),
                (int(fabric.link_b[link]), int(fabric.link_b_port[link])),
            ):
                assert names.parse(node, names.port(node, port)) == port
                ends.add(names.end(node, port))
        assert len(ends) == 2 * fabric.link_count, f"{slug}: two ports share a name"
        assert not any(":" in end for end in ends)


def test_gb300_racks_name_their_trays_and_the_leaves_their_cages(facts):
    fabric = _preset(facts, "gb300-nvl72-xdr")
    names = Names(fabric)
    link = 4  # the 5th NIC link of the first rack: tray 2, NIC 1
    a, b = int(fabric.link_a[link]), int(fabric.link_b[link])
    assert (names.device(a), names.port(a, int(fabric.link_a_port[link]))) == (
        "gpu00001",
        "tray 2 NIC 1",
    )
    bp = int(fabric.link_b_port[link])
    assert names.port(b, bp) == f"{bp // 2 + 1}/{bp % 2 + 1}"  # Q3400: 2 ports per cage
    assert names.rack(a) == fabric.racks[int(fabric.node_rack[a])]["name"]


def test_switch_os_names_where_the_catalog_gives_the_lanes(facts):
    fabric = _preset(facts, "b300-spectrum-x-twin-plane")
    names = Names(fabric, facts)
    spine_link = int((fabric.link_tier == TIER["leaf-spine"]).argmax())
    spine, port = int(fabric.link_b[spine_link]), int(fabric.link_b_port[spine_link])
    found = names.interfaces(spine, port)
    cage, lane = port // 2 + 1, port % 2
    assert found["nvue"] == f"swp{cage}s{lane}"  # SN5600: 800G cages split in two
    assert found["sonic"].startswith("Ethernet") and "eos" not in found  # EOS: Arista only
    assert Names(fabric).interfaces(spine, port) == {}  # no catalog: no guess
    server = int(fabric.link_a[0])
    assert names.interfaces(server, 0) == {}  # a server's NIC has no switch OS name
    infiniband = _preset(facts, "gb300-nvl72-xdr")  # Quantum-X800: no Ethernet OS names
    leaf = int(infiniband.link_b[0])
    assert Names(infiniband, facts).interfaces(leaf, int(infiniband.link_b_port[0])) == {}


def test_element_ids_read_as_names():
    from planner.domain.fabric import FabricBuilder

    b = FabricBuilder()
    b.add_nodes(["s1"], role="server", model="srv", ports=2, ports_per_cage=2)
    b.add_nodes(["leaf-1"], role="leaf", model="sw", ports=32, ports_per_cage=1)
    b.add_links([0], [1], [1], [16], tier="server-leaf", plane=0, speed_gbps=400)
    names = Names(b.build({}))
    assert names.element("node:leaf-1") == "leaf-1"
    assert names.element("link:0") == "s1 1/2 → leaf-1 port 17"
    assert names.element("link:7") == "link:7"  # not a link of this fabric: left as it is
    assert end_text("gpu00001", "tray 2 NIC 1") == "gpu00001 tray 2 NIC 1"


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_canvas_names_a_picked_port_as_the_domain_does():
    schemes = [PortScheme(1), PortScheme(2), PortScheme(4), PortScheme(1, 4), PortScheme(1, 8, 2)]
    script = (
        "import { portName } from './src/canvas/format.js';"
        f"const schemes = {json.dumps([s.as_dict() for s in schemes])};"
        "console.log(JSON.stringify(schemes.map((s) => "
        "Array.from({ length: 80 }, (_, i) => portName(s, i + 1)))));"
    )
    out = subprocess.run(
        ["node", "--input-type=module", "-e", script],
        cwd=FRONTEND,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert json.loads(out.stdout) == [[s.name(p) for p in range(80)] for s in schemes]
