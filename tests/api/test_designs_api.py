"""Design API flows: CRUD, live summary, revisions (edit, conflict, restore, diff, download),
presets, and who may see or change what."""

from __future__ import annotations

import pytest
import yaml
from rest_framework.test import APIClient

from planner.designs.models import Design
from planner.teams.models import Team, TeamMembership

SPEC = {
    "name": "4 SU",
    "topology": "rail-optimized",
    "server": "DGX-H100",
    "servers": 127,
    "servers_per_su": 32,
    "reserved_leaf_ports": 4,
    "switches": {"leaf": "QM9700"},
}
BASE = "/api/planner"


def _with(**changes):
    return {**SPEC, **changes}


def _create(client, spec=SPEC, **extra) -> dict:
    response = client.post(f"{BASE}/designs/", {"spec": spec, **extra}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def _problems(response) -> dict[str, str]:
    assert response.status_code == 400, response.content
    return {p["field"]: p["message"] for p in response.json()["problems"]}


def _client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


# --- CRUD -------------------------------------------------------------------------------------


def test_create_list_retrieve_patch_delete(api_client, seed_catalog):
    design = _create(api_client)
    assert design["name"] == "4 SU"
    assert design["owner"] == "alice"
    assert design["latest_revision"] == 1
    assert design["summary"]["gpus"] == 1016
    assert design["sharing"] == "private"

    listing = api_client.get(f"{BASE}/designs/").json()
    assert listing["count"] == 1
    assert listing["results"][0]["summary"]["switches_total"] == 48

    url = f"{BASE}/designs/{design['id']}/"
    assert api_client.get(url).json()["latest_revision"] == 1
    patched = api_client.patch(url, {"name": "Pod A", "description": "hall 1"}, format="json")
    assert patched.status_code == 200
    assert patched.json()["name"] == "Pod A"
    assert api_client.put(url, {"name": "x"}, format="json").status_code == 405
    assert api_client.delete(url).status_code == 204
    assert api_client.get(url).status_code == 404
    assert not Design.objects.exists()


def test_create_accepts_yaml_text(api_client, seed_catalog):
    design = _create(api_client, spec=yaml.safe_dump(_with(name="From YAML")))
    assert design["name"] == "From YAML"


def test_create_with_bad_spec_is_400_with_fields(api_client, seed_catalog):
    response = api_client.post(f"{BASE}/designs/", {"spec": _with(server="NOPE")}, format="json")
    assert "NOPE" in _problems(response)["server"]
    assert not Design.objects.exists()
    response = api_client.post(f"{BASE}/designs/", {"spec": 12}, format="json")
    assert response.status_code == 400


def test_sharing_needs_a_team(api_client, seed_catalog, user):
    response = api_client.post(
        f"{BASE}/designs/", {"spec": SPEC, "sharing": "team-read"}, format="json"
    )
    assert response.status_code == 400
    assert "team" in response.json()
    Team.objects.create(name="Fabric", slug="fabric")
    response = api_client.post(
        f"{BASE}/designs/", {"spec": SPEC, "team": "fabric", "sharing": "team-read"}, format="json"
    )
    assert response.status_code == 400
    assert "member" in response.json()["team"][0]


# --- Summary endpoint (the wizard's live summary) -----------------------------------------------


def test_summary_of_an_unsaved_spec(api_client, seed_catalog):
    response = api_client.post(f"{BASE}/summary/", {"spec": SPEC}, format="json")
    assert response.status_code == 200
    summary = response.json()
    assert summary["gpus"] == 1016
    assert summary["switches"] == {"leaf": 32, "spine": 16, "core": 0}
    assert not Design.objects.exists()


@pytest.mark.parametrize(
    ("spec", "field", "words"),
    [
        ("name: [unclosed\n", "spec", "malformed"),
        (_with(servers="many"), "servers", "not of type 'integer'"),
        (_with(topology="ring"), "topology", "ring"),
        (_with(unknown_key=1), "spec", "unknown_key"),
        (_with(switches={"leaf": "NOPE"}), "switches.leaf", "no switch 'NOPE'"),
        (_with(servers=512, reserved_leaf_ports=0, tiers=2), "tiers", "need 3 tiers"),
        (_with(planes=3), "planes", "3 planes"),
    ],
    ids=["malformed", "type", "enum", "unknown-key", "lookup", "need-3-tiers", "planes"],
)
def test_summary_problems_name_the_field(api_client, seed_catalog, spec, field, words):
    response = api_client.post(f"{BASE}/summary/", {"spec": spec}, format="json")
    problems = _problems(response)
    assert field in problems, problems
    assert words in problems[field]


def test_summary_of_4096_gpus_in_2_tiers(api_client, seed_catalog):
    spec = {
        "name": "big",
        "topology": "rail-optimized",
        "server": "DGX-H100",
        "servers": 512,
        "tiers": 2,
        "switches": {"leaf": "QM9700"},
    }
    message = _problems(api_client.post(f"{BASE}/summary/", {"spec": spec}, format="json"))
    assert "4,096 GPUs" in message["tiers"] and "need 3 tiers" in message["tiers"]


def test_summary_without_spec_is_400_problems(api_client):
    assert "spec" in _problems(api_client.post(f"{BASE}/summary/", {}, format="json"))


def test_presets(api_client):
    presets = api_client.get(f"{BASE}/presets/").json()
    slugs = [p["slug"] for p in presets]
    assert "h100-superpod-4su" in slugs
    four = next(p for p in presets if p["slug"] == "h100-superpod-4su")
    assert four["spec"]["servers"] == 127
    assert "RA-11333-001" in four["note"]
    # every wizard field as text: the page writes these when the preset is chosen
    assert four["fields"]["servers"] == "127" and four["fields"]["leaf"] == "QM9700"
    assert four["fields"]["tiers"] == "auto" and four["fields"]["spine"] == ""


# --- Revisions ----------------------------------------------------------------------------------


def test_revision_flow_edit_conflict_keep_mine_restore_diff(api_client, seed_catalog):
    design = _create(api_client)
    revisions = f"{BASE}/designs/{design['id']}/revisions/"
    edit = api_client.post(
        revisions, {"spec": _with(servers=63), "base_revision": 1, "message": "2 SU"}, format="json"
    )
    assert edit.status_code == 201, edit.content
    assert edit.json()["number"] == 2
    assert edit.json()["summary"]["gpus"] == 504
    assert edit.json()["created_by"] == "alice"

    # A second editor still on revision 1 gets 409 with what changed since.
    stale = api_client.post(
        revisions, {"spec": _with(servers=31), "base_revision": 1}, format="json"
    )
    assert stale.status_code == 409
    body = stale.json()
    assert body["latest_revision"] == 2
    assert "Revision 1 is no longer the latest" in body["detail"]
    assert body["changes"]["summary"]["gpus"]["delta"] == -512
    assert body["changes"]["spec"]["servers"] == {
        "old": 127,
        "new": 63,
        "delta": -64,
        "text": "Servers: 127 → 63 (-64)",  # issue 33 item 7: every change in words
    }
    # "Keep mine": the same spec, on top of the latest.
    kept = api_client.post(
        revisions, {"spec": _with(servers=31), "base_revision": 2}, format="json"
    )
    assert kept.status_code == 201
    assert kept.json()["number"] == 3

    bad = api_client.post(revisions, {"spec": _with(servers=0), "base_revision": 3}, format="json")
    assert "servers" in _problems(bad)

    listing = api_client.get(revisions).json()
    assert [r["number"] for r in listing["results"]] == [3, 2, 1]
    assert "spec" not in listing["results"][0]

    detail = api_client.get(f"{revisions}1/").json()
    assert (detail["kind"], detail["spec"]["servers"], detail["summary"]["gpus"]) == (
        "generated",
        127,
        1016,
    )
    assert api_client.get(f"{revisions}9/").status_code == 404

    restored = api_client.post(f"{revisions}1/restore/")
    assert restored.status_code == 201
    assert restored.json()["number"] == 4
    assert restored.json()["kind"] == "restored"
    assert restored.json()["spec"]["servers"] == 127
    assert api_client.post(f"{revisions}9/restore/").status_code == 404
    assert api_client.get(f"{BASE}/designs/{design['id']}/").json()["latest_revision"] == 4

    diff = api_client.get(f"{BASE}/designs/{design['id']}/diff/?from=1&to=2").json()
    assert diff["from"] == 1 and diff["to"] == 2
    assert diff["summary"]["gpus"] == {
        "old": 1016,
        "new": 504,
        "delta": -512,
        "text": "GPUs: 1,016 → 504 (-512)",  # issue 33 item 7: in words, with separators
    }
    assert "servers" in diff["spec"]
    assert api_client.get(f"{BASE}/designs/{design['id']}/diff/?from=1").status_code == 400


def test_spec_download_yaml_and_json(api_client, seed_catalog):
    design = _create(api_client)
    url = f"{BASE}/designs/{design['id']}/revisions/1/spec/"
    as_yaml = api_client.get(url, {"format": "yaml"})
    assert as_yaml.status_code == 200
    assert as_yaml["Content-Type"].startswith("application/yaml")
    assert 'filename="design-' in as_yaml["Content-Disposition"]
    assert yaml.safe_load(as_yaml.content)["servers"] == 127
    as_json = api_client.get(url, {"format": "json"})
    assert as_json["Content-Type"].startswith("application/json")
    assert as_json.json()["switches"]["leaf"] == "QM9700"
    assert api_client.get(url).status_code == 200  # YAML by default
    empty = api_client.get(f"{url}?format=")  # not "not given": a 400 naming it
    assert empty.status_code == 400 and "format" in yaml.safe_load(empty.content)
    # A downloaded spec builds the same design again.
    again = _create(api_client, spec=as_yaml.content.decode())
    assert again["summary"]["gpus"] == 1016


# --- Permissions ---------------------------------------------------------------------------------


@pytest.fixture
def team_setup(seed_catalog, user, other_user, django_user_model):
    team = Team.objects.create(name="Fabric", slug="fabric")
    TeamMembership.objects.create(team=team, user=user, role="owner")
    TeamMembership.objects.create(team=team, user=other_user, role="viewer")
    editor = django_user_model.objects.create_user(username="erin", password="pw-erin-123!")
    TeamMembership.objects.create(team=team, user=editor, role="editor")
    stranger = django_user_model.objects.create_user(username="sam", password="pw-sam-123!")
    return {"team": team, "viewer": other_user, "editor": editor, "stranger": stranger}


def test_other_users_get_404(api_client, seed_catalog, other_user):
    design = _create(api_client)
    other = _client_for(other_user)
    url = f"{BASE}/designs/{design['id']}/"
    assert other.get(f"{BASE}/designs/").json()["count"] == 0
    assert other.get(url).status_code == 404
    assert other.patch(url, {"name": "mine"}, format="json").status_code == 404
    assert other.delete(url).status_code == 404
    assert other.get(f"{url}revisions/").status_code == 404
    assert other.get(f"{url}revisions/1/").status_code == 404
    assert other.get(f"{url}revisions/1/spec/").status_code == 404
    assert other.post(f"{url}revisions/1/restore/").status_code == 404
    assert other.get(f"{url}diff/?from=1&to=1").status_code == 404
    response = other.post(f"{url}revisions/", {"spec": SPEC, "base_revision": 1}, format="json")
    assert response.status_code == 404


def test_team_read_member_reads_but_cannot_write(api_client, team_setup):
    design = _create(api_client, team="fabric", sharing="team-read")
    url = f"{BASE}/designs/{design['id']}/"
    for who in ("viewer", "editor"):
        client = _client_for(team_setup[who])
        assert client.get(url).status_code == 200
        assert client.get(f"{url}revisions/1/").status_code == 200
        assert client.patch(url, {"name": "x"}, format="json").status_code == 403
        response = client.post(
            f"{url}revisions/", {"spec": SPEC, "base_revision": 1}, format="json"
        )
        assert response.status_code == 403
        assert client.post(f"{url}revisions/1/restore/").status_code == 403
        assert client.delete(url).status_code == 403
    assert _client_for(team_setup["stranger"]).get(url).status_code == 404


def test_team_edit_editor_writes_viewer_does_not(api_client, team_setup):
    design = _create(api_client, team="fabric", sharing="team-edit")
    url = f"{BASE}/designs/{design['id']}/"
    editor = _client_for(team_setup["editor"])
    response = editor.post(
        f"{url}revisions/", {"spec": _with(servers=63), "base_revision": 1}, format="json"
    )
    assert response.status_code == 201
    assert response.json()["created_by"] == "erin"
    assert editor.patch(url, {"name": "Renamed by Erin"}, format="json").status_code == 200
    # Only the owner deletes or changes sharing.
    assert editor.patch(url, {"sharing": "private"}, format="json").status_code == 403
    assert editor.delete(url).status_code == 403
    viewer = _client_for(team_setup["viewer"])
    response = viewer.post(f"{url}revisions/", {"spec": SPEC, "base_revision": 2}, format="json")
    assert response.status_code == 403
    assert api_client.patch(url, {"sharing": "private"}, format="json").status_code == 200
    assert editor.get(url).status_code == 404


# --- Power and cost (issue 15 item 10) ---------------------------------------------------------


def test_power_for_all_cost_only_with_the_price_right(api_client, seed_catalog, user):
    design = _create(api_client)
    assert design["power_w"] == design["summary"]["power_w"] > 0
    assert "cost" not in design
    listed = api_client.get(f"{BASE}/designs/").json()["results"][0]
    assert listed["power_w"] == design["power_w"] and "cost" not in listed
    assert "cost" not in api_client.get(f"{BASE}/designs/{design['id']}/").json()

    team = Team.objects.create(name="Sales", slug="sales")
    TeamMembership.objects.create(team=team, user=user, can_view_prices=True)
    detail = api_client.get(f"{BASE}/designs/{design['id']}/").json()
    assert set(detail["cost"]) == {
        "total",
        "currency",
        "complete",
        "unpriced_lines",
        "unpriced_parts",
        "text",
    }
    assert detail["cost"]["currency"] == "USD"
    if detail["cost"]["unpriced_parts"]:
        assert detail["cost"]["text"].startswith("unpriced (")
    listed = api_client.get(f"{BASE}/designs/").json()["results"][0]
    assert listed["cost"] == detail["cost"]


def test_a_cost_with_an_unpriced_line_has_no_total(
    api_client, logged_in_client, seed_catalog, user
):
    """A total is never partial: with the leaf switch's prices gone, the designs list (API and
    page) and the wizard's summary give no total but the count of unpriced lines."""
    from django.core.cache import cache

    from inventory.models import Price

    team = Team.objects.create(name="Sales", slug="sales")
    TeamMembership.objects.create(team=team, user=user, can_view_prices=True)
    design = _create(api_client)
    priced = api_client.get(f"{BASE}/designs/{design['id']}/").json()["cost"]
    deleted, _ = Price.objects.filter(part_slug__iexact="QM9700").delete()
    assert deleted, "the seed book prices the QM9700"
    cache.clear()
    listed = api_client.get(f"{BASE}/designs/").json()["results"][0]["cost"]
    assert listed["total"] is None and listed["complete"] is False
    assert listed["unpriced_lines"] > priced["unpriced_lines"]  # one line per tier
    assert listed["unpriced_parts"] == priced["unpriced_parts"] + 1
    assert (priced["total"] is None) == (priced["unpriced_lines"] > 0)
    n = listed["unpriced_parts"]
    assert listed["text"] == f"unpriced ({n} part{'s' if n != 1 else ''})"
    page = logged_in_client.get("/designs/").content.decode()
    assert listed["text"] in page
