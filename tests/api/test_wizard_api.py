"""The wizard's helper API and messages (issue 15 item 5)."""

import pytest

from inventory.models import SwitchModel

pytestmark = [pytest.mark.api, pytest.mark.django_db]

SUMMARY = "/api/planner/summary/"


def _problems(api_client, spec):
    response = api_client.post(SUMMARY, {"spec": spec}, format="json")
    assert response.status_code == 400, response.content
    return response.json()["problems"]


def test_leaf_options_mark_switches_by_the_link_rules(api_client, seed_catalog):
    response = api_client.get("/api/planner/leaf-options/", {"server": "DGX-H100"})
    assert response.status_code == 200
    rows = {row["slug"]: row for row in response.json()["switches"]}
    assert rows["QM9700"]["fits"] and rows["QM9700"]["reason"] == ""
    assert not rows["SN4600C"]["fits"]  # 100G ports: no link to a 400G NIC
    assert "SN4600C" in rows["SN4600C"]["reason"]
    fits = [row["fits"] for row in response.json()["switches"]]
    assert fits == sorted(fits, reverse=True)  # those that fit first
    assert api_client.get("/api/planner/leaf-options/").status_code == 400


def test_switch_without_ports_names_it(api_client, seed_catalog):
    # Every seed switch lists its data ports now (issue 36): one entered without them, as an
    # import may leave it, is named.
    switch = SwitchModel.objects.get(slug="QFX5250")
    switch.cage_groups = []
    switch.save()
    spec = {
        "name": "x",
        "topology": "rail-optimized",
        "server": "DGX-H100",
        "servers": 8,
        "switches": {"leaf": "QFX5250"},
    }
    [problem] = _problems(api_client, spec)
    assert problem["field"] == "switches.leaf"
    assert "it has G ports" not in problem["message"]
    assert "lists no data ports" in problem["message"]


def test_typo_suggests_the_right_word(api_client, seed_catalog):
    text = "name: x\ntopology: rail-optimised\nserver: DGX-H100\nservers: 8\nrials: 4\n"
    problems = {p["field"]: p["message"] for p in _problems(api_client, text)}
    assert "did you mean 'rail-optimized'?" in problems["topology"]
    assert "rials (did you mean rails?)" in problems["spec"]


# --- The wizard's fields become a spec on the server (issue 16 item 5) ------------------------

#: The wizard's fields as the browser sends them: every value text, defaults included.
FIELDS = {
    "name": "Pod A",
    "description": "",
    "topology": "rail-optimized",
    "server": "DGX-H100",
    "servers": "127",
    "rails": "",
    "planes": "1",
    "servers_per_su": "32",
    "k": "48",
    "servers_per_rack": "",
    "rack": "",
    "leaf": "QM9700",
    "spine": "",
    "core": "",
    "tiers": "auto",
    "oversubscription": "1",
    "reserved_leaf_ports": "4",
    "media_server_leaf": "MMF",
    "media_leaf_spine": "auto",
    "media_spine_core": "auto",
    "price_book": "",
    "source": "form",
    "team": "",
    "sharing": "private",
}


