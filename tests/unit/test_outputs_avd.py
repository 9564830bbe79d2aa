"""The Arista AVD ``eos_designs`` inputs (planner.domain.outputs.avd): every cable of the plan
is an uplink or a connected endpoint with EOS names, the addresses never collide, user text
stays data, and non-Arista designs are refused. pyavd itself reads the file in
``tests/interop/test_pyavd.py``.

Reference: EOS "Layer 1 Profiles" (https://www.arista.com/en/um-eos/eos-layer-1-profiles): an
OSFP cage numbered 1 exposes ``Ethernet1/1`` to ``Ethernet1/8``, so the second 400G half of a
2 x 400G cage 1 on the DCS-7060X6-64PE is ``Ethernet1/5``.
"""

from __future__ import annotations

import csv
import ipaddress
from pathlib import Path

import pytest
import yaml

from planner.domain.outputs import cabling_csv_lines
from planner.domain.outputs.avd import (
    AVD_NOT_ARISTA,
    AvdExportError,
    avd_hostvars,
    avd_inputs,
    avd_yaml_chunks,
    avd_yaml_model_refusal,
)
from planner.domain.pipeline import build_fabric
from planner.domain.spec import parse_spec

EXAMPLES = Path(__file__).resolve().parents[2] / "planner" / "domain" / "examples"


def _fabric(facts, example: str, servers: int):
    spec = yaml.safe_load((EXAMPLES / f"{example}.yaml").read_text())
    return build_fabric(parse_spec({**spec, "servers": servers}), facts)


@pytest.fixture(scope="module")
def arista(facts):
    """Eight XE9680 on DCS-7060X6-64PE leaves and spines, 2 x 400G per 800G cage."""
    return _fabric(facts, "arista-7060x6-rail", 8)


@pytest.fixture(scope="module")
def inventory(arista, facts):
    return yaml.safe_load("".join(avd_yaml_chunks(arista, facts, name="Rail", revision=3)))


def _plan(fabric, facts) -> list[dict]:
    return list(csv.DictReader(cabling_csv_lines(fabric, facts)))


def _links(inventory) -> set[tuple[str, str, str, str]]:
    """Every link the inputs describe, (switch, EOS port, peer, peer port), from both kinds."""
    fabric = inventory["all"]["children"]["FABRIC"]["vars"]
    found = set()
    for key in ("l3leaf", "spine", "super_spine"):
        for node in fabric.get(key, {}).get("nodes", []):
            ends = zip(
                node.get("uplink_interfaces", []),
                node.get("uplink_switches", []),
                node.get("uplink_switch_interfaces", []),
                strict=True,
            )
            for port, peer, peer_port in ends:
                found.add((node["name"], port, peer, peer_port))
    for server in fabric.get("servers", []):
        for adapter in server["adapters"]:
            for switch, port, own in zip(
                adapter["switches"], adapter["switch_ports"], adapter["endpoint_ports"], strict=True
            ):
                found.add((switch, port, server["name"], own))
    return found


def _eos(port: str) -> str:
    """EOS name of a plan port on a 2 x 400G 8-lane OSFP cage (Layer 1 Profiles)."""
    cage, half = port.split("/")
    return f"Ethernet{cage}/{(int(half) - 1) * 4 + 1}"


TIER = {"gpu": 0, "leaf": 1, "spine": 2}


def test_101_every_cable_of_the_plan_is_in_the_inputs_once(arista, facts, inventory):
    """[gpu]--[leaf]==[spine]: a server cable is an adapter of the server, a leaf-spine cable
    an uplink of the leaf; both with EOS names on the switch ends."""
    expected = set()
    for row in _plan(arista, facts):
        ends = sorted(
            [(row["a_device"], row["a_port"]), (row["b_device"], row["b_port"])],
            key=lambda end: TIER[end[0].split("-")[0].rstrip("0123456789")],
        )
        (low, low_port), (high, high_port) = ends
        if low.startswith("gpu"):
            expected.add((high, _eos(high_port), low, low_port))
        else:
            expected.add((low, _eos(low_port), high, _eos(high_port)))
    assert len(expected) == arista.link_count
    assert _links(inventory) == expected


