"""The canvas of a GB300-NVL72 design (a rack drawn as one node; the inspector lists its
trays and where each NIC goes) and of a two-plane design (one plane at a time, or all).
Both fabrics are generated without media (the seed has no module for every cage they
need) and stored as a design's revision, as tests/api/test_canvas_planes_racks_api.py."""

import re

import pytest
from playwright.sync_api import expect

from tests.api.test_canvas_planes_racks_api import design_with_fabric
from tests.browser.test_canvas import cy_run

NVL72 = {
    "name": "nvl",
    "topology": "rail-optimized",
    "server": "GB300-NVL72",
    "racks": 2,
    "servers_per_su": 2,
    "switches": {"leaf": "Q3400-RA"},
    "layout": {"servers_per_rack": 1},
}
TWO_PLANES = {
    "name": "p2",
    "topology": "rail-optimized",
    "server": "DGX-B300",
    "servers": 4,
    "planes": 2,
    "switches": {"leaf": "Q3400-RA"},
}


@pytest.fixture
def live_catalog(transactional_db, seed_catalog):
    return seed_catalog


def cy(page, expression: str):
    return page.evaluate(f"() => {{ const cy = window.fabricCanvas.cy; return {expression}; }}")


def open_canvas(page, url: str, design) -> None:
    page.goto(f"{url}/designs/{design.pk}/canvas/")
    expect(page.locator("[data-canvas]")).to_have_attribute("data-state", "ready")


def test_rack_trays_in_the_inspector_and_one_plane_at_a_time(
    live_catalog, browser_login, live_server, django_user_model
):
    carol = django_user_model.objects.get(username="carol")
    page = browser_login

    # A GB300-NVL72 design: each rack is one node; selecting it lists its 18 trays.
    racks = design_with_fabric(carol, "NVL72", NVL72)
    open_canvas(page, live_server.url, racks)
    expect(page.locator("[data-c='plane-group']")).to_be_hidden()
    labels = cy(page, "cy.nodes(\"[role = 'server']\").map((n) => n.data('label'))")
    racks = cy(page, "cy.nodes(\"[role = 'server']\").map((n) => n.data('rack'))")
    assert labels == [
        f"gpu0000{i} · GB300-NVL72 in rack {rack} · 18 trays · 72 GPUs"
        for i, rack in enumerate(racks, 1)
    ]
    page.get_by_label("Find device").fill("gpu00002")
    page.get_by_label("Find device").press("Enter")
    inspector = page.locator("[data-c='inspector']")
    expect(inspector.get_by_role("heading", name="gpu00002")).to_be_visible()
    expect(inspector).to_contain_text(f"GB300-NVL72 in rack {racks[1]} · 18 trays · 72 GPUs")
    trays = inspector.locator("details[data-tray]")
    expect(trays).to_have_count(18)
    expect(trays.first.locator("summary")).to_have_text("Tray 1 · 4 GPUs · 4 NICs")
    trays.nth(17).locator("summary").click()
    table = inspector.get_by_role("table", name="NICs of tray 18")
    expect(table.get_by_role("row")).to_have_count(5)  # a header and 4 NICs
    expect(table.get_by_role("row").nth(1)).to_contain_text("leaf-su001-r1")
    # The inspector drawn again for the same rack (its model's facts arriving late, data set
    # in the background) keeps the tray the user opened open.
    cy_run(page, "const rack = cy.$(':selected'); rack.unselect(); rack.select()")
    expect(inspector.locator("details[data-tray='18']")).to_have_attribute("open", "")
    expect(inspector.locator("details[open]")).to_have_count(1)
    expect(table.get_by_role("row").nth(1)).to_contain_text("leaf-su001-r1")

    # A two-plane design: "Plane 2" shows plane 2's switches only, and every server.
    planes = design_with_fabric(carol, "Two planes", TWO_PLANES)
    open_canvas(page, live_server.url, planes)
    canvas = page.locator("[data-canvas]")
    expect(canvas).to_have_attribute("data-editable", "true")
    switches = "cy.nodes(\"[kind = 'device'][role != 'server']\").map((n) => n.data('label'))"
    assert {label[:3] for label in cy(page, switches)} == {"p1-", "p2-"}
    picker = page.get_by_label("Plane", exact=True)
    expect(picker.locator("option")).to_have_text(["All planes", "Plane 1", "Plane 2"])
    picker.select_option(label="Plane 2")
    expect(page).to_have_url(re.compile(r"[?&]plane=2"))
    expect(canvas).to_have_attribute("data-editable", "false")
    shown = cy(page, switches)
    assert shown and all(label.startswith("p2-") for label in shown), shown
    assert cy(page, "cy.nodes(\"[role = 'server']\").length") == 4
    picker.select_option(label="All planes")
    expect(canvas).to_have_attribute("data-editable", "true")
    assert {label[:3] for label in cy(page, switches)} == {"p1-", "p2-"}
