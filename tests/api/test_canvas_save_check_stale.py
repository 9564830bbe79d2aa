"""Issue 37 item 8: the canvas saves an edit in one request. ``check_stale`` on the topology
PUT stores an edit whose spec parameters all still hold; one that makes some untrue is not
stored (409 with them, as the preview lists them) until it is sent again without the check."""

from __future__ import annotations

import pytest

from planner.designs.models import DesignRevision
from planner.domain.presets import preset_get

BASE = "/api/planner"
NDR = {"a_part": "980-9I51A-00NS00", "b_part": "MMA4Z00-NS", "cable": "MFP7E10-Nxxx"}


@pytest.fixture
def design(api_client, seed_catalog):
    spec = preset_get("h100-superpod-4su").spec
    response = api_client.post(f"{BASE}/designs/", {"spec": spec}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def _put(client, design, document, **extra):
    return client.put(
        f"{BASE}/designs/{design['id']}/topology/",
        {"base_revision": 1, **document, **extra},
        format="json",
    )


def _document(client, design) -> dict:
    body = client.get(f"{BASE}/designs/{design['id']}/revisions/1/topology/").json()
    return {"nodes": body["nodes"], "links": body["links"]}


def _revisions(design) -> int:
    return DesignRevision.objects.filter(design_id=design["id"]).count()


def test_an_edit_that_breaks_the_spec_waits_for_save_anyway(api_client, design):
    document = _document(api_client, design)
    # one more DGX and leaf, linked once: the spec's server count, rails ... no longer hold
    document["nodes"] += [
        {"name": "gpu00128", "model": "DGX-H100", "role": "server", "x": 9000.0, "y": 1000.0},
        {"name": "leaf-lab", "model": "QM9700", "role": "leaf", "x": 9000.0, "y": 600.0},
    ]
    document["links"].append({"a": "gpu00128", "a_port": 1, "b": "leaf-lab", "b_port": 1, **NDR})
    preview = api_client.post(
        f"{BASE}/designs/{design['id']}/topology/preview/",
        {"base_revision": 1, **document},
        format="json",
    )
    expected = preview.json()["stale_parameters"]
    assert "servers" in {p["field"] for p in expected}

    refused = _put(api_client, design, document, check_stale=True)
    assert refused.status_code == 409, refused.content
    assert refused.json()["stale_parameters"] == expected
    assert "would no longer hold" in refused.json()["detail"]
    assert "latest_revision" not in refused.json()  # not a conflict with another save
    assert _revisions(design) == 1  # nothing stored

    saved = _put(api_client, design, document, message="anyway")  # "Save anyway"
    assert saved.status_code == 201, saved.content
    assert saved.json()["number"] == 2
    assert [p["field"] for p in saved.json()["summary"]["stale_parameters"]] == [
        p["field"] for p in expected
    ]


def test_an_edit_that_keeps_the_spec_is_stored_by_the_checked_put(api_client, design):
    document = _document(api_client, design)
    document["nodes"][0]["x"] = float(document["nodes"][0]["x"]) + 25.0  # a node moved
    saved = _put(api_client, design, document, check_stale=True)
    assert saved.status_code == 201, saved.content
    assert not saved.json()["summary"].get("stale_parameters")
    assert _revisions(design) == 2
    stored = api_client.get(f"{BASE}/designs/{design['id']}/revisions/2/topology/").json()
    assert stored["nodes"][0]["x"] == document["nodes"][0]["x"]


def test_check_stale_is_a_boolean(api_client, design):
    document = _document(api_client, design)
    answer = _put(api_client, design, document, check_stale="maybe")
    assert answer.status_code == 400
    assert "check_stale" in answer.json()