def test_102_split_ports_have_their_eos_names_and_speed(arista, facts, inventory):
    """Cage 1 split 2 x 400G: the cabling plan's ``1/2`` is EOS's ``Ethernet1/5``."""
    plan = _plan(arista, facts)
    second = next(r for r in plan if r["b_port"] == "1/2" and r["b_device"].startswith("leaf"))
    servers = inventory["all"]["children"]["FABRIC"]["vars"]["servers"]
    adapters = [a for s in servers if s["name"] == second["a_device"] for a in s["adapters"]]
    mine = [a for a in adapters if a["switches"] == [second["b_device"]]]
    assert [a["switch_ports"] for a in mine] == [["Ethernet1/5"]]
    assert mine[0]["speed"] == "400g-4"
    leaf = inventory["all"]["children"]["FABRIC"]["vars"]["l3leaf"]["nodes"][0]
    assert all(p.startswith("Ethernet") and "/" in p for p in leaf["uplink_interfaces"])
    assert leaf["uplink_interface_speed"] == "400g-4"


def test_103_node_types_groups_and_addresses_never_collide(inventory):
    children = inventory["all"]["children"]["FABRIC"]["children"]
    fabric = inventory["all"]["children"]["FABRIC"]["vars"]
    assert {g["vars"]["type"] for g in children.values()} == {"l3leaf", "spine"}
    hosts = avd_hostvars(inventory)
    assert hosts["leaf-su001-r1"]["type"] == "l3leaf" and "servers" in hosts["leaf-su001-r1"]
    nodes = fabric["l3leaf"]["nodes"] + fabric["spine"]["nodes"]
    assert len(hosts) == len(nodes)
    mgmt = [node["mgmt_ip"] for node in nodes]
    assert len(set(mgmt)) == len(mgmt)
    pools = [
        ipaddress.ip_network(fabric[key]["defaults"]["loopback_ipv4_pool"])
        for key in ("l3leaf", "spine")
    ]
    assert not pools[0].overlaps(pools[1])
    for key in ("l3leaf", "spine"):
        ids = [node["id"] for node in fabric[key]["nodes"]]
        assert ids == list(range(1, len(ids) + 1))
        assert len(ids) + 1 <= pools[0 if key == "l3leaf" else 1].num_addresses
    asns = [node["bgp_as"] for node in fabric["l3leaf"]["nodes"]]
    assert len(set(asns)) == len(asns) and fabric["spine"]["defaults"]["bgp_as"] not in asns
    assert fabric["overlay_routing_protocol"] == "none"
    assert fabric["l3leaf"]["defaults"]["mlag"] is False


def test_104_user_text_cannot_add_keys_or_documents(arista, facts):
    """A hand-drawn node name with a newline and YAML syntax stays one scalar."""
    fabric = arista
    evil = "gpu00001\nall: {children: {}}\n--- !!python/object:os.system"
    server = list(fabric.node_name).index("gpu00001")
    original = fabric.node_name[server]
    fabric.node_name[server] = evil
    try:
        text = "".join(avd_yaml_chunks(fabric, facts, name="x\n---\nall: 1", revision=1))
    finally:
        fabric.node_name[server] = original
    documents = list(yaml.safe_load_all(text))
    assert len(documents) == 1 and list(documents[0]) == ["all"]
    servers = documents[0]["all"]["children"]["FABRIC"]["vars"]["servers"]
    assert all("\n" not in s["name"] and " " not in s["name"] for s in servers)


