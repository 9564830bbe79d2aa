"""Outputs API (issue 19 item 4): the cabling plan of a design cabled through patch panels
lists each link's segments, and the downloaded plan re-imports as no change."""

from __future__ import annotations

import csv
import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from planner.designs.models import DesignRevision
from planner.designs.services import design_create
from planner.domain.outputs import CABLING_COLUMNS, csv_lines
from planner.domain.outputs.cabling_segments import SEGMENT_COLUMNS, SEGMENTS
from tests.services.test_outputs import SPEC

BASE = "/api/planner"
COLUMNS = (*CABLING_COLUMNS, *SEGMENT_COLUMNS)
STRUCTURED = {
    **SPEC,
    "cabling": {
        "server-leaf": {"type": "patch-panel", "panels": "in-rack"},
        "leaf-spine": {"type": "patch-panel", "panels": "end-of-row"},
    },
}


@pytest.fixture
def design(seed_catalog, user):
    return design_create(owner=user, spec_document=STRUCTURED)


def _url(design, tail: str) -> str:
    return f"{BASE}/designs/{design.pk}/{tail}"


def _download(client, design, revision=1) -> str:
    response = client.get(_url(design, f"revisions/{revision}/cabling/"))
    assert response.status_code == 200, response.content
    assert response.streaming and response["Content-Type"].startswith("text/csv")
    return b"".join(response.streaming_content).decode()


def _post(client, design, rows, base=1):
    body = "".join(csv_lines(COLUMNS, ([r[c] for c in COLUMNS] for r in rows)))
    upload = SimpleUploadedFile("plan.csv", body.encode(), content_type="text/csv")
    return client.post(
        _url(design, "cabling/"), {"file": upload, "base_revision": base}, format="multipart"
    )


def test_the_structured_plan_lists_segments_and_reimports_unchanged(api_client, design):
    text = _download(api_client, design)
    assert next(csv.reader(io.StringIO(text))) == list(COLUMNS)
    rows = list(csv.DictReader(io.StringIO(text)))
    links = [r for r in rows if not r["segment"]]
    segments = [r for r in rows if r["segment"]]
    summary = design.revisions.get(number=1).summary
    assert len(links) == sum(summary["links"].values())
    assert segments and len(segments) % 3 == 0
    for index, row in enumerate(rows):
        if row["segment"] == "cord-a":  # follows its link's row, then trunk and cord B
            assert rows[index - 1]["label"] == row["segment_of"]
            assert tuple(r["segment"] for r in rows[index : index + 3]) == SEGMENTS
            assert rows[index + 1]["cable_part"].startswith("TRUNK-MPO12-APC-")
            assert rows[index + 1]["a_role"] == rows[index + 1]["b_role"] == "patch-panel"
    # the file as downloaded changes nothing: 400 no-changes, no revision written
    response = _post(api_client, design, rows)
    assert response.status_code == 400, response.content
    assert [p["code"] for p in response.json()["problems"]] == ["no-changes"]
    # an edited segment cell is refused naming its row and column
    edited = [dict(r) for r in rows]
    where = rows.index(segments[1])  # the first link's trunk
    edited[where]["b_port"] = "23"
    response = _post(api_client, design, edited)
    assert response.status_code == 400
    [problem] = response.json()["problems"]
    assert (problem["row"], problem["column"], problem["code"]) == (
        where + 2,
        "b_port",
        "segment-changed",
    )
    assert DesignRevision.objects.filter(design=design).count() == 1
    # a link row edit goes through; the next revision's plan still lists the segments
    edited = [dict(r) for r in rows]
    edited[0]["run_length_m"] = "15"
    response = _post(api_client, design, edited)
    assert response.status_code == 201, response.content
    assert response.json()["changed"] == [rows[0]["label"]]
    after = list(csv.DictReader(io.StringIO(_download(api_client, design, revision=2))))
    assert after[0]["run_length_m"] == "15"
    assert sum(1 for r in after if r["segment"]) == len(segments)
