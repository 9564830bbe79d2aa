"""Expected failures of a stored revision (issue 24 item 4): the API route with its parameters
and the design page's "Expected failures" section with the BOM option."""

from __future__ import annotations

import pytest

from planner.designs.services import design_create

BASE = "/api/planner"
SPEC = {  # the smallest rail-optimized fabric with a spine: 4 DGX-H100 on QM9700
    "name": "failures 4 servers",
    "topology": "rail-optimized",
    "server": "DGX-H100",
    "servers": 4,
    "servers_per_su": 32,
    "switches": {"leaf": "QM9700"},
    "media": {"server-leaf": "MMF", "leaf-spine": "MMF"},
}
GPU_DAYS = 16_384 * 54


@pytest.fixture
def design(seed_catalog, user):
    return design_create(owner=user, spec_document=SPEC)


def test_api_answers_rates_job_and_spares(api_client, design):
    url = f"{BASE}/designs/{design.pk}/revisions/1/failures/"
    body = api_client.get(url, {"job_gpus": 8, "lead_time_days": 60, "level": 95}).json()
    assert body["revision"] == 1 and body["gpus"] == 32
    server = next(g for g in body["groups"] if g["group"] == "server")
    assert server["basis"] == "llama3"
    assert server["per_day"] == pytest.approx(282 * 32 / GPU_DAYS)
    assert body["job"]["gpus"] == 8 and body["job"]["servers"] == 1
    assert body["spares"]["lead_time_days"] == 60 and body["spares"]["level"] == 0.95
    for params, field in (
        ({"job_gpus": 33}, "job_gpus"),
        ({"job_gpus": "x"}, "job_gpus"),
        ({"level": 100}, "level"),
        ({"lead_time_days": -1}, "lead_time_days"),
        ({"fallback": "guess"}, "fallback"),
    ):
        answer = api_client.get(url, params)
        assert answer.status_code == 400 and field in answer.json(), params


def test_page_shows_failures_and_the_bom_option(logged_in_client, design):
    html = logged_in_client.get(f"/designs/{design.pk}/?job_gpus=16").content.decode()
    assert 'data-testid="failures-table"' in html and "Llama 3 field rate" in html
    assert "A job spanning <strong>16 GPUs</strong>" in html
    assert f"/designs/{design.pk}/revisions/1/outputs/?spares_server=" in html
    assert "(Servers and compute trays (GPUs, memory, host) " in html  # a label, not a key
    bad = logged_in_client.get(f"/designs/{design.pk}/?job_gpus=0").content.decode()
    assert 'data-testid="failures-error"' in bad and "Job GPUs: at least 1 GPU" in bad


def test_api_hides_other_users_designs(seed_catalog, other_user, api_client):
    theirs = design_create(owner=other_user, spec_document={**SPEC, "name": "theirs"})
    assert api_client.get(f"{BASE}/designs/{theirs.pk}/revisions/1/failures/").status_code == 404


@pytest.mark.parametrize("name", ["fallback", "level", "job_gpus", "lead_time_days"])
def test_a_blank_parameter_is_a_400_naming_it_not_the_default(api_client, design, name):
    """The schema's enum has no empty fallback: the API refuses a blank value (the page's form
    still reads its empty fields as the defaults)."""
    url = f"{BASE}/designs/{design.pk}/revisions/1/failures/"
    response = api_client.get(url, {name: ""})
    assert response.status_code == 400, response.content
    assert "leave the parameter out" in response.json()[name][0]
