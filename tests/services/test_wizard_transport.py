"""The wizard's transport step (issue 20): the spec's ``transport`` block as form fields, mapped
on the server only, both ways; each empty field shows its profile's default with its source;
problems beside their fields, named by their spec path; nothing stored when a value is bad.

Figures: the profiles of planner/domain/transport/settings.py (Onyx `show roce`: ECN 150 /
1,500 KB; Arista: CS3 = DSCP 24 on traffic class 3; NVIDIA Network Operator roceOptimized: CNP
DSCP 48) and the DCS-7060X6-64PE's 165 MB packet buffer (inventory/library/seed/switches.yaml).
"""

from __future__ import annotations

import pytest

from planner.designs.forms import DesignWizardForm, fields_from_spec
from planner.designs.models import Design
from planner.designs.wizard import spec_from_fields
from planner.designs.wizard_transport import (
    IB_KEYS,
    NIC_KEYS,
    ROCE_KEYS,
    TRANSPORT_FIELDS,
    transport_table,
    transport_view,
)
from planner.domain.presets import preset_get
from planner.domain.transport.settings import ARISTA_AI, ONYX_ROCE

SUMMARY_URL = "/api/planner/summary/"


def arista_fields(**changes) -> dict[str, str]:
    """The Arista 7060X6 preset's fields (RoCE, XE9680 with B3140H NICs) at 16 servers."""
    return {**fields_from_spec(preset_get("arista-7060x6-rail").spec), "servers": "16", **changes}


def test_the_step_has_a_field_for_every_key_the_brief_names():
    assert set(ROCE_KEYS) >= {"profile", "lossless_dscp", "ecn_max_kb", "pfc_mode", "mtu_b"}
    assert set(ROCE_KEYS) >= {"pfc_watchdog", "load_balancing", "multiplane_mode", "trust"}
    assert set(IB_KEYS) == {"routing_engine", "adaptive_routing", "shield", "sharp"}
    assert set(NIC_KEYS) == {"profile", "data_priority", "data_dscp", "cnp_priority"} | {
        "cnp_dscp",
        "trust",
    }
    assert set(TRANSPORT_FIELDS) <= set(DesignWizardForm.base_fields)


def test_every_roce_and_infiniband_field_round_trips(seed_catalog):
    """fields -> spec -> fields: the same fields, every RoCE field (the NIC's keyed by the
    server's NIC part, B3140H) and every InfiniBand field."""
    roce = {
        "transport_type": "roce",
        "transport_profile": "nvidia-spectrum-x",
        "transport_lossless_priority": "3",
        "transport_lossless_dscp": "24-31",
        "transport_cnp_priority": "6",
        "transport_cnp_dscp": "48",
        "transport_trust": "dscp",
        "transport_ecn_min_kb": "150",
        "transport_ecn_max_kb": "1500",
        "transport_pfc_mode": "semi-lossless",
        "transport_mtu_b": "9216",
        "transport_pfc_watchdog": "no",
        "transport_load_balancing": "spraying",
        "transport_multiplane_mode": "swplb",
        "transport_nic_profile": "nvidia-connectx",
        "transport_nic_data_priority": "3",
        "transport_nic_data_dscp": "26",
        "transport_nic_cnp_priority": "6",
        "transport_nic_cnp_dscp": "48",
        "transport_nic_trust": "pcp",
    }
    fields = arista_fields(**roce)
    block = spec_from_fields(fields)["transport"]
    assert block["lossless_dscp"] == list(range(24, 32))
    assert block["pfc_watchdog"] is False and block["ecn_max_kb"] == 1500
    assert block["nics"] == {
        "B3140H": {
            "profile": "nvidia-connectx",
            "data_priority": 3,
            "data_dscp": 26,
            "cnp_priority": 6,
            "cnp_dscp": 48,
            "trust": "pcp",
        }
    }
    again = fields_from_spec(spec_from_fields(fields))
    assert again["source"] == "form" and again == fields
    # priority 0 is a value, not an empty box
    zero = arista_fields(transport_nic_cnp_priority="0", transport_lossless_priority="0")
    block = spec_from_fields(zero)["transport"]
    assert block["nics"]["B3140H"]["cnp_priority"] == 0 and block["lossless_priority"] == 0
    assert fields_from_spec(spec_from_fields(zero)) == zero

    ib = fields_from_spec(preset_get("h100-superpod-1su").spec)
    ib |= {
        "transport_type": "infiniband",
        "transport_routing_engine": "ftree",
        "transport_adaptive_routing": "no",
        "transport_shield": "yes",
        "transport_sharp": "no",
    }
    assert spec_from_fields(ib)["transport"] == {
        "type": "infiniband",
        "routing_engine": "ftree",
        "adaptive_routing": False,
        "shield": True,
        "sharp": False,
    }
    assert fields_from_spec(spec_from_fields(ib)) == ib


