"""Counter snapshot import and the canvas's "Measured" overlay (issue 23 items 5-6): 201 with
the overlay; bad files, unknown names and another design's snapshot are 400 naming the row,
device, port and field, with nothing stored."""

from __future__ import annotations

import json

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from planner.asbuilt.models import FieldImport
from planner.audit.models import AuditActionChoices, AuditEvent
from planner.designs.adapters import fabric_unpack
from planner.designs.services import design_create
from planner.domain.outputs.cabling_ends import FabricEnds
from simulation.models import Job
from tests.factories import TINY_SPEC

pytestmark = pytest.mark.api


@pytest.fixture
def design(seed_catalog, user):
    return design_create(owner=user, spec_document=TINY_SPEC)


def _url(design):
    return f"/api/planner/designs/{design.pk}/revisions/1/counters/"


def _ends(design):
    """The two ends of the revision's first link as (device, design port name)."""
    fabric = fabric_unpack(design.revisions.get().topology)
    ends = FabricEnds(fabric)
    a, b = int(fabric.link_a[0]), int(fabric.link_b[0])
    return (
        (fabric.node_name[a], ends.port_name(a, int(fabric.link_a_port[0]))),
        (fabric.node_name[b], ends.port_name(b, int(fabric.link_b_port[0]))),
    )


def test_import_stores_the_overlay_and_the_canvas_reads_it(api_client, design):
    (a, a_port), (b, b_port) = _ends(design)
    text = (
        "device,port,interval_s,rx_bytes,fec_corrected,rx_power_dbm\n"
        f"{a},{a_port},10,250000000000,12,-2.0;-2.5;-1.9;-2.2\n"
        f"{b},{b_port},10,0,0,\n"
    )
    answer = api_client.post(
        _url(design), {"format": "counters-csv", "text": text, "file_name": "c.csv"}, format="json"
    )
    assert answer.status_code == 201, answer.content
    body = answer.json()
    summary = body["snapshot"]["summary"]
    assert summary["ports"] == 2 and summary["links"] == 1 and summary["uncabled_ports"] == 0
    link = body["links"]["link:0"]
    assert link["a"]["device"] == a and link["a"]["rx_dbm"] == -2.5
    assert link["errors"] == {"fec_corrected": 12} and link["simulated_util"] is None
    assert link["util"] == pytest.approx(250e9 * 8 / 10 / (link["speed_gbps"] * 1e9), abs=1e-4)
    assert body["simulation"] is None
    assert FieldImport.objects.get().kind == "counters"
    event = AuditEvent.objects.get(action=AuditActionChoices.IMPORT_APPLIED, design_ref=design.pk)
    assert event.object_type == "counter-snapshot"
    assert api_client.get(_url(design)).json()["links"] == body["links"]
    Job.objects.create(
        owner=design.owner,
        kind="simulate",
        parameters={"design": design.pk, "revision": 1},
        input_hash="x" * 64,
        status="succeeded",
        result={"link_utilization": {"link:0": 0.3}},
        finished=timezone.now(),
    )
    beside = api_client.get(_url(design)).json()
    assert beside["links"]["link:0"]["simulated_util"] == 0.3 and beside["simulation"]["job"]


@pytest.mark.parametrize(
    ("case", "expect"),
    [
        ("unknown-device", (3, "device", "unknown-device")),
        ("unknown-port", (3, "port", "unknown-port")),
        ("malformed", (2, "rx_bytes", "not-a-count")),
        ("other-design-name", (0, "design", "other-design")),
        ("other-design-devices", (0, "device", "other-design")),
    ],
)
def test_bad_snapshots_are_refused_naming_the_cause(api_client, design, case, expect):
    (a, a_port), _ = _ends(design)
    head = "device,port,interval_s,rx_bytes\n"
    fmt, text = (
        "counters-csv",
        {
            "unknown-device": f"{head}{a},{a_port},10,1\nleaf-nowhere,1,10,1\n",
            "unknown-port": f"{head}{a},{a_port},10,1\n{a},999,10,1\n",
            "malformed": f"{head}{a},{a_port},10,many\n",
            "other-design-devices": f"{head}gpu-elsewhere,1,10,1\nsw-elsewhere,2,10,1\n",
        }.get(case, ""),
    )
    if case == "other-design-name":
        fmt = "counters-json"
        text = json.dumps({"design": "Another pod", "ports": [{"device": a, "port": a_port}]})
    answer = api_client.post(_url(design), {"format": fmt, "text": text}, format="json")
    assert answer.status_code == 400, answer.content
    problem = answer.json()["problems"][0]
    assert (problem["row"], problem["field"], problem["code"]) == expect
    assert problem["message"] and answer.json()["detail"]
    assert not FieldImport.objects.exists()
    assert not AuditEvent.objects.filter(
        action=AuditActionChoices.IMPORT_APPLIED, design_ref=design.pk
    ).exists()


def test_other_users_cannot_import(design, other_user):
    client = APIClient()
    client.force_authenticate(other_user)
    answer = client.post(
        _url(design), {"format": "counters-csv", "text": "device,port\nx,1\n"}, format="json"
    )
    assert answer.status_code == 404 and not FieldImport.objects.exists()
