"""Issue 39 in Chromium: the wizard starts an exploration of 256 GPUs over two switches, a real
worker runs it, the job page draws the front and lists every candidate, other axes are picked,
and one candidate opens as a new design."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.conftest import (
    broker_db_url,
    keep_screenshot,
    reset_broker_connections,
    start_worker,
    stop_worker,
)

#: Where the screenshots a person looks at go (besides keep_screenshot's folder).
SHOTS = Path(os.environ.get("EXPLORE_SHOTS", "/tmp/wt-explore-app"))


@pytest.fixture
def live_catalog(transactional_db, seed_catalog):
    return seed_catalog


@pytest.fixture
def worker(redis_url, live_catalog, tmp_path):
    """A real worker on a Redis database of its own, which the live server sends to."""
    import redis

    from planner.project.celery import app

    url = broker_db_url(redis_url, isolated=True)
    redis.Redis.from_url(url).flushdb()
    previous = app.conf.broker_url
    app.conf.broker_url = url
    reset_broker_connections(app)
    proc = start_worker(url, tmp_path / "worker.log")
    yield proc
    stop_worker(proc)
    app.conf.broker_url = previous
    reset_broker_connections(app)
    redis.Redis.from_url(url).flushdb()


def _shot(page, name: str) -> None:
    keep_screenshot(page, name)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_the_wizard_explores_and_a_candidate_opens_as_a_design(
    worker, browser_login, live_server, django_user_model
):
    from planner.teams.models import Team, TeamMembership

    carol = django_user_model.objects.get(username="carol")
    team = Team.objects.create(name="Sales", slug="sales")  # she may read the seed book
    TeamMembership.objects.create(team=team, user=carol, can_view_prices=True)
    page = browser_login
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Explore").click()
    expect(page.get_by_role("heading", name="Explore the design space")).to_be_visible()
    page.locator("#id_name").fill("256 GPUs, two switches")
    page.locator("#id_gpus").fill("256")
    page.locator("#id_gpus_max").fill("100")  # a range upside down: refused beside GPUs
    page.get_by_role("button", name="Explore").click()
    expect(page.locator('[data-field="gpus"] .errorlist')).to_contain_text(
        "min 256 is above max 100"
    )
    _shot(page, "explore_wizard_refused")
    page.locator("#id_gpus_max").fill("")
    page.locator("#id_servers").select_option("DGX-H100")
    page.locator("#id_switches").select_option(["QM9700", "SN5600"])
    page.locator('[data-field="tiers"]').get_by_label("2").check()
    _shot(page, "explore_wizard")
    page.get_by_role("button", name="Explore").click()

    expect(page).to_have_url(re.compile(r"/jobs/[0-9a-f-]+/$"))
    chart = page.get_by_test_id("explore-chart")
    expect(chart).to_be_visible(timeout=90_000)  # the page reloads when the job finishes
    expect(chart).to_contain_text("Cost (million USD)")
    expect(chart).to_contain_text("Collective time (ms)")
    points = page.get_by_test_id("explore-point")
    expect(points.first).to_be_visible()
    assert page.locator('[data-testid="explore-point"][data-status="front"]').count() >= 1
    table = page.get_by_test_id("explore-candidates")
    expect(table.locator("tbody tr")).to_have_count(4)  # 2 topologies x 2 switches
    expect(table).to_contain_text("On the front")
    expect(table).to_contain_text("QM9700")
    expect(page.get_by_test_id("explore-counts")).to_contain_text("Candidates")
    _shot(page, "explore_result")

    page.get_by_test_id("explore-axes").get_by_label("Across").select_option("power_w")
    page.get_by_test_id("explore-axes").get_by_role("button", name="Plot").click()
    expect(chart).to_contain_text("Power (kW)")

    front_row = table.locator('tbody tr[data-status="front"]').first
    label = front_row.locator("td").nth(1).inner_text()
    front_row.get_by_role("link", name=label).click()  # the candidate's own page
    expect(page.get_by_test_id("candidate-status")).to_have_text("On the front")
    expect(page.get_by_test_id("candidate-figures")).to_contain_text("Collective time")
    _shot(page, "explore_candidate")
    page.go_back()
    front_row.get_by_role("button", name="Open as design").click()
    expect(page).to_have_url(re.compile(r"/designs/\d+/$"))
    expect(page.get_by_role("status")).to_contain_text("created from candidate")
    expect(page.get_by_role("heading", level=1)).to_contain_text("256 GPUs, two switches")
    _shot(page, "explore_new_design")