def test_the_other_transports_fields_stay_out_and_an_unshown_block_opens_as_text(seed_catalog):
    # chosen InfiniBand: the RoCE boxes (hidden on the page) say nothing
    ib = fields_from_spec(preset_get("h100-superpod-1su").spec)
    chosen = {**ib, "transport_type": "infiniband", "transport_ecn_min_kb": "150"}
    assert spec_from_fields(chosen)["transport"] == {"type": "infiniband"}
    # transport left to the leaf (QM9700: InfiniBand only): the same
    by_leaf = {**ib, "transport_ecn_min_kb": "150", "transport_sharp": "yes"}
    assert spec_from_fields(by_leaf)["transport"] == {"sharp": True}
    assert "transport" not in spec_from_fields(ib)
    # keys the step has no field for: the spec comes as its text, whole
    for block in (
        {"type": "roce", "mtu_by_role": {"server": 9000}},
        {"type": "roce", "nics": {"C8180": {"cnp_dscp": 48}}},  # not the XE9680's NIC
    ):
        spec = {**preset_get("arista-7060x6-rail").spec, "transport": block}
        fields = fields_from_spec(spec)
        assert fields["source"] == "text" and "transport:" in fields["spec_text"]


def test_defaults_and_their_sources_follow_the_leaf_server_and_profiles(seed_catalog):
    from planner.designs.adapters import catalog_facts

    table = transport_table(catalog_facts(for_new=True))
    assert table["leaves"]["DCS-7060X6-64PE"] == {
        "type": "roce",
        "profile": "arista",
        "maker": "arista",
        "sharp": False,
    }
    assert table["leaves"]["QM9700"]["type"] == "infiniband" and table["leaves"]["QM9700"]["sharp"]
    assert table["servers"]["XE9680"]["nic"] == "B3140H"
    assert table["servers"]["XE9680"]["nic_profile"] == "nvidia-connectx"

    arista = transport_view(table, {"leaf": "DCS-7060X6-64PE", "server": "XE9680"})
    assert arista["kind"] == "roce"
    assert arista["blanks"]["transport_type"] == "Default: RoCEv2 (from DCS-7060X6-64PE)"
    lossless = arista["fields"]["transport_lossless_dscp"]
    assert lossless["default"] == "24" and lossless["url"] == ARISTA_AI
    assert lossless["help"].startswith("Arista profile: 24. Secondary source:")
    assert arista["fields"]["transport_ecn_min_kb"]["default"] == ""  # Arista publishes none
    assert arista["fields"]["transport_nic_cnp_dscp"]["default"] == "48"
    assert arista["nic_heading"] == "Server NIC B3140H (NVIDIA BlueField-3 SuperNIC B3140H)"
    # the profile chosen in the step wins over the leaf's maker
    spectrum = transport_view(
        table, {"leaf": "DCS-7060X6-64PE", "transport_profile": "nvidia-spectrum-x"}
    )
    ecn = spectrum["fields"]["transport_ecn_min_kb"]
    assert (ecn["default"], ecn["url"]) == ("150", ONYX_ROCE)
    assert spectrum["fields"]["transport_mtu_b"]["default"] == "9,216"
    infiniband = transport_view(table, {"leaf": "QM9700", "server": "DGX-H100"})
    assert infiniband["kind"] == "infiniband"
    assert infiniband["fields"]["transport_routing_engine"]["default"] == "ar_updn"
    assert infiniband["fields"]["transport_sharp"]["default"] == "yes"  # Quantum-2


