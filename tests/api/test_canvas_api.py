"""Canvas API: views, edit documents, topology edits, drawn designs, link options, overlays,
and who may see or change what."""

from __future__ import annotations

from unittest import mock

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone
from rest_framework.test import APIClient

from planner.designs.models import Design, DesignRevision
from planner.domain.presets import preset_get
from planner.teams.models import Team, TeamMembership
from simulation.models import Job

BASE = "/api/planner"
NDR = {"a_part": "980-9I51A-00NS00", "b_part": "MMA4Z00-NS", "cable": "MFP7E10-Nxxx"}
DRAWN = {
    "nodes": [
        {"name": "s1", "model": "DGX-H100", "role": "server", "x": 0, "y": 400},
        {"name": "s2", "model": "DGX-H100", "role": "server", "x": 120, "y": 400},
        {"name": "l1", "model": "QM9700", "role": "leaf", "x": 0, "y": 0},
        {"name": "l2", "model": "QM9700", "role": "leaf", "x": 120, "y": 0},
    ],
    "links": [
        {"a": "s1", "a_port": 1, "b": "l1", "b_port": 1, "length_m": 5, **NDR},
        {"a": "s1", "a_port": 2, "b": "l2", "b_port": 1, "length_m": 5, **NDR},
        {"a": "s2", "a_port": 1, "b": "l1", "b_port": 2, "length_m": 5, **NDR},
        {"a": "s2", "a_port": 2, "b": "l2", "b_port": 2, "length_m": 5, **NDR},
    ],
}


