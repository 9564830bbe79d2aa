"""Day-0 configuration downloads: the API route, the outputs page's links, the CLI, and the
refusal of a format that cannot describe the design (422 / exit status 1, nothing audited)."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from rest_framework.test import APIClient

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


def test_infiniband_topology_downloads_beside_opensm_and_reads_back_as_built(
    client, api_client, seed_catalog, user, other_user
):
    """The ibnetdiscover-format topology: a download on the outputs page beside opensm.conf
    and on the API, which the as-built check accepts as the built fabric with 0 findings."""
    design = design_create(owner=user, spec_document=TINY_SPEC)
    client.force_login(user)
    page = client.get(reverse("planner:revision-outputs", args=[design.pk, 1])).content.decode()
    opensm = page.index('data-testid="download-config-opensm"')
    assert opensm < page.index('data-testid="download-ib-topology"')
    response = _get(api_client, design, "ib-topology")
    text = _body(response)
    assert response["Content-Type"].startswith("text/plain")
    assert f'filename="design-{design.pk}-r1-ib-topology.txt"' in response["Content-Disposition"]
    assert "\nSwitch\t" in text and "\nCa\t1 " in text and " 4xNDR\n" in text
    out = io.StringIO()
    call_command("fabric", "export", str(design.pk), "--format", "ib-topology", stdout=out)
    assert out.getvalue() == text  # the CLI writes the same file from the same stored fabric
    answer = api_client.post(
        f"/api/planner/designs/{design.pk}/revisions/1/as-built/cabling/",
        {"format": "ibnetdiscover", "text": text},
        format="json",
    )
    assert answer.status_code == 201, answer.content
    summary = answer.json()["summary"]
    assert summary["findings"] == 0 and summary["links_in_place"] == summary["links_in_design"]
    # someone the design is not shared with sees nothing (404, as every download)
    stranger = APIClient()
    stranger.force_authenticate(other_user)
    assert _get(stranger, design, "ib-topology").status_code == 404


def test_roce_design_refuses_the_infiniband_topology_naming_why(
    client, api_client, seed_catalog, user
):
    design = design_create(owner=user, spec_document=ROCE_SPEC)
    refused = _get(api_client, design, "ib-topology")
    assert refused.status_code == 422
    assert refused.json()["code"] == "not-infiniband"
    assert "RoCE" in refused.json()["detail"] and "cabling plan" in refused.json()["detail"]
    with pytest.raises(CommandError, match="no InfiniBand topology"):
        call_command("fabric", "export", str(design.pk), "--format", "ib-topology")
    client.force_login(user)
    page = client.get(reverse("planner:revision-outputs", args=[design.pk, 1])).content.decode()
    assert 'data-testid="refused-ib-topology"' in page
    assert 'data-testid="download-ib-topology"' not in page
    assert not AuditEvent.objects.filter(action=AuditActionChoices.EXPORT_DOWNLOADED).exists()