def test_the_page_shows_the_step_with_the_defaults_and_sources(logged_in_client, seed_catalog):
    html = logged_in_client.get("/designs/new/?preset=arista-7060x6-rail").content.decode()
    assert "<legend>Transport</legend>" in html
    assert 'id="transport-defaults"' in html
    assert '<option value="roce" selected>RoCEv2 (Ethernet)</option>' in html
    assert '<label for="id_transport_ecn_min_kb">ECN min threshold (KB):</label>' in html
    assert 'placeholder="3"' in html  # lossless priority: Arista's CS3 -> TC3
    assert 'aria-describedby="id_transport_lossless_dscp_helptext"' in html
    assert f'href="{ARISTA_AI}"' in html
    assert 'value="24"' in html  # the NIC's data DSCP the preset gives
    assert "Server NIC B3140H" in html
    assert '<section class="transport-kind" data-transport-kind="infiniband"' in html
    assert 'data-transport-kind="infiniband" aria-labelledby="transport-ib-label" hidden' in html


def _post(client, fields) -> tuple[int, dict]:
    response = client.post("/designs/new/", {**fields, "sharing": "private"})
    form = response.context["form"] if response.status_code == 200 else None
    return response.status_code, (dict(form.errors) if form else {})


def test_saving_a_roce_design_stores_the_block(logged_in_client, seed_catalog):
    fields = arista_fields(name="Arista pod", transport_ecn_min_kb="150")
    fields |= {"transport_ecn_max_kb": "1500", "transport_mtu_b": "9216"}
    status, errors = _post(logged_in_client, fields)
    assert status == 302, errors
    revision = Design.objects.get().revisions.get()
    assert revision.spec["transport"] == {
        "type": "roce",
        "profile": "arista",
        "ecn_min_kb": 150,
        "ecn_max_kb": 1500,
        "mtu_b": 9216,
        "nics": {"B3140H": {"data_dscp": 24}},
    }


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"transport_cnp_dscp": "64"}, "transport_cnp_dscp",
         "transport.cnp_dscp: 64 is greater than the maximum of 63"),
        ({"transport_nic_data_priority": "9"}, "transport_nic_data_priority",
         "transport.nics.B3140H.data_priority: 9 is greater than the maximum of 7"),
        ({"transport_lossless_dscp": "24, x"}, "transport_lossless_dscp",
         "transport.lossless_dscp.1: 'x' is not of type 'integer'"),
        ({"transport_ecn_min_kb": "2000", "transport_ecn_max_kb": "150"}, "transport_ecn_min_kb",
         "transport.ecn_min_kb: 2,000 KB is not below ecn_max_kb"),
        # above the DCS-7060X6-64PE's 165 MB packet buffer
        ({"transport_ecn_max_kb": "200000"}, "transport_ecn_max_kb",
         "transport.ecn_max_kb: 200,000 KB is above the 165 MB packet buffer"),
        ({"transport_type": "infiniband"}, "transport_type",
         "transport.type: infiniband needs infiniband switches"),
    ],
)  # fmt: skip
def test_a_bad_value_is_shown_beside_its_field_and_nothing_is_stored(
    logged_in_client, seed_catalog, changes, field, words
):
    fields = arista_fields(**changes)
    status, errors = _post(logged_in_client, fields)
    assert status == 200
    assert any(words in message for message in errors[field]), errors
    assert not Design.objects.exists()
    # the live summary names the same form field and spec path
    answer = logged_in_client.post(SUMMARY_URL, {"fields": fields}, content_type="application/json")
    assert answer.status_code == 400
    problems = answer.json()["problems"]
    assert any(p["field"] == field and words in p["message"] for p in problems), problems