def _client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def _create(client, spec=None, **extra) -> dict:
    spec = spec or preset_get("h100-superpod-4su").spec
    response = client.post(f"{BASE}/designs/", {"spec": spec, **extra}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


@pytest.fixture
def design(api_client, seed_catalog):
    return _create(api_client)


def _url(design, tail):
    return f"{BASE}/designs/{design['id']}/{tail}"


# --- views ---------------------------------------------------------------------------------------


def test_canvas_overview_and_details(api_client, design):
    response = api_client.get(_url(design, "revisions/1/canvas/"))
    assert response.status_code == 200
    body = response.json()
    assert (body["design"], body["revision"], body["view"]) == (design["id"], 1, "overview")
    ids = {n["data"]["id"] for n in body["elements"]["nodes"]}
    assert {"agg:all:server:su1", "agg:1:leaf:su4", "agg:1:spine:all"} <= ids
    assert {s["id"] for s in body["scopes"]} >= {"su:1", "su:4", "pod:1", "core", "all"}

    detail = api_client.get(
        _url(design, "revisions/1/canvas/"), {"view": "detail", "scope": "su:2"}
    )
    assert detail.status_code == 200
    data = detail.json()
    assert data["scope"] == "su:2" and data["counts"]["elements"] <= 5000
    devices = [n["data"] for n in data["elements"]["nodes"] if n["data"]["kind"] == "device"]
    assert sum(d["role"] == "server" for d in devices) == 32
    whole = api_client.get(_url(design, "revisions/1/canvas/"), {"view": "detail", "scope": "all"})
    assert whole.status_code == 200
    assert (
        len(whole.json()["elements"]["edges"])
        == design["summary"]["links"]["server-leaf"] + (design["summary"]["links"]["leaf-spine"])
    )


@pytest.mark.parametrize(
    ("params", "key"),
    [
        ({"view": "detail"}, "scope"),
        ({"view": "detail", "scope": "su:9"}, "scope"),
        ({"view": "detail", "scope": "nope"}, "scope"),
        ({"view": "sideways"}, "view"),
    ],
)
def test_canvas_bad_parameters_are_400(api_client, design, params, key):
    response = api_client.get(_url(design, "revisions/1/canvas/"), params)
    assert response.status_code == 400
    assert key in response.json()


def test_topology_document_and_size_limit(api_client, design, seed_catalog):
    response = api_client.get(_url(design, "revisions/1/topology/"))
    assert response.status_code == 200
    document = response.json()
    assert document["revision"] == 1
    assert len(document["nodes"]) == 127 + 32 + 16 + 1
    first = document["links"][0]
    assert (first["a"], first["a_port"], first["b"], first["b_port"]) == (
        "gpu00001",
        1,
        "leaf-su001-r1",
        1,
    )
    # The server end takes an NVIDIA flat-top twin-port 2xSR4 (the cheaper of the two the
    # catalog proves for this cage); the switch end and the fibre are NVIDIA's BOM parts.
    assert first["a_part"] in {NDR["a_part"], "MMA4Z00-NS-FLT"}
    assert (first["b_part"], first["cable"]) == (NDR["b_part"], NDR["cable"])
    assert {"x", "y", "rack"} <= set(document["nodes"][0])
    assert api_client.get(_url(design, "revisions/7/topology/")).status_code == 404

    big = _create(api_client, spec=preset_get("h100-superpod-16su").spec)
    response = api_client.get(_url(big, "revisions/1/topology/"))
    assert response.status_code == 400
    assert "5,000" in response.json()["detail"] and response.json()["limit"] == 5000


# --- edits ---------------------------------------------------------------------------------------


def _document(client, design, number=1) -> dict:
    response = client.get(_url(design, f"revisions/{number}/topology/"))
    assert response.status_code == 200
    body = response.json()
    return {"nodes": body["nodes"], "links": body["links"]}


def test_put_topology_makes_an_edited_revision(api_client, design):
    document = _document(api_client, design)
    removed = document["links"].pop(0)
    assert removed["a"] == "gpu00001"
    document["nodes"][0]["x"] = -500.0
    response = api_client.put(
        _url(design, "topology/"),
        {"base_revision": 1, "message": "unplug one", **document},
        format="json",
    )
    assert response.status_code == 201, response.content
    revision = response.json()
    assert (revision["number"], revision["kind"], revision["parent"]) == (2, "edited", 1)
    assert revision["message"] == "unplug one"
    assert revision["spec"] == api_client.get(_url(design, "revisions/1/")).json()["spec"]
    assert (
        revision["summary"]["links"]["server-leaf"] == design["summary"]["links"]["server-leaf"] - 1
    )
    assert revision["summary"]["topology"] == "custom"
    again = _document(api_client, design, 2)
    assert again["nodes"][0]["x"] == -500.0
    assert len(again["links"]) == len(document["links"])
    canvas = api_client.get(_url(design, "revisions/2/canvas/")).json()
    assert {"su:1", "pod:1"} <= {s["id"] for s in canvas["scopes"]}


def test_put_incompatible_link_is_400_with_element_ids(api_client, design):
    document = _document(api_client, design)
    document["links"][0]["a_part"] = "MMA4Z00-NS"  # finned module in the DGX's flat-top cage
    document["links"][5]["b_port"] = 99
    response = api_client.put(
        _url(design, "topology/"), {"base_revision": 1, **document}, format="json"
    )
    assert response.status_code == 400
    problems = {p["code"]: p for p in response.json()["problems"]}
    assert problems["module-mismatch"]["element_ids"] == ["link:0", "node:gpu00001"]
    assert "flat-top (RHS) cage" in problems["module-mismatch"]["message"]
    assert problems["module-mismatch"]["severity"] == "error"
    assert "link:5" in problems["port-out-of-range"]["element_ids"]
    assert DesignRevision.objects.filter(design_id=design["id"]).count() == 1


def test_put_on_a_stale_revision_is_409(api_client, design):
    document = _document(api_client, design)
    first = api_client.put(
        _url(design, "topology/"), {"base_revision": 1, **document}, format="json"
    )
    assert first.status_code == 201
    stale = api_client.put(
        _url(design, "topology/"), {"base_revision": 1, **document}, format="json"
    )
    assert stale.status_code == 409
    body = stale.json()
    assert body["latest_revision"] == 2 and "no longer the latest" in body["detail"]
    assert "summary" in body["changes"]
    missing = api_client.put(_url(design, "topology/"), {"nodes": []}, format="json")
    assert missing.status_code == 400 and "base_revision" in missing.json()


def test_draw_a_design_from_scratch(api_client, seed_catalog):
    response = api_client.post(
        f"{BASE}/designs/",
        {"name": "Lab", "description": "two boxes", "topology_document": DRAWN},
        format="json",
    )
    assert response.status_code == 201, response.content
    design = response.json()
    assert (design["name"], design["latest_revision"]) == ("Lab", 1)
    assert design["summary"]["gpus"] == 16 and design["summary"]["topology"] == "custom"
    revision = api_client.get(_url(design, "revisions/1/")).json()
    assert (revision["kind"], revision["spec"]) == ("edited", {})
    document = _document(api_client, design)
    assert [n["name"] for n in document["nodes"]] == ["s1", "s2", "l1", "l2"]
    assert document["nodes"][1]["x"] == 120.0
    # A drawn design is edited, restored and viewed like any other.
    document["links"].pop()
    edit = api_client.put(
        _url(design, "topology/"), {"base_revision": 1, **document}, format="json"
    )
    assert edit.status_code == 201 and edit.json()["spec"] == {}
    restored = api_client.post(_url(design, "revisions/1/restore/"))
    assert restored.status_code == 201 and restored.json()["summary"]["links"]["server-leaf"] == 4
    assert api_client.get(_url(design, "revisions/3/canvas/")).status_code == 200


def test_only_generated_revisions_need_a_spec():
    for kind, errors in (("generated", {"spec"}), ("edited", set()), ("restored", set())):
        revision = DesignRevision(number=2, spec={}, topology=b"x", kind=kind, parent=1)
        try:
            revision.clean()
        except ValidationError as exc:
            assert set(exc.message_dict) == errors
        else:
            assert errors == set()


@pytest.mark.parametrize(
    ("body", "key"),
    [
        ({"topology_document": DRAWN}, "name"),
        ({"name": "x", "spec": {"name": "x"}, "topology_document": DRAWN}, "spec"),
        ({"name": "x"}, "spec"),
    ],
)
def test_draw_needs_a_name_and_one_source(api_client, seed_catalog, body, key):
    response = api_client.post(f"{BASE}/designs/", body, format="json")
    assert response.status_code == 400 and key in response.json()
    assert not Design.objects.exists()


def test_drawn_design_with_problems_is_400(api_client, seed_catalog):
    document = {**DRAWN, "links": [{**DRAWN["links"][0], "b": "s2"}]}
    response = api_client.post(
        f"{BASE}/designs/", {"name": "Bad", "topology_document": document}, format="json"
    )
    assert response.status_code == 400
    problem = response.json()["problems"][0]
    assert problem["code"] == "tier-order"
    assert problem["element_ids"] == ["link:0", "node:s1", "node:s2"]
    assert not Design.objects.exists()


# --- link options --------------------------------------------------------------------------------


def test_link_options(api_client, seed_catalog):
    response = api_client.get(f"{BASE}/link-options/", {"a": "DGX-H100", "b": "QM9700"})
    assert response.status_code == 200
    body = response.json()
    assert body["speed_gbps"] == 400 and body["refusal"] == []
    choice = next(o for o in body["options"] if o["a_part"] == "980-9I51A-00NS00")
    assert (choice["b_part"], choice["kind"]) == ("MMA4Z00-NS", "MMF")
    assert {"price", "power_w", "reach_m", "cable"} <= set(choice)
    options = api_client.get(f"{BASE}/link-options/", {"a": "QM9700", "b": "QM9700"}).json()[
        "options"
    ]
    assert {o["kind"] for o in options} >= {"DAC", "MMF", "SMF"}
    refused = api_client.get(
        f"{BASE}/link-options/", {"a": "DGX-H100", "b": "Q3400-RA", "speed_gbps": 400}
    ).json()
    assert refused["options"] == [] and refused["refusal"]
    far = api_client.get(
        f"{BASE}/link-options/", {"a": "DGX-H100", "b": "QM9700", "length_m": "500"}
    ).json()
    assert far["refusal"][0]["code"] == "out-of-reach"
    bad = api_client.get(f"{BASE}/link-options/", {"a": "DGX-H100", "speed_gbps": "fast"})
    assert bad.status_code == 400 and {"b", "speed_gbps"} <= set(bad.json())


# --- overlays ------------------------------------------------------------------------------------


def _job(owner, design_id, revision, result, status="succeeded", kind="diagnostics"):
    return Job.objects.create(
        owner=owner,
        kind=kind,
        parameters={"design": design_id, "revision": revision},
        input_hash="x" * 64,
        status=status,
        result=result,
        finished=timezone.now(),
    )


def test_overlays_from_jobs(api_client, design, user, other_user):
    url = _url(design, "revisions/1/overlays/")
    empty = api_client.get(url).json()
    assert (empty["problems"], empty["racks"], empty["links"], empty["jobs"]) == ([], [], {}, [])
    problem = {
        "code": "rack-over-power",
        "message": "R001-01 draws 52 kW; the limit is 40 kW.",
        "element_ids": ["node:gpu00001"],
        "severity": "error",
    }
    job = _job(
        user,
        design["id"],
        1,
        {
            "problems": [problem],
            "racks": [{"rack": "R001-01", "power_w": 52000.0, "limit_w": 40000.0}],
            "link_utilization": {"link:0": 0.75, "link:1": 0.2},
        },
    )
    _job(user, design["id"], 2, {"problems": [{**problem, "code": "other-revision"}]})
    _job(user, design["id"], 1, {"problems": [{**problem, "code": "failed"}]}, status="failed")
    _job(other_user, design["id"], 1, {"problems": [{**problem, "code": "not-a-reader"}]})
    body = api_client.get(url).json()
    assert body["problems"] == [problem]
    assert body["racks"] == [{"rack": "R001-01", "power_w": 52000.0, "limit_w": 40000.0}]
    assert body["links"] == {"link:0": 0.75, "link:1": 0.2}
    assert [j["id"] for j in body["jobs"]] == [str(job.pk)]


# --- permissions ---------------------------------------------------------------------------------


def test_other_users_get_404(api_client, design, other_user):
    other = _client_for(other_user)
    for tail in ("canvas/", "topology/", "overlays/"):
        assert other.get(_url(design, f"revisions/1/{tail}")).status_code == 404
    document = _document(api_client, design)
    response = other.put(_url(design, "topology/"), {"base_revision": 1, **document}, format="json")
    assert response.status_code == 404


def test_read_only_member_reads_but_cannot_edit(api_client, seed_catalog, user, other_user):
    team = Team.objects.create(name="Fabric", slug="fabric")
    TeamMembership.objects.create(team=team, user=user, role="owner")
    TeamMembership.objects.create(team=team, user=other_user, role="viewer")
    design = _create(api_client, team="fabric", sharing="team-edit")
    viewer = _client_for(other_user)
    assert viewer.get(_url(design, "revisions/1/canvas/")).status_code == 200
    assert viewer.get(_url(design, "revisions/1/overlays/")).status_code == 200
    document = _document(viewer, design)
    response = viewer.put(
        _url(design, "topology/"), {"base_revision": 1, **document}, format="json"
    )
    assert response.status_code == 403


def test_anonymous_is_refused(client, design):
    assert client.get(_url(design, "revisions/1/canvas/")).status_code in {401, 403}
    assert client.get(f"{BASE}/link-options/?a=DGX-H100&b=QM9700").status_code in {401, 403}


def test_overlays_show_the_link_utilization_of_a_simulate_job(api_client, seed_catalog, user):
    from planner.designs.services import design_create
    from planner.domain.presets import EXAMPLES_DIR
    from planner.domain.spec import load_spec_text
    from simulation import tasks
    from simulation.services import job_enqueue, job_execute

    spec = load_spec_text((EXAMPLES_DIR / "h100-superpod-1su.yaml").read_text(), name="1su")
    created = design_create(owner=user, spec_document=spec)
    with mock.patch.object(tasks.run_job, "apply_async"):
        job = job_enqueue(
            owner=user,
            kind="simulate",
            design_revision=created.revisions.get(),
            parameters={"traffic": "permutation", "routing": "ecmp", "seed": 2},
        )
    job_execute(job_id=job.pk, worker="w1")
    job.refresh_from_db()
    assert job.status == "succeeded", job.error
    body = api_client.get(_url({"id": created.pk}, "revisions/1/overlays/")).json()
    assert body["links"] == job.result["link_utilization"] and body["links"]
    assert [j["kind"] for j in body["jobs"]] == ["simulate"]
