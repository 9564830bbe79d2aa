"""The as-built check reads NetBox's default cable export ("Current view": no device columns,
the devices read from the planner's labels) and checks every network's ports, each network by
its own links. (The real NetBox's exports go through it in ``make interop``.)"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
import yaml

from inventory.library.files import read_catalog_folder
from planner.domain.asbuilt.cabling import CablingImportError, check_cabling
from planner.domain.asbuilt.names import FabricNames
from planner.domain.asbuilt.network_cables import NetworkLinks
from planner.domain.asbuilt.parsers import ParseError, parse
from planner.domain.catalog import facts_from_records
from planner.domain.outputs.exports import network_elements
from planner.domain.outputs.netbox_bundle import netbox_bundle
from planner.domain.pipeline import build_fabric
from planner.domain.spec import parse_spec

ROOT = Path(__file__).resolve().parents[2]
PRESET = ROOT / "planner" / "domain" / "examples" / "h100-superpod-4su-cluster.yaml"
CURRENT_VIEW = ["ID", "Label", "Termination A", "Termination B", "Status", "Type"]


@pytest.fixture(scope="module")
def design():
    facts = facts_from_records(read_catalog_folder(ROOT / "inventory/library/seed").parts)
    fabric = build_fabric(parse_spec(yaml.safe_load(PRESET.read_text())), facts)
    cables = list(csv.DictReader(io.StringIO(netbox_bundle(fabric, facts).files["08-cables.csv"])))
    names = FabricNames(fabric, facts)
    return fabric, names, NetworkLinks.of(network_elements(fabric, facts), fabric), cables


def _current_view(cables) -> str:
    """The cables as NetBox's cable list exports its default columns (connected)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CURRENT_VIEW)
    for number, row in enumerate(cables, start=1):
        writer.writerow(
            [number, row["label"], row["side_a_name"], row["side_b_name"], "Connected", "MMF"]
        )
    return out.getvalue()


def test_current_view_reads_each_end_device_from_the_label():
    text = "ID,Label,Termination A,Termination B,Status,Type\r\n"
    text += "7,R001-01.U01.P1.1/R001-05.U01.P1.1,1/1,1/1,Connected,MMF\r\n"
    text += "8,customer-core.P1/R003-01.U07.P33,1,33,Planned,\r\n"  # planned: not built
    (row,) = parse("netbox-cables", text)
    assert (row.a_device, row.a_port, row.b_device, row.b_port) == (
        "R001-01.U01",
        "1/1",
        "R001-05.U01",
        "1/1",
    )


def test_current_view_refuses_a_row_whose_label_names_no_devices():
    text = "ID,Label,Termination A,Termination B,Status,Type\r\n9,,1/1,2/1,Connected,\r\n"
    with pytest.raises(ParseError) as caught:
        parse("netbox-cables", text)
    assert caught.value.field == "label" and "All data" in str(caught.value)


def test_every_network_in_place_from_the_current_view(design):
    fabric, names, networks, cables = design
    rows = parse("netbox-cables", _current_view(cables))
    report = check_cabling(names, rows, whole_fabric=True, networks=networks)
    assert report.findings == []
    assert report.summary["links_in_place"] == fabric.link_count
    per_network = report.summary["networks"]
    assert set(per_network) == {"storage", "inband", "oob"}
    assert all(n["links_in_place"] == n["links_in_design"] > 0 for n in per_network.values())
    assert report.summary["rows"] == len(cables) == 3283


def test_network_cables_missing_and_swapped_are_found_in_their_network(design):
    _, names, networks, cables = design
    storage = [i for i, c in enumerate(cables) if c["tags"] == "storage"]
    oob = [i for i, c in enumerate(cables) if c["tags"] == "oob"]
    dropped = cables[storage[0]]
    # two OOB cables on one switch, their switch ports crossed
    first = cables[oob[0]]
    second = next(
        cables[i] for i in oob[1:] if cables[i]["side_b_device"] == first["side_b_device"]
    )
    edited = [dict(c) for i, c in enumerate(cables) if i != storage[0]]
    for row in edited:
        if row["label"] == first["label"]:
            row["side_b_name"] = second["side_b_name"]
        elif row["label"] == second["label"]:
            row["side_b_name"] = first["side_b_name"]
    report = check_cabling(
        names, parse("netbox-cables", _current_view(edited)), whole_fabric=True, networks=networks
    )
    found = sorted((f["network"], f["kind"], f["label"]) for f in report.findings)
    assert found == sorted(
        [
            ("storage", "missing", dropped["label"]),
            ("oob", "swapped-ports", first["label"]),
            ("oob", "swapped-ports", second["label"]),
        ]
    )
    assert report.summary["networks"]["oob"]["counts"]["swapped-ports"] == 2
    assert report.summary["counts"]["missing"] == 1  # the file's counts hold every network


def test_without_networks_a_network_port_is_still_refused(design):
    _, names, _, cables = design
    rows = parse("netbox-cables", _current_view(cables))
    with pytest.raises(CablingImportError) as caught:
        check_cabling(names, rows, whole_fabric=True)
    assert any(e["code"] == "unknown-port" for e in caught.value.errors)
