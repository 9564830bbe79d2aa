"""The wizard's cluster-network steps (issue 18): one optional step per network, mapped onto
the spec's ``networks`` block on the server only, both ways; problems beside their fields,
named by their spec path; nothing stored when a value is bad.

Figures: NVIDIA DGX SuperPOD H100 reference architecture RA-11333-001 V11 (2023-09-22),
Table 7 at 4 SU (127 DGX H100): 16 QM9700 storage switches, 8 SN4600C in-band switches, 8
SN2201 OOB switches (tests/unit/test_networks.py reproduces the tables in full).
"""

from __future__ import annotations

import pytest

from planner.designs.forms import DesignWizardForm, fields_from_spec
from planner.designs.models import Design
from planner.designs.wizard import spec_from_fields
from planner.designs.wizard_networks import NETWORK_KEYS, network_defaults
from planner.domain.presets import preset_get

SUMMARY_URL = "/api/planner/summary/"


def four_su_fields(**changes) -> dict[str, str]:
    """The wizard's fields of the 4 SU H100 SuperPOD preset (no networks), with ``changes``."""
    return {**fields_from_spec(preset_get("h100-superpod-4su").spec), **changes}


def test_ticking_storage_and_oob_adds_the_block_with_the_ra_defaults():
    fields = four_su_fields(network_storage="on", network_oob="on")
    # a network left out keeps its fields out of the spec, whatever they hold
    fields["inband_uplinks"] = "not a number"
    assert spec_from_fields(fields)["networks"] == {"storage": {}, "oob": {}}
    assert "networks" not in spec_from_fields(four_su_fields())


def test_every_network_field_round_trips():
    """fields -> spec -> fields: the same fields, for every field a network step shows."""
    values = {
        "leaf": "QM9700",
        "spine": "QM9790",
        "core": "SN4600C",
        "speed_gbps": "400",
        "ports_per_node": "2",
        "dual_homed": "no",
        "oversubscription": "4:3",
        "storage_ports": "48",
        "storage_port_speed_gbps": "200",
        "storage_leaves": "2",
        "uplinks": "2",
        "pdus_per_rack": "2",
        "switch_multiple": "2",
        "switches_per_rack": "0.5",  # one OOB switch per 2 compute racks
    }
    overrides = {("inband", "leaf"): "SN4600C", ("inband", "speed_gbps"): "100"}
    overrides |= {("oob", "leaf"): "SN2201", ("oob", "ports_per_node"): "1"}
    fields = four_su_fields(management_nodes="3", ufm_appliances="2", management_racks="5")
    for network in ("storage", "inband", "oob"):
        fields[f"network_{network}"] = "on"
        for key in NETWORK_KEYS[network]:
            fields[f"{network}_{key}"] = overrides.get((network, key), values[key])
    spec = spec_from_fields(fields)
    assert spec["networks"]["storage"]["dual_homed"] is False
    assert spec["networks"]["storage"]["oversubscription"] == "4:3"
    assert spec["networks"]["oob"]["pdus_per_rack"] == 2
    assert spec["networks"]["management_racks"] == 5
    again = fields_from_spec(spec)
    assert again["source"] == "form"
    assert again == fields
    # the converged step alone (it stands instead of storage and in-band)
    converged = four_su_fields(network_converged="on", converged_leaf="SN5600")
    converged |= {"converged_speed_gbps": "400", "converged_uplinks": "4"}
    spec = spec_from_fields(converged)
    assert spec["networks"] == {"converged": {"leaf": "SN5600", "speed_gbps": 400, "uplinks": 4}}
    assert fields_from_spec(spec) == converged


def test_placeholders_follow_the_server_family():
    """DGX-H100/H200 show the H100 RA's values (Table 7: QM9700 storage, SN4600C in-band,
    SN2201 OOB switches); a server without reference defaults (DGX-B300) shows no switch: it
    must name one."""
    ra, other = network_defaults("DGX-H200"), network_defaults("DGX-B300")
    assert (ra["storage_leaf"], ra["inband_leaf"], ra["oob_leaf"]) == (
        "QM9700",
        "SN4600C",
        "SN2201",
    )
    assert ra["storage_storage_ports"] == "96" and ra["storage_oversubscription"] == "4:3"
    assert other["storage_leaf"] == other["oob_leaf"] == other["converged_leaf"] == ""
    assert other["storage_spine"] == "same as leaf"
    # DGX-B200: the B200 RA's (RA-11334-001 V08 Figure 3.2: SN5600 in-band leaves)
    assert network_defaults("DGX-B200")["inband_leaf"] == "SN5600"


