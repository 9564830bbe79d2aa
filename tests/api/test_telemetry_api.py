"""Telemetry plan: the API route, its two downloads, the outputs page's section and the CLI."""

from __future__ import annotations

import io

import pytest
import yaml
from django.core.management import CommandError, call_command
from django.urls import reverse

from planner.designs.services import design_create
from tests.api.test_config_export import ROCE_SPEC
from tests.factories import TINY_SPEC


def _body(response) -> str:
    assert response.status_code == 200, response.content
    return b"".join(response.streaming_content).decode()


def test_telemetry_plan_api_downloads_page_and_cli(client, api_client, seed_catalog, user):
    design = design_create(owner=user, spec_document=ROCE_SPEC)
    base = f"/api/planner/designs/{design.pk}/revisions/1"
    plan = api_client.get(f"{base}/telemetry/?interval_s=5").json()
    assert plan["ports"] > 0 and plan["load"]["interval_s"] == 5
    assert plan["load"]["samples_per_s"] == pytest.approx(plan["load"]["series"] / 5, rel=1e-3)
    for query in ("bytes_per_sample=-1", "interval_s="):  # given empty is not "not given"
        bad = api_client.get(f"{base}/telemetry/?{query}")
        assert bad.status_code == 400 and query.split("=")[0] in bad.json()
    rules = yaml.safe_load(_body(api_client.get(f"{base}/exports/telemetry-prometheus/")))
    assert rules["groups"] and all(g["rules"] for g in rules["groups"])
    gnmic = _body(api_client.get(f"{base}/exports/telemetry-gnmic/"))
    assert "subscriptions" in yaml.safe_load(gnmic)
    out = io.StringIO()
    call_command("fabric", "export", str(design.pk), "--format", "telemetry-gnmic", stdout=out)
    assert out.getvalue() == gnmic
    client.force_login(user)
    page = client.get(reverse("planner:revision-outputs", args=[design.pk, 1])).content.decode()
    assert 'data-testid="telemetry-counters"' in page and "GB/day" in page
    assert "tx_avg_min_dbm" not in page and "launch power (Tx average, minimum)" in page
    assert 'data-testid="download-telemetry-prometheus"' in page
    assert 'data-testid="download-telemetry-gnmic"' in page and "no-gnmic" not in page


def test_infiniband_design_gets_rules_but_no_gnmi(client, api_client, seed_catalog, user):
    design = design_create(owner=user, spec_document=TINY_SPEC)
    base = f"/api/planner/designs/{design.pk}/revisions/1/exports"
    refused = api_client.get(f"{base}/telemetry-gnmic/")
    assert refused.status_code == 422 and refused.json()["code"] == "not-ethernet"
    rules = yaml.safe_load(_body(api_client.get(f"{base}/telemetry-prometheus/")))
    assert [g["name"] for g in rules["groups"]] == ["fabric-infiniband"]
    client.force_login(user)  # the outputs page offers no download that would only refuse
    page = client.get(reverse("planner:revision-outputs", args=[design.pk, 1])).content.decode()
    assert "download-telemetry-gnmic" not in page and 'data-testid="no-gnmic"' in page
    with pytest.raises(CommandError, match="not gNMI targets"):
        call_command("fabric", "export", str(design.pk), "--format", "telemetry-gnmic")
