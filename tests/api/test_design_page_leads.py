"""The design page leads (issue 37 item 5): a sticky action bar at the top whose Validate and
Power buttons submit the Analysis section's own forms, an "on this page" index whose links all
land on an element of the page, the newest job of each kind near the top, and the long analyses
folded in <details> below the summary."""

from __future__ import annotations

import re

from django.urls import reverse

from planner.designs.services import design_create
from simulation.models import Job, JobKindChoices, JobStatusChoices
from tests.api.test_design_pages import SPEC


def _html(client, design) -> str:
    page = client.get(reverse("planner:design-detail", args=[design.pk]))
    assert page.status_code == 200
    return page.content.decode()


def test_action_bar_comes_first_and_its_buttons_submit_the_existing_forms(
    logged_in_client, seed_catalog, user
):
    design = design_create(owner=user, spec_document=SPEC)
    html = _html(logged_in_client, design)
    bar = html.index('data-testid="action-bar"')
    # the bar precedes every section of the page
    assert bar < html.index('id="summary-heading"') < html.index('id="analysis-heading"')
    nav = html[bar : html.index("</nav>", bar)]
    labels = [
        re.sub(r"\s+", " ", label).strip() for label in re.findall(r'">([^<]+)</(?:a|button)>', nav)
    ]
    assert labels == [
        "Canvas",
        "Validate",
        "Power",
        "Simulate…",
        "What-if",
        "Quote",
        "BOM &amp; exports",
    ]
    # the bar is the page's one way to them (no second Canvas / Quotes / BOM button above)
    assert html.count(">Canvas</a>") == 1 and html.count('data-testid="quotes-link"') == 1
    for form_id, kind in (("job-validate", "validate"), ("job-power", "power")):
        assert f'form="{form_id}"' in html
        form = re.search(rf'<form [^>]*id="{form_id}"[^>]*>(.*?)</form>', html, re.S)
        assert form and f'name="kind" value="{kind}"' in form.group(1)
    # Simulate takes choices: the bar leads to its form
    assert 'href="#simulate"' in html and 'id="simulate" data-testid="simulate-form"' in html
    outputs = reverse("planner:revision-outputs", args=[design.pk, 1])
    assert f'href="{outputs}" data-testid="outputs-link"' in html


def test_every_index_link_lands_on_the_page_and_long_sections_are_folded(
    logged_in_client, seed_catalog, user
):
    design = design_create(owner=user, spec_document=SPEC)
    html = _html(logged_in_client, design)
    index = re.search(r'data-testid="page-index">(.*?)</nav>', html, re.S).group(1)
    targets = re.findall(r'href="#([\w-]+)"', index)
    assert {"summary-heading", "fold-transport", "analysis-heading", "revisions-heading"} <= set(
        targets
    )
    for target in targets:
        assert len(re.findall(rf'\sid="{target}"', html)) == 1, target
    folds = re.findall(r'<details class="fold" id="([\w-]+)"([^>]*)>', html)
    assert {fold for fold, _ in folds} >= {"fold-resilience", "fold-transport", "fold-failures"}
    assert all("open" not in attrs for _, attrs in folds)  # collapsed until asked for
    assert html.index('id="summary-heading"') < html.index('<details class="fold"')
    # a recomputed expected-failures form opens its fold again
    again = logged_in_client.get(
        reverse("planner:design-detail", args=[design.pk]), {"job_gpus": "64"}
    ).content.decode()
    assert re.search(r'<details class="fold" id="fold-failures"[^>]* open>', again)


def test_latest_results_show_the_newest_job_of_each_kind_near_the_top(
    logged_in_client, seed_catalog, user
):
    design = design_create(owner=user, spec_document=SPEC)
    html = _html(logged_in_client, design)
    assert 'data-testid="latest-none"' in html
    revision = design.latest_revision
    old = Job.objects.create(
        owner=user,
        design_revision=revision,
        kind=JobKindChoices.VALIDATE,
        status=JobStatusChoices.SUCCEEDED,
        outcome="3 errors, 1 warning",
    )
    new = Job.objects.create(
        owner=user,
        design_revision=revision,
        kind=JobKindChoices.VALIDATE,
        status=JobStatusChoices.SUCCEEDED,
        outcome="0 errors, 2 warnings",
    )
    power = Job.objects.create(
        owner=user,
        design_revision=revision,
        kind=JobKindChoices.POWER,
        status=JobStatusChoices.FAILED,
        error="The worker stopped.",
    )
    html = _html(logged_in_client, design)
    results = html[html.index('data-testid="latest-results"') : html.index('id="summary-heading"')]
    assert "0 errors, 2 warnings" in results and "3 errors, 1 warning" not in results
    assert reverse("simulation:job-detail", args=[new.pk]) in results
    assert reverse("simulation:job-detail", args=[old.pk]) not in results
    assert (
        "The worker stopped." in results
        and reverse("simulation:job-detail", args=[power.pk]) in results
    )
    assert 'data-testid="latest-simulate"' not in results  # no simulation yet
