"""Sharing in Chromium: a teammate's link is a styled 404 until the owner shares the design
with their team on the design page; then the same link opens it. The Team page, the share
control and the 404 are kept as screenshots (``FABRIC_SCREENSHOTS=1``)."""

import re

import pytest
from playwright.sync_api import expect

from tests.conftest import keep_screenshot


@pytest.fixture
def live_catalog(transactional_db, seed_catalog):
    return seed_catalog


def _as(chromium, live_server, user):
    """A page in a browser context of its own, logged in as ``user``."""
    from django.conf import settings
    from django.test import Client

    client = Client()
    client.force_login(user)
    context = chromium.new_context(viewport={"width": 1400, "height": 900})
    context.add_cookies(
        [
            {
                "name": settings.SESSION_COOKIE_NAME,
                "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                "url": live_server.url,
            }
        ]
    )
    page = context.new_page()
    page.set_default_timeout(15_000)
    return page


def test_owner_shares_with_the_team_and_the_teammate_opens_it(
    live_catalog, browser_login, live_server, chromium, django_user_model
):
    from planner.designs.services import design_create
    from planner.teams.models import Team, TeamMembership
    from tests.factories import ONE_SU_SPEC

    carol = django_user_model.objects.get(username="carol")
    dave = django_user_model.objects.create_user(username="dave")
    blue = Team.objects.create(name="Blue fabric team", slug="blue")
    TeamMembership.objects.create(team=blue, user=carol, role="owner", can_view_prices=True)
    TeamMembership.objects.create(team=blue, user=dave, role="viewer")
    design = design_create(owner=carol, spec_document={**ONE_SU_SPEC, "name": "Pod North"})
    link = f"{live_server.url}{design.get_absolute_url()}"

    teammate = _as(chromium, live_server, dave)
    try:
        teammate.goto(link)
        notice = teammate.get_by_test_id("not-found")
        expect(notice).to_contain_text("not shared with you")
        expect(notice).to_contain_text("ask the person who sent it to share it with your team")
        expect(teammate.locator(".topbar")).to_be_visible()  # the site's layout
        expect(teammate.get_by_text("Pod North")).to_have_count(0)
        keep_screenshot(teammate, "sharing-404")

        owner = browser_login
        owner.goto(link)
        owner.get_by_test_id("share").locator("summary").click()
        form = owner.get_by_test_id("share-form")
        form.get_by_label("Access").select_option("team-read")
        form.get_by_label("Team").select_option("blue")
        keep_screenshot(owner, "sharing-control", full_page=False)
        form.get_by_role("button", name="Save sharing").click()
        expect(owner.locator(".messages")).to_contain_text(
            "Shared “Pod North” with Blue fabric team (team can view)."
        )
        expect(owner.locator(".meta")).to_contain_text("shared with Blue fabric team")

        teammate.goto(link)
        expect(teammate.get_by_test_id("design-name")).to_have_text("Pod North")
        expect(teammate.get_by_test_id("share")).to_have_count(0)  # only the owner shares

        owner.get_by_role("link", name="Blue fabric team").click()
        expect(owner).to_have_url(re.compile(r"/teams/blue/$"))
        members = owner.get_by_test_id("members")
        expect(members.locator("tbody tr")).to_have_count(2)
        dave_row = members.locator('tr[data-member="dave"]')
        expect(dave_row.locator("select")).to_have_value("viewer")
        dave_row.get_by_label("Price right of dave").check()
        dave_row.get_by_role("button", name="Save").click()
        expect(owner.locator(".messages")).to_contain_text("Saved dave's role and price right.")
        expect(owner.get_by_label("Price right of dave")).to_be_checked()
        expect(owner.locator('tr[data-member="carol"]')).to_contain_text("the only owner")
        keep_screenshot(owner, "team-page")
    finally:
        teammate.context.close()
