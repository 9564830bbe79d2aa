"""Day-0 configuration downloads: the API route, the outputs page's links, the CLI, and the
refusal of a format that cannot describe the design (422 / exit status 1, nothing audited)."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from planner.audit.models import AuditActionChoices, AuditEvent
from planner.designs.services import design_create
from tests.factories import TINY_SPEC

ROCE_SPEC = {
    "name": "Tiny RoCE",
    "topology": "rail-optimized",
    "server": "XE9680",
    "servers": 4,
    "switches": {"leaf": "SN5600"},
}


def _get(client, design, fmt):
    return client.get(f"/api/planner/designs/{design.pk}/revisions/1/exports/{fmt}/")


def _body(response) -> str:
    assert response.status_code == 200, response.content
    return b"".join(response.streaming_content).decode()


def test_infiniband_design_downloads_opensm_and_refuses_nvue(api_client, seed_catalog, user):
    design = design_create(owner=user, spec_document=TINY_SPEC)
    response = _get(api_client, design, "config-opensm")
    text = _body(response)
    assert response["Content-Type"].startswith("text/plain")
    assert f'filename="design-{design.pk}-r1-day0-opensm.conf"' in response["Content-Disposition"]
    assert "\nrouting_engine ar_updn,updn\n" in text
    intent = json.loads(_body(_get(api_client, design, "config-intent-json")))
    assert intent["transport"] == "infiniband" and intent["switch_count"] == len(intent["switches"])
    refused = _get(api_client, design, "config-nvue")
    assert refused.status_code == 422
    assert refused.json()["code"] == "not-roce" and "opensm" in refused.json()["detail"]
    downloads = AuditEvent.objects.filter(action=AuditActionChoices.EXPORT_DOWNLOADED)
    formats = set(downloads.values_list("details__format", flat=True))
    assert formats == {"config-opensm", "config-intent-json"}  # the refusal wrote nothing


def test_roce_design_on_the_page_api_and_cli(client, api_client, seed_catalog, user):
    design = design_create(owner=user, spec_document=ROCE_SPEC)
    client.force_login(user)
    page = client.get(reverse("planner:revision-outputs", args=[design.pk, 1]))
    assert page.status_code == 200
    for fmt in ("config-nvue", "config-sonic", "config-intent-yaml"):
        assert f'data-testid="download-{fmt}"' in page.content.decode()
    # EOS runs on Arista switches only: shown disabled with why, not as a link to a 422
    assert 'data-testid="refused-config-eos"' in page.content.decode()
    nvue = _body(_get(api_client, design, "config-nvue"))
    assert "nv set qos roce mode lossless" in nvue and "\nnv config apply\n" in nvue
    sonic = json.loads(_body(_get(api_client, design, "config-sonic")))
    leaf = next(iter(sonic.values()))
    assert leaf["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"] == "3"
    out = io.StringIO()
    call_command("fabric", "config", str(design.pk), "--format", "nvue", stdout=out)
    assert out.getvalue() == nvue
    with pytest.raises(CommandError, match="no subnet manager"):
        call_command("fabric", "config", str(design.pk), "--format", "opensm", stdout=out)
