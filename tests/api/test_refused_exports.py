"""Exports that cannot apply are shown disabled with their reason on the outputs page (issue
37 item 7), by the same rule that makes a download of them answer 4xx naming why."""

from __future__ import annotations

import html as html_lib

from django.urls import reverse

from planner.designs.services import design_create
from tests.api.test_config_export import ROCE_SPEC
from tests.factories import TINY_SPEC


def _page(client, user, design) -> str:
    client.force_login(user)
    page = client.get(reverse("planner:revision-outputs", args=[design.pk, 1]))
    assert page.status_code == 200
    return html_lib.unescape(page.content.decode())


def _download(client, design, fmt):
    return client.get(reverse("planner:revision-download", args=[design.pk, 1, fmt]))


def test_infiniband_design_shows_roce_formats_and_avd_disabled_with_reasons(
    client, seed_catalog, user
):
    design = design_create(owner=user, spec_document=TINY_SPEC)
    html = _page(client, user, design)
    for fmt in ("config-nvue", "config-sonic", "config-eos", "avd"):
        assert f'data-testid="refused-{fmt}"' in html
        assert f'data-testid="download-{fmt}"' not in html
        refused = _download(client, design, fmt)
        assert refused.status_code == 422
        # the page's reason is the refusal's own message, word for word
        message = refused.context["message"]
        assert message and message in html
    for fmt in ("config-opensm", "config-intent-yaml", "p2p", "bom-csv"):
        assert f'data-testid="download-{fmt}"' in html
        assert f'data-testid="refused-{fmt}"' not in html


def test_roce_design_shows_opensm_disabled_and_the_api_refuses_it_naming_why(
    client, api_client, seed_catalog, user
):
    design = design_create(owner=user, spec_document=ROCE_SPEC)
    html = _page(client, user, design)
    assert 'data-testid="refused-config-opensm"' in html
    assert 'data-testid="download-config-opensm"' not in html
    assert "no subnet manager" in html
    for fmt in ("config-nvue", "config-sonic"):
        assert f'data-testid="download-{fmt}"' in html
    # an all-NVIDIA RoCE design has no Arista switch: EOS and AVD are disabled, saying so
    assert 'data-testid="refused-config-eos"' in html and "EOS runs on Arista switches" in html
    assert 'data-testid="refused-avd"' in html and "AVD renders Arista EOS" in html
    api = api_client.get(f"/api/planner/designs/{design.pk}/revisions/1/exports/config-opensm/")
    assert api.status_code == 422
    assert api.json()["code"] == "not-infiniband" and "no subnet manager" in api.json()["detail"]