def test_the_page_shows_each_step_with_the_servers_defaults(logged_in_client, seed_catalog):
    html = logged_in_client.get("/designs/new/?preset=h100-superpod-4su-cluster").content.decode()
    for label in ("Storage", "In-band management", "Out-of-band management", "Converged"):
        assert label in html
    assert 'id="id_network_storage" checked' in html
    assert "Default: QM9700" in html  # the storage leaf list's empty entry
    assert 'placeholder="4:3"' in html  # storage oversubscription, RA-11333-001
    assert 'id="network-placeholders"' in html
    page = logged_in_client.get("/designs/new/").content.decode()
    assert 'id="id_network_converged">' in page  # not ticked


def _post(client, fields) -> tuple[int, dict]:
    response = client.post("/designs/new/", {**fields, "sharing": "private"})
    form = response.context["form"] if response.status_code == 200 else None
    return response.status_code, (dict(form.errors) if form else {})


def test_saving_storage_and_oob_stores_the_block(logged_in_client, seed_catalog):
    fields = four_su_fields(name="Cluster", network_storage="on", network_oob="on")
    status, errors = _post(logged_in_client, fields)
    assert status == 302, errors
    revision = Design.objects.get().revisions.get()
    assert revision.spec["networks"] == {"storage": {}, "oob": {}}
    assert revision.summary["networks"]["storage"]["switches_total"] == 16  # RA Table 7
    assert revision.summary["networks"]["storage"]["switches"]["spine"] == {"QM9700": 4}


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        # a count that is not a whole number
        ({"network_storage": "on", "storage_storage_ports": "many"}, "storage_storage_ports",
         "networks.storage.storage_ports: 'many' is not of type 'integer'"),
        # the SN2201 has 4 x 100G ports: not 5 uplinks
        ({"network_oob": "on", "oob_uplinks": "5"}, "oob_uplinks",
         "networks.oob.uplinks: SN2201 has 4 ports at 100G"),
        # no 400G port on a 1 GbE access switch
        ({"network_storage": "on", "storage_leaf": "SN2201"}, "storage_leaf",
         "networks.storage.leaf: switch 'SN2201' has no 400G ports"),
        ({"network_storage": "on", "network_converged": "on", "converged_leaf": "SN5600"},
         "network_converged", "networks.converged: a converged fabric carries"),
    ],
)  # fmt: skip
def test_a_bad_value_is_shown_beside_its_field_and_nothing_is_stored(
    logged_in_client, seed_catalog, changes, field, words
):
    fields = four_su_fields(**changes)
    status, errors = _post(logged_in_client, fields)
    assert status == 200
    assert any(words in message for message in errors[field]), errors
    assert not Design.objects.exists()
    # the live summary names the same form field and spec path
    answer = logged_in_client.post(SUMMARY_URL, {"fields": fields}, content_type="application/json")
    assert answer.status_code == 400
    problems = answer.json()["problems"]
    assert any(p["field"] == field and words in p["message"] for p in problems), problems


def test_a_server_without_reference_defaults_must_name_the_switches(
    logged_in_client, seed_catalog, user
):
    fields = fields_from_spec(preset_get("b300-xdr-rail").spec)
    fields |= {"network_oob": "on", "network_storage": "on"}
    answer = logged_in_client.post(SUMMARY_URL, {"fields": fields}, content_type="application/json")
    assert answer.status_code == 400
    by_field = {p["field"]: p for p in answer.json()["problems"]}
    assert by_field["oob_leaf"]["spec_field"] == "networks.oob.leaf"
    assert "required" in by_field["oob_leaf"]["message"]
    assert by_field["storage_leaf"]["spec_field"] == "networks.storage.leaf"
    form = DesignWizardForm({**fields, "sharing": "private"}, user=user)
    assert "Choose a switch" in dict(form.fields["oob_leaf"].choices)[""]


def test_the_live_summary_counts_the_networks_switches(logged_in_client, seed_catalog):
    fields = four_su_fields(network_storage="on", network_inband="on", network_oob="on")
    answer = logged_in_client.post(SUMMARY_URL, {"fields": fields}, content_type="application/json")
    assert answer.status_code == 200, answer.json()
    networks = answer.json()["networks"]
    # RA-11333-001 V11 Table 7 at 4 SU
    assert networks["storage"]["switches_total"] == 16
    assert networks["inband"]["switches"] == {"leaf": {"SN4600C": 6}, "core": {"SN4600C": 2}}
    assert networks["oob"]["switches"] == {"leaf": {"SN2201": 8}}
    assert answer.json()["spec"]["networks"] == {"storage": {}, "inband": {}, "oob": {}}
