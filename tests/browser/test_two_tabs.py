"""Two browser tabs of one user edit the same design: neither edit is lost without a word.

Both tabs open revision 1. Tab A saves first (revision 2). Tab B's save is refused with the
conflict dialog instead of overwriting A's edit; B keeps theirs, which is saved on top as
revision 3 while A's edit stays in revision 2 of the history. Tab A, now behind, gets the
same dialog on its next save and reloads to B's drawing.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.test_canvas import DRAWN, drag, screen_point, wait_ready


@pytest.fixture
def drawn_design(transactional_db, seed_catalog, browser_login, django_user_model):
    """Carol's hand-drawn pod (two servers, one leaf) on the seed catalog, revision 1."""
    from planner.designs.services import design_create_drawn

    carol = django_user_model.objects.get(username="carol")
    return design_create_drawn(owner=carol, name="Drawn pod", document=DRAWN)


def _positions(design, number: int) -> dict[str, tuple[float, float]]:
    """Where each device is in the stored revision ``number``."""
    from planner.designs.selectors import revision_topology

    document = revision_topology(design.revisions.get(number=number))
    return {node["name"]: (node["x"], node["y"]) for node in document["nodes"]}


def _move(page, node: str, dx: int, dy: int) -> None:
    page.bring_to_front()
    start = screen_point(page, f"node:{node}")
    drag(page, start, {"x": start["x"] + dx, "y": start["y"] + dy})
    expect(page.locator("[data-canvas]")).to_have_attribute("data-dirty", "true")


def _save(page) -> None:
    page.get_by_role("button", name="Save").click()


def test_two_tabs_saving_one_design_lose_neither_edit_silently(
    drawn_design, browser_login, live_server
):
    design = drawn_design
    url = f"{live_server.url}/designs/{design.pk}/canvas/"
    tab_a = browser_login
    tab_b = tab_a.context.new_page()  # same session, as a second tab
    tab_b.set_default_timeout(15_000)
    for tab in (tab_a, tab_b):
        tab.goto(url)
        wait_ready(tab)
        expect(tab.locator("[data-c='revision']")).to_have_text("revision 1")
    original = _positions(design, 1)

    # Tab A moves server-1 and saves first.
    _move(tab_a, "server-1", 90, 50)
    _save(tab_a)
    expect(tab_a.locator("[data-c='revision']")).to_have_text("revision 2")
    after_a = _positions(design, 2)
    assert after_a["server-1"] != original["server-1"]

    # Tab B, still on revision 1, moves server-2: its save is refused, nothing is written.
    _move(tab_b, "server-2", -70, 60)
    _save(tab_b)
    conflict_b = tab_b.locator("[data-c='conflict']")
    expect(conflict_b).to_be_visible()
    expect(conflict_b).to_contain_text("based on revision 1; the latest is 2")
    assert design.revisions.count() == 2

    # B keeps their drawing: saved on top as revision 3; A's edit stays in revision 2.
    conflict_b.get_by_role("button", name="Keep mine (save on top of revision 2)").click()
    expect(tab_b.locator("[data-c='revision']")).to_have_text("revision 3")
    expect(conflict_b).to_be_hidden()
    after_b = _positions(design, 3)
    assert after_b["server-2"] != original["server-2"]
    assert _positions(design, 2) == after_a  # the history still holds A's edit
    assert [r.number for r in design.revisions.order_by("number")] == [1, 2, 3]

    # Tab A is now behind: its next save is refused too, and Reload shows B's drawing.
    _move(tab_a, "leaf-1", 40, 0)
    _save(tab_a)
    conflict_a = tab_a.locator("[data-c='conflict']")
    expect(conflict_a).to_be_visible()
    expect(conflict_a).to_contain_text("based on revision 2; the latest is 3")
    assert design.revisions.count() == 3
    conflict_a.get_by_role("button", name="Reload").click()
    expect(tab_a.locator("[data-c='revision']")).to_have_text("revision 3")
    expect(tab_a.locator("[data-canvas]")).to_have_attribute("data-dirty", "false")
    shown = tab_a.evaluate(
        "() => window.fabricCanvas.cy.getElementById('node:server-2').position()"
    )
    assert (shown["x"], shown["y"]) == after_b["server-2"]
    tab_b.close()