def test_105_a_design_on_other_switches_is_refused(facts):
    """SN5600 (NVIDIA): EOS does not run on it, so there is no AVD input to write."""
    clos = _fabric(facts, "clos-3to1", 16)
    assert avd_yaml_model_refusal(clos, facts) == f"{AVD_NOT_ARISTA} (SN5600)"
    with pytest.raises(AvdExportError) as caught:
        avd_inputs(clos, facts)
    assert caught.value.code == "not-arista" and "SN5600" in caught.value.message


def test_106_an_arista_design_is_not_refused(arista, facts):
    assert avd_yaml_model_refusal(arista, facts) is None


def test_107_other_networks_are_named_as_left_out(arista, facts, inventory):
    """An OOB network beside the compute fabric: the file says it is not in it, and the
    compute fabric's inputs are unchanged."""
    spec = yaml.safe_load((EXAMPLES / "arista-7060x6-rail.yaml").read_text())
    spec = {**spec, "servers": 8, "networks": {"oob": {"leaf": "SN2201"}}}
    fabric = build_fabric(parse_spec(spec), facts)
    text = "".join(avd_yaml_chunks(fabric, facts, name="Rail", revision=3))
    assert "# Not in this file: oob, management (the cabling plan, NetBox and P2P" in text
    assert yaml.safe_load(text) == inventory
    plain = "".join(avd_yaml_chunks(arista, facts, name="Rail", revision=3))
    assert "Not in this file" not in plain


def _inband(facts, **inband):
    spec = yaml.safe_load((EXAMPLES / "arista-7060x6-rail.yaml").read_text())
    fabric = build_fabric(parse_spec({**spec, "servers": 8, "networks": {"inband": inband}}), facts)
    return yaml.safe_load("".join(avd_yaml_chunks(fabric, facts, name="x", revision=1))), fabric


def test_108_inband_is_a_second_fabric_of_mlag_pairs_and_l3spine_cores(facts):
    """[gpu]=={leaf pair}==[core]--[nfs]/[customer]: the pair's ISLs are its
    mlag_interfaces, the cores l3spine with the NFS and customer ports as endpoints."""
    arista = "DCS-7060X6-64PE"
    inventory, _ = _inband(facts, leaf=arista, core=arista, nfs_links=2, uplinks=2)
    inband = inventory["all"]["children"]["INBAND"]
    variables = inband["vars"]
    assert {g["vars"]["type"] for g in inband["children"].values()} == {"l3leaf", "l3spine"}
    (pair,) = variables["l3leaf"]["node_groups"]
    assert [n["name"] for n in pair["nodes"]] == ["inb-leaf-01", "inb-leaf-02"]
    assert pair["mlag_interfaces"] == ["Ethernet63/1", "Ethernet64/1"]  # ports 63, 64
    assert "spine" not in variables and variables["l3spine"]["defaults"]["mlag"] is False
    assert [s["name"] for s in variables["storage_arrays"]] == ["nfs-storage-01"]
    assert [r["name"] for r in variables["routers"]] == ["customer-core"]
    node = variables["servers"][0]["adapters"]
    assert node == [
        {
            "endpoint_ports": ["inb1", "inb2"],
            "switch_ports": ["Ethernet1/1", "Ethernet1/1"],
            "switches": ["inb-leaf-01", "inb-leaf-02"],
            "port_channel": {"mode": "active"},
        }
    ]
    mgmt = [
        n["mgmt_ip"]
        for f in inventory["all"]["children"].values()
        for key in ("l3leaf", "spine", "l3spine")
        for n in f["vars"].get(key, {}).get("nodes", [])
    ]
    mgmt += [n["mgmt_ip"] for n in pair["nodes"]]
    assert len(set(mgmt)) == len(mgmt) == 12 + 4


def test_109_an_inband_network_on_other_switches_is_left_out(facts):
    inventory, _ = _inband(facts, leaf="SN4600C", core="SN4600C")
    assert list(inventory["all"]["children"]) == ["FABRIC"]
