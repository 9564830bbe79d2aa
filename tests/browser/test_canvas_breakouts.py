"""A breakout drawn on the canvas (issue 19 item 5): one QM9700 cage split 2 x 400G by an
MCP7Y00 splitter DAC to two servers, saved, one assembly in the cabling plan."""

import csv
import io
import re

import pytest
from playwright.sync_api import expect

from tests.browser.test_canvas import cy, draw_link, link_count, wait_ready
from tests.conftest import keep_screenshot

# Two servers with single-port 400G OSFP NICs and a leaf with twin-port 800G OSFP cages;
# the drawing starts with one ordinary link (a drawn design needs one).
DOCUMENT = {
    "nodes": [
        {"name": "server-1", "model": "SYS-821GE-TNHR", "role": "server", "x": 0, "y": 300},
        {"name": "server-2", "model": "SYS-821GE-TNHR", "role": "server", "x": 300, "y": 300},
        {"name": "leaf-1", "model": "QM9700", "role": "leaf", "x": 150, "y": 0},
    ],
    "links": [{"a": "server-2", "a_port": 8, "b": "leaf-1", "b_port": 64}],
}
SPLITTER = "MCP7Y00-N003"  # the 3 m length: the dialog's default run is 3 m


@pytest.fixture
def breakout_design(transactional_db, seed_catalog, browser_login, django_user_model):
    from planner.designs.services import design_create_drawn

    carol = django_user_model.objects.get(username="carol")
    return design_create_drawn(owner=carol, name="Breakout pod", document=DOCUMENT)


def test_draw_a_breakout_to_two_servers(breakout_design, browser_login, live_server):
    page = browser_login
    design = breakout_design
    page.goto(f"{live_server.url}/designs/{design.pk}/canvas/")
    wait_ready(page)
    assert link_count(page) == 1

    dialog = draw_link(page, "node:server-1", "node:leaf-1")
    splitter = dialog.get_by_label(re.compile(rf"{SPLITTER}.*breakout 1:2 × 400G"))
    splitter.check()
    legs = dialog.locator("[data-c='link-legs']")
    expect(legs).to_be_visible()
    expect(legs.locator("[data-c='link-legs-head']")).to_contain_text("leaf-1 ports 1, 2")
    # Creating without the second leg is refused in the dialog, which stays open.
    dialog.get_by_role("button", name="Create link").click()
    expect(dialog.locator("[data-c='link-refusal']")).to_contain_text("Leg 2 needs")
    expect(dialog).to_be_visible()

    dialog.get_by_label("Leg 2 device").select_option(label="server-2")
    leg_port = dialog.get_by_label("Leg 2 port")
    expect(leg_port.locator("option")).to_have_count(7)  # port 8 is in use
    leg_port.select_option("3")
    keep_screenshot(page, "canvas_breakout_dialog")
    dialog.get_by_role("button", name="Create link").click()
    expect(dialog).to_be_hidden()

    assert link_count(page) == 3
    made = cy(
        page,
        "cy.edges(\"[cable = '" + SPLITTER + "']\").map((e) => "
        "[e.source().id(), e.data('a_port'), e.data('b_port'), e.data('speed_gbps')]).sort()",
    )
    assert made == [["node:server-1", 1, 1, 400], ["node:server-2", 3, 2, 400]]

    page.get_by_role("button", name="Save").click()
    expect(page.locator("[data-c='revision']")).to_have_text("revision 2")
    keep_screenshot(page, "canvas_breakout_saved")

    answer = page.request.get(
        f"{live_server.url}/api/planner/designs/{design.pk}/revisions/2/cabling/"
    )
    assert answer.ok
    rows = [r for r in csv.DictReader(io.StringIO(answer.text())) if r["cable_part"] == SPLITTER]
    assert sorted((r["a_device"], r["leg"]) for r in rows) == [("server-1", "1"), ("server-2", "2")]
    assert len({r["assembly"] for r in rows}) == 1 and rows[0]["assembly"].endswith("1:2")
