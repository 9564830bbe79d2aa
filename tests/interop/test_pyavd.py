"""Arista's own AVD (pyavd, pinned in requirements-dev.lock) reads the ``avd-yaml`` export.

The export of the Arista 7060X6 rail preset (eight servers: 8 leaves, 4 spines, 576 cables)
with an in-band network on 7060X6 (an MLAG leaf pair, two cores, NFS storage and the
customer's core) goes through pyavd as AVD's Ansible collection would run it:
``validate_inputs`` per device (no violation), ``get_avd_facts`` over both fabrics, then
``get_device_structured_config`` per device, whose ``ethernet_interfaces`` must hold every
cable of the cabling plan, on the switch port EOS names, with the right peer and peer port
(AVD's ``metadata``) and the split port's speed; three devices are rendered to EOS CLI with
``get_device_config``.

pyavd is imported, not skipped when missing: in CI it comes with the dev lock.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pyavd
import pytest
import yaml

from inventory.library.files import read_catalog_folder
from planner.domain.catalog import facts_from_records
from planner.domain.outputs import cabling_csv_lines
from planner.domain.outputs.avd import avd_hostvars, avd_topology_lines, avd_yaml_chunks
from planner.domain.pipeline import build_fabric
from planner.domain.spec import parse_spec

pytestmark = pytest.mark.interop

ROOT = Path(__file__).resolve().parents[2]
PRESET = ROOT / "planner" / "domain" / "examples" / "arista-7060x6-rail.yaml"


def _eos(port: str) -> str:
    """EOS name of a DCS-7060X6-64PE port as the cabling plan names it: an 8-lane OSFP cage,
    whole (``59`` is ``Ethernet59/1``) or split 2 x 400G (``1/2`` is ``Ethernet1/5``): EOS
    "Layer 1 Profiles" (https://www.arista.com/en/um-eos/eos-layer-1-profiles)."""
    cage, _, half = port.partition("/")
    return f"Ethernet{cage}/{(int(half or 1) - 1) * 4 + 1}"


@pytest.fixture(scope="module")
def design():
    """The preset with eight servers and an in-band network on 7060X6 leaf pairs and cores
    (NFS storage and the customer's core cabled to the cores)."""
    facts = facts_from_records(read_catalog_folder(ROOT / "inventory/library/seed").parts)
    spec = yaml.safe_load(PRESET.read_text())
    inband = {"leaf": "DCS-7060X6-64PE", "core": "DCS-7060X6-64PE", "nfs_links": 2, "uplinks": 2}
    fabric = build_fabric(parse_spec({**spec, "servers": 8, "networks": {"inband": inband}}), facts)
    return fabric, facts


@pytest.fixture(scope="module")
def structured(design):
    """Hostname -> pyavd structured config (a dict), after validating every device."""
    fabric, facts = design
    text = "".join(avd_yaml_chunks(fabric, facts, name="Arista rail", revision=1))
    hostvars = avd_hostvars(yaml.safe_load(text))
    validated = {}
    for host, inputs in hostvars.items():
        result = pyavd.validate_inputs(inputs)
        violations = [str(v.message) for v in result.validation_result.violations]
        assert violations == [], f"{host}: {violations[:3]}"
        validated[host] = result.validated_data
    facts_avd = pyavd.get_avd_facts(validated)
    return {
        host: pyavd.get_device_structured_config(host, inputs, facts_avd)._as_dict()
        for host, inputs in validated.items()
    }


def test_every_device_validates_and_every_cable_is_an_interface_with_its_peer(design, structured):
    fabric, facts = design
    switches = set(structured)
    assert len(switches) == 12 + 4  # 8 leaves, 4 spines; 2 in-band leaves, 2 cores
    interfaces = {
        (host, interface["name"]): interface
        for host, config in structured.items()
        for interface in config.get("ethernet_interfaces", [])
    }
    plan = list(csv.DictReader(cabling_csv_lines(fabric, facts)))
    networks = {row["network"] for row in plan}
    assert networks == {"compute", "inband"}
    seen = 0
    kinds = set()
    for row in plan:
        ends = ((row["a_device"], row["a_port"]), (row["b_device"], row["b_port"]))
        for (device, port), (peer, peer_port) in (ends, ends[::-1]):
            if device not in switches:
                continue  # a server's or an endpoint's own port: AVD configures switches
            found = interfaces.get((device, _eos(port)))
            assert found is not None, f"{device} {_eos(port)} ({row})"
            assert found["metadata"]["peer"] == peer
            wanted = _eos(peer_port) if peer in switches else peer_port
            assert found["metadata"]["peer_interface"] == wanted
            assert found["shutdown"] is False
            if row["network"] == "compute":
                assert found["speed"] == "400g-4"  # 2 x 400G on an 8-lane 800G OSFP cage
            kinds.add((row["network"], found["metadata"].get("peer_type")))
            seen += 1
    assert seen == len(interfaces)  # nothing AVD configured that the plan does not hold
    # MLAG peer links are AVD's mlag_peer; the cores (l3spine) keep their NFS and customer ports
    assert ("inband", "mlag_peer") in kinds
    cores = [i for (host, _), i in interfaces.items() if host.startswith("inb-core")]
    assert {i["metadata"]["peer"] for i in cores} >= {"nfs-storage-01", "customer-core"}


def test_eos_configuration_renders_the_split_ports(structured):
    for host in ("leaf-su001-r1", "spine-001-001"):
        config = pyavd.get_device_config(structured[host])
        assert f"hostname {host}" in config
        assert "interface Ethernet1/5\n" in config and "   speed 400g-4\n" in config
    config = pyavd.get_device_config(structured["inb-leaf-01"])
    assert "interface Ethernet63/1\n" in config and "mlag configuration" in config


def test_the_topology_csv_is_the_one_pyavd_writes(design, structured):
    """The ``avd`` download is AVD's own fabric documentation: pyavd's
    ``get_fabric_documentation(topology_csv=True)`` over the same inputs gives the same text,
    line for line (the compute fabric, the in-band MLAG pairs and cores, their endpoints)."""
    fabric, facts = design
    text = "".join(avd_yaml_chunks(fabric, facts, name="Arista rail", revision=1))
    validated = {
        h: pyavd.validate_inputs(i).validated_data
        for h, i in avd_hostvars(yaml.safe_load(text)).items()
    }
    documentation = pyavd.get_fabric_documentation(
        pyavd.get_avd_facts(validated),
        structured,
        "Arista rail",
        fabric_documentation=False,
        topology_csv=True,
    )
    ours = "".join(avd_topology_lines(fabric, facts))
    assert ours.replace("\r\n", "\n") == documentation.topology_csv
    # every cable of the plan once from each of its switch ends
    plan = list(csv.DictReader(cabling_csv_lines(fabric, facts)))
    ends = sum((row["a_device"] in structured) + (row["b_device"] in structured) for row in plan)
    assert documentation.topology_csv.count("\n") - 1 == ends
