"""Log in through the real form in Chromium and see the navigation."""

import re

from playwright.sync_api import expect


def test_login_and_navigation(page, live_server, django_user_model):
    django_user_model.objects.create_user(username="carol", password="pw-carol-123!")
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill("carol")
    page.get_by_label("Password").fill("pw-carol-123!")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{live_server.url}/")
    nav = page.get_by_role("navigation", name="Main")
    for label in ("Catalog", "Designs", "Jobs", "API docs"):
        expect(nav.get_by_role("link", name=label)).to_be_visible()
    nav.get_by_role("link", name="Jobs").click()
    expect(page).to_have_url(re.compile(r"/jobs/$"))
    expect(page.get_by_role("heading", name="Jobs")).to_be_visible()


def test_wrong_password_is_refused(page, live_server, django_user_model):
    django_user_model.objects.create_user(username="dave", password="right-password-1")
    page.goto(f"{live_server.url}/catalog/")
    expect(page).to_have_url(re.compile(r"/login/\?next=/catalog/"))
    page.get_by_label("Username").fill("dave")
    page.get_by_label("Password").fill("wrong-password")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("alert")).to_contain_text("didn't match")


def test_logout(browser_login, live_server):
    page = browser_login
    page.locator(".usermenu summary").click()
    page.get_by_role("button", name="Log out").click()
    expect(page).to_have_url(re.compile(r"/login/$"))
