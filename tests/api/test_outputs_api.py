"""Outputs API and pages: BOM with spares, streamed cabling plan and exports, cabling import
(201, 400 with rows, 409 stale, 403 readers), broken revisions, and the design page's links."""

from __future__ import annotations

import csv
import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from planner.designs.models import DesignRevision
from planner.designs.services import design_create
from planner.domain.outputs import (
    BOM_COLUMNS,
    CABLING_COLUMNS,
    NETBOX_DEVICE_COLUMNS,
    P2P_COLUMNS,
    csv_lines,
)
from planner.teams.models import Team, TeamMembership
from tests.services.test_outputs import SPEC

BASE = "/api/planner"


@pytest.fixture
def design(seed_catalog, user):
    return design_create(owner=user, spec_document=SPEC)


def _url(design, tail: str) -> str:
    return f"{BASE}/designs/{design.pk}/{tail}"


def _body(response) -> str:
    assert response.status_code == 200, response.content
    assert response.streaming
    return b"".join(response.streaming_content).decode()


def _csv(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def _upload_body(rows: list[dict]) -> bytes:
    lines = csv_lines(CABLING_COLUMNS, ([r[c] for c in CABLING_COLUMNS] for r in rows))
    return "".join(lines).encode()


def _post_plan(client, design, rows, base=1, **fields):
    upload = SimpleUploadedFile("plan.csv", _upload_body(rows), content_type="text/csv")
    return client.post(
        _url(design, "cabling/"),
        {"file": upload, "base_revision": base, **fields},
        format="multipart",
    )


def test_bom_json_with_spares(api_client, design):
    plain = api_client.get(_url(design, "revisions/1/bom/")).json()
    spared = api_client.get(_url(design, "revisions/1/bom/"), {"spares_fiber": "10"}).json()
    assert plain["revision"] == 1 and plain["spares_pct"] == {}
    assert spared["spares_pct"] == {"fiber": 10.0}
    assert spared["quantity_by_category"]["fiber"] > plain["quantity_by_category"]["fiber"]
    assert spared["quantity_by_category"]["server"] == plain["quantity_by_category"]["server"] == 31
    line = plain["lines"][0]
    assert set(line) >= {"part", "category", "tier", "quantity", "counted_per", "length_m"}


def test_bad_spares_are_a_400_naming_the_category(api_client, design):
    response = api_client.get(_url(design, "revisions/1/bom/"), {"spares_gizmo": "3"})
    assert response.status_code == 400
    assert "spares_gizmo" in response.json()  # the query parameter at fault
    response = api_client.get(_url(design, "revisions/1/exports/bom-csv/"), {"spares_cable": "-1"})
    assert response.status_code == 400


def test_cabling_csv_streams_one_row_per_link(api_client, design):
    response = api_client.get(_url(design, "revisions/1/cabling/"))
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    rows = _csv(_body(response))
    summary = design.revisions.get(number=1).summary
    assert len(rows) == sum(summary["links"].values())
    assert list(rows[0]) == list(CABLING_COLUMNS)


@pytest.mark.parametrize(
    ("fmt", "columns"),
    [
        ("bom-csv", BOM_COLUMNS),
        ("netbox-devices", (*NETBOX_DEVICE_COLUMNS, "tags")),  # the bundle's devices file
        ("p2p", P2P_COLUMNS),
    ],
)
def test_exports_by_format(api_client, design, fmt, columns):
    text = _body(api_client.get(_url(design, f"revisions/1/exports/{fmt}/")))
    assert next(csv.reader(io.StringIO(text))) == list(columns)


def test_json_export_and_unknown_format(api_client, design):
    response = api_client.get(_url(design, "revisions/1/exports/json/"))
    import json

    document = json.loads(_body(response))
    assert document["revision"] == 1 and document["bom"]["lines"]
    assert document["topology"]["node_name"][0]
    assert api_client.get(_url(design, "revisions/1/exports/pdf/")).status_code == 404


def test_cabling_import_creates_a_revision(api_client, design):
    rows = _csv(_body(api_client.get(_url(design, "revisions/1/cabling/"))))
    rows[3]["run_length_m"] = "15"
    response = _post_plan(api_client, design, rows)
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["revision"]["number"] == 2 and body["changed"] == [rows[3]["label"]]
    after = _csv(_body(api_client.get(_url(design, "revisions/2/cabling/"))))
    assert after[3]["run_length_m"] == "15"


def test_cabling_import_errors_name_rows_and_write_nothing(api_client, design):
    rows = _csv(_body(api_client.get(_url(design, "revisions/1/cabling/"))))
    rows[5]["speed_gbps"] = "fast"
    response = _post_plan(api_client, design, rows)
    assert response.status_code == 400
    problems = response.json()["problems"]
    assert [(p["row"], p["column"], p["code"]) for p in problems] == [
        (7, "speed_gbps", "bad-number")
    ]
    assert DesignRevision.objects.filter(design=design).count() == 1
    bad = api_client.post(
        _url(design, "cabling/"),
        {"file": SimpleUploadedFile("x.csv", b"\xff\xfe\x00bad"), "base_revision": 1},
        format="multipart",
    )
    assert bad.status_code == 400 and bad.json()["problems"][0]["code"] == "not-utf8"


def test_cabling_import_on_a_stale_base_is_409(api_client, design):
    rows = _csv(_body(api_client.get(_url(design, "revisions/1/cabling/"))))
    rows[3]["run_length_m"] = "15"
    assert _post_plan(api_client, design, rows).status_code == 201
    rows[3]["run_length_m"] = "16"
    response = _post_plan(api_client, design, rows, base=1)
    assert response.status_code == 409
    assert response.json()["latest_revision"] == 2


def test_a_stale_base_with_an_unchanged_file_is_409_not_no_changes(api_client, design):
    rows = _csv(_body(api_client.get(_url(design, "revisions/1/cabling/"))))
    edited = [dict(row) for row in rows]
    edited[3]["run_length_m"] = "15"
    assert _post_plan(api_client, design, edited).status_code == 201
    response = _post_plan(api_client, design, rows, base=1)  # revision 1's file, untouched
    assert response.status_code == 409, response.content
    assert response.json()["latest_revision"] == 2
    assert DesignRevision.objects.filter(design=design).count() == 2


def test_a_file_that_removes_every_cable_needs_allow_remove_all(api_client, design):
    cables = len(_csv(_body(api_client.get(_url(design, "revisions/1/cabling/")))))
    response = _post_plan(api_client, design, [])  # the header line only
    assert response.status_code == 400, response.content
    [problem] = response.json()["problems"]
    assert (problem["row"], problem["code"]) == (0, "removes-all")
    assert problem["message"] == (
        f"The file removes all {cables:,} cables; send allow_remove_all=true to do that on purpose."
    )
    assert _post_plan(api_client, design, [], allow_remove_all="false").status_code == 400
    assert DesignRevision.objects.filter(design=design).count() == 1
    # Said explicitly: applied like any other edit.
    response = _post_plan(api_client, design, [], allow_remove_all="true")
    assert response.status_code == 201, response.content
    assert len(response.json()["removed"]) == cables


def test_readers_download_but_cannot_import(api_client, design, user, other_user):
    team = Team.objects.create(name="Fabric", slug="fabric")
    TeamMembership.objects.create(team=team, user=user, role="owner")
    TeamMembership.objects.create(team=team, user=other_user, role="viewer")
    design.team, design.sharing = team, "team-read"
    design.save()
    viewer = APIClient()
    viewer.force_authenticate(other_user)
    rows = _csv(_body(viewer.get(_url(design, "revisions/1/cabling/"))))
    rows[3]["run_length_m"] = "15"
    assert _post_plan(viewer, design, rows).status_code == 403
    stranger_design = design_create(owner=other_user, spec_document=SPEC)
    assert api_client.get(_url(stranger_design, "revisions/1/bom/")).status_code == 404


def test_a_broken_revision_gives_a_clear_error_not_a_half_file(api_client, design):
    DesignRevision.objects.filter(design=design, number=1).update(topology=b"\x78\x9cbroken")
    for tail in ("revisions/1/cabling/", "revisions/1/exports/netbox-cables/", "revisions/1/bom/"):
        response = api_client.get(_url(design, tail))
        assert response.status_code == 422, tail
        assert not response.streaming
        body = response.json()
        assert body["code"] == "topology-unreadable" and "cannot be read" in body["detail"]


def test_pages_show_the_bom_and_the_cabling_section(logged_in_client, design):
    detail = logged_in_client.get(f"/designs/{design.pk}/")
    outputs_url = f"/designs/{design.pk}/revisions/1/outputs/"
    assert outputs_url in detail.content.decode()
    page = logged_in_client.get(outputs_url, {"spares_transceiver": "5"})
    assert page.status_code == 200
    html = page.content.decode()
    assert 'data-testid="bom"' in html and "MMA4Z00-NS" in html
    assert "spares_transceiver=5" in html  # the BOM CSV link keeps the spares
    assert 'data-testid="cabling-upload"' in html
    download = logged_in_client.get(f"/designs/{design.pk}/revisions/1/outputs/cabling-csv/")
    assert len(_csv(_body(download))) > 0


def test_page_upload_shows_row_errors(logged_in_client, design):
    download = logged_in_client.get(f"/designs/{design.pk}/revisions/1/outputs/cabling-csv/")
    rows = _csv(_body(download))
    rows[2]["a_port"] = "0"
    upload = SimpleUploadedFile("plan.csv", _upload_body(rows), content_type="text/csv")
    response = logged_in_client.post(
        f"/designs/{design.pk}/cabling/import/", {"file": upload, "base_revision": 1}
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert 'data-testid="import-problems"' in html and "row 4, a_port" in html
    rows[2]["a_port"] = _csv(_body(logged_in_client.get(download.wsgi_request.path)))[2]["a_port"]
    rows[2]["run_length_m"] = "9"
    upload = SimpleUploadedFile("plan.csv", _upload_body(rows), content_type="text/csv")
    response = logged_in_client.post(
        f"/designs/{design.pk}/cabling/import/", {"file": upload, "base_revision": 1}
    )
    assert response.status_code == 302
    assert response["Location"].endswith(f"/designs/{design.pk}/revisions/2/outputs/")


def test_page_upload_that_removes_every_cable_asks_for_the_checkbox(logged_in_client, design):
    page = logged_in_client.get(f"/designs/{design.pk}/revisions/1/outputs/")
    assert 'name="allow_remove_all"' in page.content.decode()
    upload = SimpleUploadedFile("plan.csv", _upload_body([]), content_type="text/csv")
    response = logged_in_client.post(
        f"/designs/{design.pk}/cabling/import/", {"file": upload, "base_revision": 1}
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert "The file removes all " in html and "tick “Allow removing every cable”" in html
    assert "allow_remove_all=true" not in html
    assert DesignRevision.objects.filter(design=design).count() == 1


def test_page_download_of_a_broken_revision(logged_in_client, design):
    DesignRevision.objects.filter(design=design, number=1).update(topology=b"junk")
    response = logged_in_client.get(f"/designs/{design.pk}/revisions/1/outputs/p2p/")
    assert response.status_code == 422 and not response.streaming
    assert "cannot be read" in response.content.decode()
    page = logged_in_client.get(f"/designs/{design.pk}/revisions/1/outputs/")
    assert page.status_code == 422


def test_a_spares_parameter_given_twice_is_a_400_naming_it(api_client, design):
    response = api_client.get(
        _url(design, "revisions/1/bom/") + "?spares_server=5&spares_server=abc"
    )
    assert response.status_code == 400
    assert "spares_server" in response.json()
    assert (
        api_client.get(_url(design, "revisions/1/bom/"), {"spares_server": "5"}).status_code == 200
    )
