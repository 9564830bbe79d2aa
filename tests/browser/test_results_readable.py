"""Issue 15 items 6 and 7 in Chromium: overlays of a revision without a simulation say so and
offer the older revision's; job pages read in device and port names, counts and units."""

import re

from playwright.sync_api import expect

from tests.browser.test_canvas import cy, live_catalog, wait_ready  # noqa: F401
from tests.conftest import keep_screenshot


def _design_with_jobs(owner):
    from planner.designs.services import design_create
    from planner.domain.presets import preset_get
    from simulation.services import job_enqueue, job_execute

    design = design_create(owner=owner, spec_document=preset_get("h100-superpod-1su").spec)
    revision = design.revisions.get()
    jobs = {}
    for kind, parameters in (
        ("simulate", {"traffic": "permutation", "routing": "ecmp"}),
        ("validate", {}),
        ("power", {}),
    ):
        job = job_enqueue(owner=owner, kind=kind, design_revision=revision, parameters=parameters)
        job_execute(job_id=job.pk, worker="test")
        job.refresh_from_db()
        jobs[kind] = job
    return design, jobs


def test_canvas_offers_the_older_revisions_simulation(
    live_catalog,  # noqa: F811
    browser_login,
    live_server,
    django_user_model,
    monkeypatch,
):
    from simulation.tasks import run_job

    monkeypatch.setattr(run_job, "apply_async", lambda *a, **k: None)
    from planner.designs.services import design_revise

    carol = django_user_model.objects.get(username="carol")
    design, _ = _design_with_jobs(carol)
    spec = {**design.revisions.get().spec, "servers": 30}
    design_revise(design=design, user=carol, spec_document=spec, base_revision=1)

    page = browser_login
    page.goto(f"{live_server.url}/designs/{design.pk}/canvas/?view=detail&scope=all")
    wait_ready(page)
    page.get_by_label("Link utilization").check()
    notes = page.get_by_test_id("overlay-notes")
    expect(notes).to_contain_text("No simulation for revision 2 — run one, or show revision 1's.")
    assert cy(page, "cy.edges('.heat').length") == 0
    page.get_by_role("button", name="Show revision 1's").click()
    expect(notes).to_contain_text(
        "Showing revision 1's results, older than this canvas (revision 2)"
    )
    expect(page.get_by_role("button", name="Back to revision 2")).to_be_visible()
    page.wait_for_function("() => window.fabricCanvas.cy.edges('.heat').length > 0")
    keep_screenshot(page, "canvas_older_revision_overlay")
    page.get_by_role("button", name="Back to revision 2").click()
    expect(notes).to_contain_text("No simulation for revision 2")
    page.wait_for_function("() => window.fabricCanvas.cy.edges('.heat').length === 0")


def test_job_pages_read_in_names_counts_and_units(
    live_catalog,  # noqa: F811
    browser_login,
    live_server,
    django_user_model,
    monkeypatch,
):
    from simulation.tasks import run_job

    monkeypatch.setattr(run_job, "apply_async", lambda *a, **k: None)
    carol = django_user_model.objects.get(username="carol")
    design, jobs = _design_with_jobs(carol)
    page = browser_login

    page.goto(f"{live_server.url}/designs/{design.pk}/")
    expect(page.get_by_test_id("job-where")).to_contain_text("Each button opens the job's page")
    expect(page.get_by_test_id("design-analysis")).not_to_contain_text("appears below")

    page.goto(f"{live_server.url}/jobs/{jobs['simulate'].pk}/")
    hot = page.get_by_test_id("simulation-hot-spots")
    expect(hot).to_contain_text(re.compile(r"\S+ \d+/\d+ → \S+ \d+/\d+, (up|down)"))  # cage/lane
    expect(hot).not_to_contain_text(re.compile(r"link:\d"))
    expect(page.get_by_test_id("job-parameters")).to_contain_text("Traffic")
    expect(page.locator("body")).not_to_contain_text("{'")
    expect(page.locator("body")).not_to_contain_text("Attempts 0")
    axis = page.get_by_test_id("fct-y-axis")
    expect(axis).to_contain_text("100 %")
    expect(axis).to_contain_text("Flows finished")
    keep_screenshot(page, "job_simulate_readable")

    page.goto(f"{live_server.url}/jobs/{jobs['validate'].pk}/")
    expect(page.locator("body")).not_to_contain_text(re.compile(r"link:\d"))
    keep_screenshot(page, "job_validate_readable")

    page.set_viewport_size({"width": 900, "height": 900})
    page.goto(f"{live_server.url}/jobs/{jobs['power'].pk}/")
    expect(page.get_by_test_id("rack-names")).to_contain_text(
        jobs["power"].result["racks"][0]["rack"]
    )
    # Every headline figure fits inside its card.
    overflow = page.evaluate(
        """() => [...document.querySelectorAll('.figure')]
             .filter((card) => card.scrollWidth > card.clientWidth + 1)
             .map((card) => card.textContent.trim())"""
    )
    assert overflow == []
    keep_screenshot(page, "job_power_readable")
