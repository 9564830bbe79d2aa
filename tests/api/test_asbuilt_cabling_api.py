"""As-built cabling check over the API (issue 23 items 4 and 6): a multipart upload of a
mis-cabled LLDP table is 201 with the findings, stored, audited, listed, read back, downloaded
as the installer's CSV and drawn by the canvas overlay; bad files (unknown port, malformed,
another design's) are 400 naming the row and field with nothing stored; viewers get 403."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from planner.asbuilt.models import FieldImport
from planner.audit.models import AuditActionChoices, AuditEvent
from planner.designs.adapters import fabric_unpack
from planner.designs.services import design_create
from planner.domain.outputs.cabling_ends import FabricEnds
from tests.factories import TINY_SPEC

pytestmark = pytest.mark.api


@pytest.fixture
def design(seed_catalog, user):
    return design_create(owner=user, spec_document=TINY_SPEC)


def _url(design, tail=""):
    return f"/api/planner/designs/{design.pk}/revisions/1/as-built/{tail}"


def _table(design, *, swap=False, drop=False) -> str:
    """The design's LLDP table (leaf/spine as local), optionally with the first two leaf
    ports' servers crossed and the last link dropped."""
    fabric = fabric_unpack(design.revisions.get().topology)
    ends = FabricEnds(fabric)
    rows = []
    for i in range(fabric.link_count):
        a, b = int(fabric.link_a[i]), int(fabric.link_b[i])
        rows.append(
            [
                fabric.node_name[b],
                ends.port_name(b, int(fabric.link_b_port[i])),
                fabric.node_name[a],
                ends.port_name(a, int(fabric.link_a_port[i])),
            ]
        )
    if swap:
        rows[0][2:], rows[1][2:] = rows[1][2:], rows[0][2:]
    if drop:
        rows.pop()
    return "local_device,local_port,remote_device,remote_port\n" + "".join(
        ",".join(r) + "\n" for r in rows
    )


def test_upload_reports_stores_lists_and_draws(api_client, design):
    upload = SimpleUploadedFile("lldp.csv", _table(design, swap=True, drop=True).encode())
    answer = api_client.post(
        _url(design, "cabling/"), {"format": "lldp-csv", "file": upload}, format="multipart"
    )
    assert answer.status_code == 201, answer.content
    body = answer.json()
    assert body["summary"]["counts"]["swapped-ports"] == 2
    assert body["summary"]["counts"]["missing"] == 1
    finding = body["findings"][0]
    assert finding["kind"] == "missing" and finding["a"]["rack"] and finding["b"]["ru"]
    event = AuditEvent.objects.get(action=AuditActionChoices.IMPORT_APPLIED, design_ref=design.pk)
    assert event.object_type == "asbuilt-cabling" and event.object_ref == str(body["id"])
    listed = api_client.get(_url(design, "cabling/")).json()
    assert [item["id"] for item in listed] == [body["id"]] and "findings" not in listed[0]
    detail = api_client.get(_url(design, f"cabling/{body['id']}/")).json()
    assert detail["findings"] == body["findings"]
    csv = b"".join(api_client.get(_url(design, f"cabling/{body['id']}/csv/")).streaming_content)
    assert csv.decode().splitlines()[0].startswith("kind,label,a_device,a_port,a_rack,a_ru")
    overlay = api_client.get(_url(design, "overlay/")).json()
    assert overlay["import"]["id"] == body["id"]
    assert sorted(set(overlay["links"].values())) == ["missing", "swapped-ports"]


@pytest.mark.parametrize(
    ("fmt", "text", "expect"),
    [
        (
            "lldp-csv",
            "local_device,local_port,remote_device,remote_port\n"
            "leaf-su001-r1,swp999,gpu00001,1/1\n",
            (2, "local_port", "unknown-port"),
        ),
        ("ibnetdiscover", "Switch 65 oops\n", (1, "line", "malformed")),
        (
            "lldp-csv",
            "local_device,local_port,remote_device,remote_port\n"
            "p1-leaf-su009-r1,1/1,node-x,1\np1-leaf-su009-r2,1/1,node-y,1\n",
            (0, "file", "another-design"),
        ),
    ],
)
def test_bad_files_are_refused_naming_the_row(api_client, design, fmt, text, expect):
    answer = api_client.post(_url(design, "cabling/"), {"format": fmt, "text": text}, format="json")
    assert answer.status_code == 400, answer.content
    problem = answer.json()["problems"][0]
    assert (problem["row"], problem["field"], problem["code"]) == expect
    assert problem["message"] and answer.json()["detail"]
    assert not FieldImport.objects.exists()
    assert not AuditEvent.objects.filter(
        action=AuditActionChoices.IMPORT_APPLIED, design_ref=design.pk
    ).exists()


def test_readers_who_may_not_edit_cannot_import(design, other_user):
    client = APIClient()
    client.force_authenticate(other_user)
    answer = client.post(
        _url(design, "cabling/"), {"format": "lldp-csv", "text": _table(design)}, format="json"
    )
    assert answer.status_code == 404 and not FieldImport.objects.exists()


def test_page_checks_an_upload_and_lists_the_differences(client, user, design):
    client.force_login(user)
    url = f"/designs/{design.pk}/revisions/1/as-built/"
    bad = SimpleUploadedFile("bad.txt", b"Switch 65 oops\n")
    answer = client.post(url, {"source_format": "ibnetdiscover", "file": bad})
    assert answer.status_code == 400 and b"Nothing was stored" in answer.content
    assert b"line 1: not an ibnetdiscover line" in answer.content
    good = SimpleUploadedFile("lldp.csv", _table(design, drop=True).encode())
    answer = client.post(url, {"source_format": "lldp-csv", "file": good}, follow=True)
    assert answer.status_code == 200
    page = answer.content.decode()
    assert 'data-testid="asbuilt-findings"' in page and 'data-kind="missing"' in page
    record = FieldImport.objects.get()
    csv = client.get(f"{url}{record.pk}/csv/")
    assert csv.status_code == 200 and b"missing," in b"".join(csv.streaming_content)
    # an earlier import is chosen by its id (?import=); an id of another revision is not found
    chosen = client.get(url, {"import": record.pk})
    assert chosen.status_code == 200 and 'data-kind="missing"' in chosen.content.decode()
    assert client.get(url, {"import": record.pk + 1000}).status_code == 404
