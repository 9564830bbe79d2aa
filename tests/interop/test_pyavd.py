"""Arista's own AVD (pyavd, pinned in requirements-dev.lock) reads the ``avd-yaml`` export.

The export of the Arista 7060X6 rail preset (eight servers: 8 leaves, 4 spines, 576 cables)
goes through pyavd as AVD's Ansible collection would run it: ``validate_inputs`` per device
(no violation), ``get_avd_facts`` over the fabric, then ``get_device_structured_config`` per
device, whose ``ethernet_interfaces`` must hold every cable of the cabling plan, on the switch
port EOS names, with the right peer and peer port (AVD's ``metadata``) and the split port's
speed; two devices are rendered to EOS CLI with ``get_device_config``.

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
from planner.domain.outputs.avd import avd_hostvars, avd_yaml_chunks
from planner.domain.outputs.config.intent import switch_intents, transport_of
from planner.domain.pipeline import build_fabric
from planner.domain.spec import parse_spec

pytestmark = pytest.mark.interop

ROOT = Path(__file__).resolve().parents[2]
PRESET = ROOT / "planner" / "domain" / "examples" / "arista-7060x6-rail.yaml"


@pytest.fixture(scope="module")
def design():
    facts = facts_from_records(read_catalog_folder(ROOT / "inventory/library/seed").parts)
    spec = yaml.safe_load(PRESET.read_text())
    fabric = build_fabric(parse_spec({**spec, "servers": 8}), facts)
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
    settings, _ = transport_of(fabric, facts)
    eos = {  # the plan's port of a switch -> EOS's name, as the day-0 EOS configuration says
        (switch.name, interface.port): interface.names["eos"]
        for switch in switch_intents(fabric, facts, settings)
        for interface in switch.interfaces
    }
    assert len(structured) == len({switch for switch, _ in eos}) == 12
    interfaces = {
        (host, interface["name"]): interface
        for host, config in structured.items()
        for interface in config.get("ethernet_interfaces", [])
    }
    plan = list(csv.DictReader(cabling_csv_lines(fabric, facts)))
    assert len(plan) == fabric.link_count == 576
    seen = 0
    for row in plan:
        ends = ((row["a_device"], row["a_port"]), (row["b_device"], row["b_port"]))
        for (device, port), (peer, peer_port) in (ends, ends[::-1]):
            if (device, port) not in eos:
                continue  # a server's own port: AVD configures switches only
            found = interfaces.get((device, eos[(device, port)]))
            assert found is not None, f"{device} {eos[(device, port)]} ({row})"
            assert found["metadata"]["peer"] == peer
            assert found["metadata"]["peer_interface"] == eos.get((peer, peer_port), peer_port)
            assert found["speed"] == "400g-4"  # 2 x 400G on an 8-lane 800G OSFP cage
            assert found["shutdown"] is False
            seen += 1
    assert seen == len(interfaces)  # nothing AVD configured that the plan does not hold


def test_eos_configuration_renders_the_split_ports(structured):
    for host in ("leaf-su001-r1", "spine-001-001"):
        config = pyavd.get_device_config(structured[host])
        assert f"hostname {host}" in config
        assert "interface Ethernet1/5\n" in config and "   speed 400g-4\n" in config