def test_fields_become_the_spec_the_save_builds(api_client, seed_catalog, user):
    from planner.designs.forms import DesignWizardForm

    response = api_client.post(SUMMARY, {"fields": FIELDS}, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["spec"] == {
        "name": "Pod A",
        "topology": "rail-optimized",
        "server": "DGX-H100",
        "servers": 127,
        "servers_per_su": 32,  # k is a fat-tree key: left out
        "reserved_leaf_ports": 4,
        "switches": {"leaf": "QM9700"},
        "media": {"server-leaf": "MMF"},
    }
    assert body["gpus"] == 1016 and body["power_w"] > 0
    # The save maps the form's cleaned values with the same function: the same document.
    form = DesignWizardForm(FIELDS, user=user)
    assert form.is_valid(), form.errors
    assert form.spec_document() == body["spec"]


def test_a_field_problem_names_the_form_field(api_client, seed_catalog):
    fields = {**FIELDS, "servers": "0", "leaf": "NOPE", "servers_per_rack": "lots"}
    response = api_client.post(SUMMARY, {"fields": fields}, format="json")
    assert response.status_code == 400, response.content
    body = response.json()
    problems = {p["field"]: p for p in body["problems"]}
    assert "minimum" in problems["servers"]["message"]
    assert problems["servers"]["spec_field"] == "servers"
    assert body["spec"]["servers"] == 0  # the spec built comes back with the problems
    assert body["spec"]["layout"] == {"servers_per_rack": "lots"}
    assert set(problems) <= {"servers", "leaf", "servers_per_rack", ""}


def test_spec_or_fields_not_both(api_client):
    both = api_client.post(SUMMARY, {"spec": {}, "fields": {}}, format="json")
    assert both.status_code == 400
    assert [p["field"] for p in both.json()["problems"]] == ["spec"]
    bad = api_client.post(SUMMARY, {"fields": {"servers": [1]}}, format="json")
    assert bad.status_code == 400
    assert bad.json()["problems"][0]["field"] == "fields.servers"


def test_cost_only_with_the_price_right(api_client, seed_catalog, user):
    plain = api_client.post(SUMMARY, {"fields": FIELDS}, format="json").json()
    assert "cost" not in plain and plain["power_w"] > 0
    from tests.conftest import grant_catalog_editor

    grant_catalog_editor(user)
    api_client.force_authenticate(type(user).objects.get(pk=user.pk))
    priced = api_client.post(SUMMARY, {"fields": FIELDS}, format="json").json()
    cost = priced["cost"]
    assert cost["currency"] and cost["text"]
    assert cost["text"].startswith("unpriced (") or float(cost["total"]) > 0
    # the same figure as the designs list's (planner.designs.figures over the saved design)
    design = api_client.post(
        "/api/planner/designs/", {"spec": priced["spec"]}, format="json"
    ).json()
    assert design["cost"] == cost
    assert design["power_w"] == priced["power_w"]


# --- Spines, uplink speed, growth and racks (issue 17) -----------------------------------------


def test_new_fields_map_to_the_spec_and_their_problems_back(api_client, seed_catalog):
    fields = {
        **FIELDS,
        "spines": "16",
        "min_spines": "2",
        "uplink_speed_gbps": "400",
        "grow_to_gpus": "4096",
    }
    response = api_client.post(SUMMARY, {"fields": fields}, format="json")
    spec = response.json()["spec"]
    assert spec["spines"] == 16 and spec["uplink_speed_gbps"] == 400
    assert spec["grow_to"] == {"gpus": 4096}
    assert "min_spines" not in spec  # the default is left out
    bad = {**fields, "spines": "1", "min_spines": "3", "uplink_speed_gbps": "0"}
    response = api_client.post(SUMMARY, {"fields": bad}, format="json")
    assert response.status_code == 400, response.content
    problems = {p["field"]: p for p in response.json()["problems"]}
    assert problems["uplink_speed_gbps"]["spec_field"] == "uplink_speed_gbps"
    bad = {**fields, "spines": "1", "min_spines": "3"}
    problems = {
        p["field"]: p
        for p in api_client.post(SUMMARY, {"fields": bad}, format="json").json()["problems"]
    }
    assert "more than spines = 1" in problems["min_spines"]["message"]
    bad = {**fields, "grow_to_gpus": "0"}
    problems = {
        p["field"]: p
        for p in api_client.post(SUMMARY, {"fields": bad}, format="json").json()["problems"]
    }
    assert problems["grow_to_gpus"]["spec_field"] == "grow_to.gpus"


def test_servers_of_a_rack_scale_system_are_racks(api_client, seed_catalog):
    fields = {
        **FIELDS,
        "server": "GB300-NVL72",
        "servers": "8",
        "servers_per_su": "8",
        "leaf": "Q3400-RA",
        "reserved_leaf_ports": "0",
        "media_server_leaf": "auto",
    }
    response = api_client.post(SUMMARY, {"fields": fields}, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["spec"]["racks"] == 8 and "servers" not in body["spec"]
    assert body["gpus"] == 576


def test_a_draft_that_cannot_be_built_yet_answers_its_problems_without_an_error_status(
    api_client, seed_catalog
):
    """The wizard's live check (issue 37 item 7): a half-filled form is no failed request (no
    400 in the browser's console); without ``draft`` the API still refuses with 400."""
    fields = {**FIELDS, "servers": "", "leaf": "NOPE"}
    draft = api_client.post(SUMMARY, {"fields": fields, "draft": True}, format="json")
    plain = api_client.post(SUMMARY, {"fields": fields}, format="json")
    assert draft.status_code == 200 and plain.status_code == 400
    assert draft.json() == plain.json()  # the same problems and spec
    assert "servers" in {p["field"] for p in draft.json()["problems"]}
    spec = {
        "name": "x",
        "topology": "rail-optimized",
        "server": "DGX-H100",
        "servers": 8,
        "switches": {"leaf": "NOPE"},
    }
    text = api_client.post(SUMMARY, {"spec": spec, "draft": True}, format="json")
    assert text.status_code == 200
    assert [p["field"] for p in text.json()["problems"]] == _fields(_problems(api_client, spec))
    built = api_client.post(SUMMARY, {"fields": FIELDS, "draft": True}, format="json")
    assert built.status_code == 200 and "problems" not in built.json()
    assert built.json()["gpus"] > 0


def _fields(problems):
    return [p["field"] for p in problems]
