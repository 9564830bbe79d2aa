"""Spares by what is replaced (issue 33 item 6) on stored presets: "Open the BOM with spares"
takes the failure estimate's percentages to the BOM API, and the counts follow the design
(compute trays of a rack-scale system, never whole racks; PDUs, UFM appliances and management
nodes as groups of their own; a rack line per kind)."""

from __future__ import annotations

import pytest

from planner.designs.adapters import catalog_facts
from planner.designs.selectors import revision_fabric
from planner.designs.services import design_create
from planner.domain.fabric import ROLE
from planner.domain.presets import EXAMPLES_DIR
from planner.domain.spec import load_spec_text

BASE = "/api/planner"


def _preset(user, name: str):
    spec = load_spec_text((EXAMPLES_DIR / f"{name}.yaml").read_text())
    design = design_create(owner=user, spec_document=spec)
    return design, revision_fabric(design.latest_revision)


def _bom_with_spares(client, design) -> tuple[dict, dict]:
    """The failure estimate and the BOM its "Open the BOM with spares" link opens."""
    url = f"{BASE}/designs/{design.pk}/revisions/1/"
    failures = client.get(url + "failures/").json()
    query = {f"spares_{k}": f"{v:g}" for k, v in failures["spares"]["bom_pct"].items()}
    response = client.get(url + "bom/", query)
    assert response.status_code == 200, response.content
    return failures, response.json()


def _rows(failures) -> dict:
    return {row["category"]: row for row in failures["spares"]["rows"]}


def test_gb300_spares_compute_trays_not_racks(api_client, seed_catalog, user):
    design, fabric = _preset(user, "gb300-nvl72-xdr")
    failures, bom = _bom_with_spares(api_client, design)
    systems = int((fabric.node_role == ROLE["server"]).sum())
    trays = catalog_facts().parts["GB300-NVL72"]["trays"]
    server = _rows(failures)["server"]
    assert server["installed"] == systems * trays["compute"]
    assert 0 < server["spares"] <= server["installed"]
    lines = {line["part"]: line for line in bom["lines"]}
    system = lines["GB300-NVL72"]
    assert (system["quantity"], system["spares"], system["installed"]) == (systems, 0, 0)
    compute = lines["GB300-NVL72 compute tray"]
    assert compute["category"] == "server" and compute["base_quantity"] == 0
    assert compute["installed"] == server["installed"]
    assert compute["spares"] == compute["quantity"] == server["spares"]
    switch_trays = lines["GB300-NVL72 NVLink switch tray"]
    assert switch_trays["installed"] == systems * trays["switch"]
    for line in bom["lines"]:
        assert 0 <= line["spares"] <= line["installed"], line["part"]
    racks = [line for line in bom["lines"] if line["category"] == "rack"]
    assert racks and all(line["spares"] == 0 for line in racks)
    kinds = [rack["kind"] for rack in fabric.racks]
    # the compute racks are the systems themselves: only the network racks are a rack line
    assert kinds.count("server") == systems
    assert [(r["tier"], r["quantity"]) for r in racks] == [("network", kinds.count("network"))]


def test_h100_cluster_pdus_and_management_systems_are_not_servers(api_client, seed_catalog, user):
    design, fabric = _preset(user, "h100-superpod-4su-cluster")
    failures, bom = _bom_with_spares(api_client, design)
    servers = int((fabric.node_role == ROLE["server"]).sum())
    rows = _rows(failures)
    assert rows["server"]["installed"] == servers
    by_category: dict[str, list] = {}
    for line in bom["lines"]:
        by_category.setdefault(line["category"], []).append(line)
    assert sum(line["base_quantity"] for line in by_category["server"]) == servers
    facts = catalog_facts()
    assert {facts.parts[line["part"]]["kind"] for line in by_category["server"]} == {"server"}
    settings = fabric.settings.networks["management"]["settings"]
    pdus = sum(line["base_quantity"] for line in by_category["pdu"])
    assert (
        pdus
        == rows["pdu"]["installed"]
        == (
            settings["compute_racks"] * settings["pdus_per_rack"]
            + settings["management_racks"] * settings["pdus_per_management_rack"]
        )
    )
    management = sum(line["base_quantity"] for line in by_category["management"])
    assert management == settings["ufm_appliances"] + settings["management_nodes"]
    # no field rate for PDUs or management systems: the estimate gives them no spares
    assert all(line["spares"] == 0 for line in by_category["pdu"] + by_category["management"])
    assert all(0 <= line["spares"] <= line["installed"] for line in bom["lines"])
    racks = {line["tier"]: line for line in by_category["rack"]}
    kinds = [rack["kind"] for rack in fabric.racks]
    assert {tier: line["quantity"] for tier, line in racks.items()} == {
        "compute": kinds.count("server"),
        "network": kinds.count("network"),
        "management": settings["management_racks"],
    }
    assert racks["compute"]["part"] == fabric.settings.layout["rack"]
    assert all(line["spares"] == 0 for line in racks.values())
    refused = api_client.get(f"{BASE}/designs/{design.pk}/revisions/1/bom/", {"spares_rack": "5"})
    # no rack spares: the API does not take the parameter, and says so by name
    assert refused.status_code == 400 and "spares_rack" in refused.json()


@pytest.mark.parametrize("name", ["gb300-nvl72-xdr", "h100-superpod-4su-cluster"])
def test_outputs_page_shows_spares_by_group(logged_in_client, seed_catalog, user, name):
    design, _ = _preset(user, name)
    page = f"/designs/{design.pk}/revisions/1/outputs/"
    html = logged_in_client.get(page, {"spares_server": "8.33", "spares_pdu": "5"})
    assert html.status_code == 200
    text = html.content.decode()
    assert "Servers and compute trays" in text and 'name="spares_pdu"' in text
    assert 'name="spares_rack"' not in text
    if name.startswith("gb300"):
        assert "GB300-NVL72 compute tray" in text
    else:
        assert "Rack PDUs" in text and "19-inch IT cabinet (generic)" in text
