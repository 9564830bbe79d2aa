"""Issue 33 through the API and the design page: one length changed on the canvas of a
rack-scale (GB300 NVL72) or multi-plane (B300 twin-plane) design saves without a warning and
keeps the revision's transport settings; the page says a revision was "saved before transport
settings were kept" only of a revision that really was."""

from __future__ import annotations

import json
import zlib

import pytest
from django.core.cache import cache

from planner.designs.adapters import fabric_part_names, fabric_unpack
from planner.designs.models import DesignRevision
from planner.designs.selectors import revision_fabric_settings
from planner.designs.services import design_create, design_create_drawn
from planner.designs.transport import revision_transport
from planner.domain.presets import preset_get
from simulation.jobs.kinds import design_transport_defaults
from tests.factories import TINY_SPEC

BASE = "/api/planner"
OLD_TEXT = "was saved before transport settings were kept"
NO_OWN_TEXT = "has no transport settings of its own"


def _document(client, design_id: int, number: int = 1) -> dict:
    response = client.get(f"{BASE}/designs/{design_id}/revisions/{number}/topology/")
    assert response.status_code == 200, response.content
    body = response.json()
    return {"nodes": body["nodes"], "links": body["links"]}


def _revision(design_id: int, number: int) -> DesignRevision:
    return DesignRevision.objects.get(design_id=design_id, number=number)


@pytest.mark.parametrize(
    ("slug", "routing"), [("gb300-nvl72-xdr", "ib-ar"), ("b300-spectrum-x-twin-plane", "spraying")]
)
def test_one_length_saves_without_warning_and_keeps_the_transport(
    api_client, seed_catalog, slug, routing
):
    created = api_client.post(f"{BASE}/designs/", {"spec": preset_get(slug).spec}, format="json")
    assert created.status_code == 201, created.content
    url = f"{BASE}/designs/{created.json()['id']}"
    document = _document(api_client, created.json()["id"])
    document["links"][0]["length_m"] = 25.0

    preview = api_client.post(
        f"{url}/topology/preview/", {"base_revision": 1, **document}, format="json"
    )
    assert preview.status_code == 200, preview.content
    assert preview.json()["stale_parameters"] == [] and preview.json()["problems"] == []

    saved = api_client.put(f"{url}/topology/", {"base_revision": 1, **document}, format="json")
    assert saved.status_code == 201, saved.content
    assert "stale_parameters" not in saved.json()["summary"]
    assert saved.json()["summary"]["topology"] == "rail-optimized"

    first, second = (_revision(created.json()["id"], n) for n in (1, 2))
    assert design_transport_defaults(second).routing == routing
    assert design_transport_defaults(second) == design_transport_defaults(first)
    kept = revision_transport(second)
    assert kept.settings_origin == "design"
    assert kept.settings == revision_transport(first).settings


def _legacy_topology(topology: bytes) -> bytes:
    """``topology`` as a revision stored before the settings were kept apart (format 1): its
    settings as info keys, and no transport."""
    data = json.loads(zlib.decompress(topology))
    settings = data.pop("settings")
    settings.pop("transport")
    data["info"].update({key: value for key, value in settings.items() if value is not None})
    data["format"] = 1
    return zlib.compress(json.dumps(data).encode())


def test_only_a_genuinely_old_revision_is_said_to_predate_transport_settings(
    api_client, logged_in_client, user, seed_catalog
):
    design = design_create(owner=user, spec_document=TINY_SPEC)
    page = logged_in_client.get(f"/designs/{design.pk}/").content.decode()
    assert "This design runs" in page and OLD_TEXT not in page and NO_OWN_TEXT not in page

    old = _revision(design.pk, 1)
    DesignRevision.objects.filter(pk=old.pk).update(topology=_legacy_topology(old.topology))
    cache.clear()  # revisions never change: what the page read of this one is cached
    stored = _revision(design.pk, 1)
    deferred = DesignRevision.objects.defer("topology").get(pk=old.pk)
    head = revision_fabric_settings(deferred)  # read from the head of the stored bytes
    assert head.legacy and head.transport is None
    assert (
        head.layout
        == fabric_unpack(stored.topology).settings.layout
        == (fabric_unpack(old.topology).settings.layout)
    )
    assert fabric_part_names(stored.topology) == fabric_part_names(old.topology)
    assert revision_transport(_revision(design.pk, 1)).settings_origin == "defaults"
    page = logged_in_client.get(f"/designs/{design.pk}/").content.decode()
    assert OLD_TEXT in page

    # An edit of the old revision gets the transport its spec gives: no longer "old".
    document = _document(api_client, design.pk)
    document["links"][0]["length_m"] = 12.5
    saved = api_client.put(
        f"{BASE}/designs/{design.pk}/topology/", {"base_revision": 1, **document}, format="json"
    )
    assert saved.status_code == 201, saved.content
    edited = revision_transport(_revision(design.pk, 2))
    assert edited.settings_origin == "design"
    assert edited.settings["transport"] == "infiniband"
    page = logged_in_client.get(f"/designs/{design.pk}/").content.decode()
    assert OLD_TEXT not in page and NO_OWN_TEXT not in page


def test_a_drawn_design_is_not_said_to_be_old(logged_in_client, user, seed_catalog):
    document = {
        "nodes": [
            {"name": "gpu-1", "model": "DGX-H100", "role": "server", "x": 0.0, "y": 400.0},
            {"name": "leaf-1", "model": "QM9700", "role": "leaf", "x": 0.0, "y": 0.0},
        ],
        "links": [
            {
                "a": "gpu-1",
                "a_port": 1,
                "b": "leaf-1",
                "b_port": 1,
                "a_part": "980-9I51A-00NS00",
                "b_part": "MMA4Z00-NS",
                "cable": "MFP7E10-Nxxx",
            }
        ],
    }
    design = design_create_drawn(owner=user, name="Drawn", document=document)
    assert revision_transport(_revision(design.pk, 1)).settings_origin == "profile"
    page = logged_in_client.get(f"/designs/{design.pk}/").content.decode()
    assert "This design runs" in page and NO_OWN_TEXT in page and OLD_TEXT not in page
