"""The catalog names the compute NIC of every GPU server whose sources give it (issue 37 item
7): on-board NICs are records of their own (sourced, graded), part of the server in the BOM,
and the presets validate without ``compute-nic-unknown``; where no source names the NIC the
warning tells the user what to do."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from inventory.library.provenance import provenance_for
from inventory.library.vocab import ON_BOARD
from planner.analyses.validate import validate_fabric
from planner.domain.fabric import FabricBuilder
from planner.domain.outputs import bill_of_materials
from planner.domain.pipeline import build_fabric
from planner.domain.spec import load_spec_text, parse_spec

EXAMPLES = Path(__file__).resolve().parents[2] / "planner" / "domain" / "examples"
FAMILY = re.compile(r"ConnectX-(\d)|CX-(\d)")


def _families(text: str) -> set[str]:
    return {f"ConnectX-{a or b}" for a, b in FAMILY.findall(text)}


def test_every_server_whose_record_states_its_connectx_names_that_compute_nic(seed_records, facts):
    named = 0
    for record in seed_records:
        if record.category != "server" or record.spec.get("kind") not in ("server", "rack-system"):
            continue
        # what the server's own sourced description says of its compute NICs
        stated = _families(str(record.identity.get("description") or ""))
        if not stated:
            continue
        nic = facts.parts.get(record.spec.get("compute_nic") or "")
        assert nic is not None and nic["category"] == "nic", record.slug
        assert _families(nic["name"]) & stated, (record.slug, nic["name"])
        named += 1
    # DGX H100, H200 (its description says "same as DGX H100", so it is checked below),
    # B200, B300, GB200 and GB300 NVL72, the ASUS B300 server
    assert named >= 5
    assert facts.parts["DGX-H200"]["compute_nic"] == facts.parts["DGX-H100"]["compute_nic"]


@pytest.mark.parametrize(
    ("server", "family", "speed_gbps"),
    [
        ("DGX-H100", "ConnectX-7", 400),
        ("DGX-B200", "ConnectX-7", 400),
        ("DGX-B300", "ConnectX-8", 800),
        ("GB300-NVL72", "ConnectX-8", 800),
    ],
)
def test_on_board_nic_records_carry_sources_grades_and_protocols(facts, server, family, speed_gbps):
    nic = facts.parts[facts.parts[server]["compute_nic"]]
    assert family in nic["name"] and nic["card_form_factor"] == ON_BOARD
    assert nic["max_speed_gbps"] == speed_gbps
    assert set(nic["protocols"]) == {"infiniband", "ethernet"}
    protocols = provenance_for(nic["provenance"], "protocols")
    # applied from the NIC family's datasheet to the on-board NIC: graded as an inference
    assert protocols["grade"] == "inferred" and protocols["source"] in nic["sources"]
    assert all(entry.get("grade") for entry in nic["sources"].values())


def test_on_board_nics_are_part_of_the_server_in_the_bom(facts):
    builder = FabricBuilder()
    builder.add_nodes(["d1", "d2"], role="server", model="DGX-B300", ports=8, ports_per_cage=1)
    builder.add_nodes(["x1"], role="server", model="XE9680", ports=8, ports_per_cage=1)
    bom = bill_of_materials(builder.build({}), facts)
    nics = {line.part for line in bom.lines if line.category == "nic"}
    assert nics == {"B3140H"}  # the XE9680's card; the DGX's ConnectX-8 is built in
    assert not [note for note in bom.notes if "DGX-B300" in note and "NIC" in note]


@pytest.mark.parametrize(
    "preset", ["gb300-nvl72-xdr", "b300-spectrum-x-twin-plane", "h100-superpod-4su-cluster"]
)
def test_nvidia_presets_no_longer_warn_compute_nic_unknown(facts, preset):
    spec = load_spec_text((EXAMPLES / f"{preset}.yaml").read_text(), name=preset)
    report = validate_fabric(build_fabric(parse_spec(spec), facts), facts)
    assert "compute-nic-unknown" not in report.codes("warning")


def test_a_server_whose_nic_no_source_names_gets_a_warning_saying_what_to_do(facts):
    assert not facts.parts["SYS-821GE-TNHR"].get("compute_nic")
    spec = {
        "name": "unknown nic",
        "topology": "rail-optimized",
        "server": "SYS-821GE-TNHR",
        "servers": 4,
        "switches": {"leaf": "QM9700"},
    }
    report = validate_fabric(build_fabric(parse_spec(spec), facts), facts)
    found = [p for p in report.problems if p.code == "compute-nic-unknown"]
    assert found
    text = f"{found[0].message} {found[0].suggestion}"
    assert "SYS-821GE-TNHR" in text and "catalog editor" in text
    assert "compute_nic" not in text  # no internal field name
