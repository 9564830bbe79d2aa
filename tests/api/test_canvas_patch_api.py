"""Issue 37 item 8: the canvas saves an edit as what it changed (PATCH topology/). The patch
goes through the same checks and build as a whole document (PUT), so both store the same
fabric; a save changes only what the edit touched; a patch naming what the base has not, or
making a document with errors, is a 400 naming the patch's entry; a stale base a 409, as a
PUT; check_stale and "Save anyway" work as they do for a PUT; and the answer says what
changed in the whole-fabric view, which is exactly what the saved revision's view shows."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from planner.designs.models import DesignRevision
from planner.domain.presets import preset_get
from planner.teams.models import Team, TeamMembership

BASE = "/api/planner"


@pytest.fixture
def design(api_client, seed_catalog):
    spec = preset_get("h100-superpod-1su").spec
    response = api_client.post(f"{BASE}/designs/", {"spec": spec}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def _url(design, tail):
    return f"{BASE}/designs/{design['id']}/{tail}"


def _document(client, design, number=1) -> dict:
    body = client.get(_url(design, f"revisions/{number}/topology/")).json()
    return {"nodes": body["nodes"], "links": body["links"]}


def _patch(client, design, base=1, **patch):
    return client.patch(_url(design, "topology/"), {"base_revision": base, **patch}, format="json")


def _count(design) -> int:
    return DesignRevision.objects.filter(design_id=design["id"]).count()


def test_a_moved_node_saves_that_node_only(api_client, design):
    document = _document(api_client, design)
    moved = {**document["nodes"][7], "x": -300.0}
    saved = _patch(api_client, design, nodes_set=[moved], check_stale=True, canvas_changes=True)
    assert saved.status_code == 201, saved.content
    body = saved.json()
    assert (body["number"], body["kind"], body["parent"]) == (2, "edited", 1)
    assert "stale_parameters" not in body["summary"]
    # the view: that node, at its new place; nothing else
    assert [n["data"]["id"] for n in body["canvas"]["nodes"]] == [f"node:{moved['name']}"]
    assert body["canvas"]["nodes"][0]["position"]["x"] == -300.0
    assert body["canvas"]["edges"] == [] and body["canvas"]["removed"] == []
    # the revisions: the move and nothing else, the nodes in their order
    diff = api_client.get(_url(design, "diff/"), {"from": 1, "to": 2}).json()
    assert diff["summary"] == {}
    assert [c["name"] for c in diff["fabric"]["changes"]] == [moved["name"]]
    stored = _document(api_client, design, 2)
    name = moved["name"]
    assert stored["nodes"] == [moved if n["name"] == name else n for n in document["nodes"]]
    assert stored["links"] == document["links"]


def test_a_patch_and_a_whole_document_store_the_same_fabric(api_client, design, user):
    """One edit (a link removed, one changed, a node moved) sent both ways, on two designs."""
    other = api_client.post(
        f"{BASE}/designs/", {"spec": preset_get("h100-superpod-1su").spec}, format="json"
    ).json()
    document = _document(api_client, design)
    changed = {**document["links"][3], "length_m": 9.0}
    moved = {**document["nodes"][2], "y": 999.0}
    patch = {
        "links_removed": [10],
        "links_changed": [{"index": 3, "link": changed}],
        "nodes_set": [moved],
    }
    by_patch = _patch(api_client, design, message="patched", **patch)
    assert by_patch.status_code == 201, by_patch.content
    whole = _document(api_client, other)
    whole["links"][3] = changed
    whole["nodes"][2] = moved
    del whole["links"][10]
    by_put = api_client.put(_url(other, "topology/"), {"base_revision": 1, **whole}, format="json")
    assert by_put.status_code == 201, by_put.content
    assert _document(api_client, design, 2) == _document(api_client, other, 2)
    assert by_patch.json()["summary"] == by_put.json()["summary"]


def test_a_link_removed_asks_first_then_saves_and_says_what_the_view_lost(api_client, design):
    document = _document(api_client, design)
    middle = len(document["links"]) // 2
    gone = document["links"][middle]
    asked = _patch(api_client, design, links_removed=[middle], check_stale=True)
    assert asked.status_code == 409, asked.content
    assert asked.json()["stale_parameters"]  # e.g. the leaf's oversubscription
    assert _count(design) == 1  # nothing stored before "Save anyway"

    saved = _patch(api_client, design, links_removed=[middle], canvas_changes=True)
    assert saved.status_code == 201, saved.content
    changes = saved.json()["canvas"]
    # the links after it are renumbered, which the patch says: only its two ends change
    assert changes["edges"] == [] and changes["removed"] == []
    assert sorted(n["data"]["id"] for n in changes["nodes"]) == sorted(
        [f"node:{gone['a']}", f"node:{gone['b']}"]
    )
    # the base's view so renumbered and changed is the saved revision's view
    before = api_client.get(_url(design, "revisions/1/canvas/"), {"view": "detail", "scope": "all"})
    after = api_client.get(_url(design, "revisions/2/canvas/"), {"view": "detail", "scope": "all"})
    shown = _by_id(before.json()["elements"], skip=middle)
    shown.update(_by_id(changes))
    assert shown == _by_id(after.json()["elements"])


def _by_id(elements, skip=None):
    out = {}
    for group in ("nodes", "edges"):
        for element in elements[group]:
            element_id = element["data"]["id"]
            if skip is not None and element_id.startswith("link:"):
                index = int(element_id[5:])
                if index == skip:
                    continue
                if index > skip:
                    element_id = f"link:{index - 1}"
                    element = {**element, "data": {**element["data"], "id": element_id}}
            out[element_id] = element
    return out


def test_a_bad_patch_is_400_naming_its_entry(api_client, design):
    document = _document(api_client, design)
    unknown = _patch(api_client, design, nodes_removed=["gpu09999"], links_removed=[99999])
    assert unknown.status_code == 400
    problems = unknown.json()["problems"]
    assert [(p["code"], p["field"]) for p in problems] == [
        ("unknown-node", "nodes_removed[0]"),
        ("unknown-link", "links_removed[0]"),
    ]
    assert problems[0]["element_ids"] == ["node:gpu09999"]
    # a part that does not exist, a link into a port in use: the made document's problems
    bad_part = {"index": 5, "link": {**document["links"][5], "b_part": "no-such-module"}}
    made = _patch(api_client, design, links_changed=[bad_part], links_added=[document["links"][0]])
    assert made.status_code == 400
    by_code = {p["code"]: p for p in made.json()["problems"]}
    assert by_code["unknown-part"]["field"] == "links_changed[0].link.b_part"
    assert by_code["unknown-part"]["element_ids"] == ["link:5"]
    assert by_code["unknown-part"]["message"].startswith("link:5: no part 'no-such-module'")
    assert set(by_code["port-in-use"]["element_ids"]) >= {"link:0", "link:added-0"}
    malformed = _patch(api_client, design, links_changed="link:3")
    assert malformed.status_code == 400 and "links_changed" in malformed.json()
    assert _count(design) == 1


def test_a_patch_on_a_stale_revision_is_409(api_client, design):
    document = _document(api_client, design)
    first = _patch(api_client, design, nodes_set=[{**document["nodes"][0], "x": 1.0}])
    assert first.status_code == 201
    stale = _patch(api_client, design, nodes_set=[{**document["nodes"][0], "x": 2.0}])
    assert stale.status_code == 409 and stale.json()["latest_revision"] == 2
    assert "no longer the latest" in stale.json()["detail"]
    assert _count(design) == 2


def test_a_reader_may_not_patch(api_client, seed_catalog, user, other_user):
    team = Team.objects.create(name="Fabric", slug="fabric")
    TeamMembership.objects.create(team=team, user=user, role="owner")
    TeamMembership.objects.create(team=team, user=other_user, role="viewer")
    spec = preset_get("h100-superpod-1su").spec
    body = {"spec": spec, "team": "fabric", "sharing": "team-edit"}
    design = api_client.post(f"{BASE}/designs/", body, format="json").json()
    viewer = APIClient()
    viewer.force_authenticate(other_user)
    assert viewer.get(_url(design, "revisions/1/topology/")).status_code == 200
    assert _patch(viewer, design, nodes_set=[]).status_code == 403
    assert _count(design) == 1


def test_the_schema_documents_the_patch(api_client):
    schema = api_client.get("/api/schema/?format=json").json()
    operation = schema["paths"]["/api/planner/designs/{design_pk}/topology/"]["patch"]
    assert set(operation["responses"]) >= {"201", "400", "409"}
    body = operation["requestBody"]["content"]["application/json"]["schema"]
    fields = schema["components"]["schemas"][body["$ref"].rsplit("/", 1)[-1]]["properties"]
    assert set(fields) >= {
        "base_revision",
        "check_stale",
        "canvas_changes",
        "nodes_removed",
        "nodes_set",
        "links_removed",
        "links_changed",
        "links_added",
    }
