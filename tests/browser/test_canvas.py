"""The design canvas in Chromium: draw a fabric by hand, save and reload it, undo a move,
a refused link, structure of a generated design (drill down, collapse, expand), export."""

import re

import pytest
from playwright.sync_api import expect

from tests.conftest import keep_screenshot


@pytest.fixture
def live_catalog(transactional_db, seed_catalog):
    return seed_catalog


# --- helpers ------------------------------------------------------------------------------------


def wait_ready(page):
    expect(page.locator("[data-canvas]")).to_have_attribute("data-state", "ready")


def cy(page, expression: str):
    """Evaluate ``expression`` with ``cy`` bound to the page's cytoscape instance."""
    return page.evaluate(f"() => {{ const cy = window.fabricCanvas.cy; return {expression}; }}")


def open_link_dialog(page):
    """Click the inspector's "Change media…" for the selected link and return the dialog.

    The inspector draws the link's panel after the selection: on a busy machine the first
    click can land on the panel it replaces, as a person's would; they click again. (Only after
    a long wait: the dialog opens once the ends' catalog facts are read, and a second click
    before that would open it again over what the test has typed.)"""
    dialog = page.get_by_role("dialog")
    for attempt in range(2):
        page.get_by_role("button", name="Change media…").click()
        try:
            expect(dialog).to_be_visible(timeout=15_000)
            return dialog
        except AssertionError:
            if attempt == 1:
                raise
    return dialog


def cy_run(page, statement: str) -> None:
    """Run ``statement`` with ``cy`` bound, returning nothing: a cytoscape collection (what
    ``select()`` returns) reaches the whole graph, and serialising it back takes seconds."""
    page.evaluate(f"() => {{ const cy = window.fabricCanvas.cy; {statement}; }}")


def device_ids(page) -> list[str]:
    return cy(page, "cy.nodes(\"[kind = 'device']\").map((n) => n.id()).sort()")


def link_count(page) -> int:
    return cy(page, "cy.edges(\"[kind = 'link']\").length")


def screen_point(page, element_id: str) -> dict:
    return page.evaluate(
        """(id) => {
            const cy = window.fabricCanvas.cy;
            const p = cy.getElementById(id).renderedPosition();
            const box = cy.container().getBoundingClientRect();
            return { x: box.left + p.x, y: box.top + p.y };
        }""",
        element_id,
    )


def drag(page, start: dict, end: dict, *, hold_ms: int = 0):
    page.mouse.move(start["x"], start["y"])
    page.mouse.down()
    for step in range(1, 11):
        page.mouse.move(
            start["x"] + (end["x"] - start["x"]) * step / 10,
            start["y"] + (end["y"] - start["y"]) * step / 10,
        )
    if hold_ms:
        page.wait_for_timeout(hold_ms)
    page.mouse.up()


def add_device(page, slug: str, role: str | None = None):
    if role:
        page.get_by_label("Add switches as").select_option(role)
    page.get_by_role("button", name=re.compile(rf"^Add {re.escape(slug)} \(")).click()


def draw_link(page, source_id: str, target_id: str):
    """Drag from one device to another in draw mode; the link dialog opens."""
    draw = page.get_by_role("button", name="Draw links")
    if draw.get_attribute("aria-pressed") != "true":
        draw.click()
    drag(page, screen_point(page, source_id), screen_point(page, target_id), hold_ms=300)
    dialog = page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    return dialog


def create_link(page, source_id: str, target_id: str):
    dialog = draw_link(page, source_id, target_id)
    media = dialog.get_by_role("radio")
    expect(media.first).to_be_checked()
    media.last.check()  # choose one of the compatible media explicitly
    dialog.get_by_role("button", name="Create link").click()
    expect(dialog).to_be_hidden()


DRAWN = {
    "nodes": [
        {"name": "server-1", "model": "DGX-H100", "role": "server", "x": 0, "y": 300},
        {"name": "server-2", "model": "DGX-H100", "role": "server", "x": 200, "y": 300},
        {"name": "leaf-1", "model": "QM9700", "role": "leaf", "x": 100, "y": 0},
    ],
    "links": [
        {"a": "server-1", "a_port": 1, "b": "leaf-1", "b_port": 1},
        {"a": "server-2", "a_port": 1, "b": "leaf-1", "b_port": 2},
    ],
}


@pytest.fixture
def drawn_design(live_catalog, browser_login, django_user_model):
    from planner.designs.services import design_create_drawn

    carol = django_user_model.objects.get(username="carol")
    return design_create_drawn(owner=carol, name="Drawn pod", document=DRAWN)


def moved(document: dict, name: str, dx: float) -> dict:
    nodes = [{**n, "x": n["x"] + dx} if n["name"] == name else n for n in document["nodes"]]
    return {**document, "nodes": nodes}


# --- tests --------------------------------------------------------------------------------------


def test_draw_a_fabric_by_hand_save_and_reload(live_catalog, browser_login, live_server):
    page = browser_login
    page.goto(f"{live_server.url}/designs/")
    page.get_by_role("link", name="Draw a new fabric").click()
    expect(page).to_have_url(re.compile(r"/designs/canvas/new/$"))
    wait_ready(page)
    expect(page.get_by_role("application", name="Fabric canvas")).to_be_visible()

    add_device(page, "DGX-H100")  # a click adds a device in the middle of the view
    add_device(page, "DGX-H100")
    # Leaves are dragged from the palette to a spot above the servers.
    page.get_by_label("Add switches as").select_option("leaf")
    leaf = page.get_by_role("button", name=re.compile(r"^Add QM9700 \("))
    leaf.drag_to(page.locator("#canvas-cy"), target_position={"x": 250, "y": 80})
    leaf.drag_to(page.locator("#canvas-cy"), target_position={"x": 600, "y": 80})
    assert device_ids(page) == ["node:leaf-1", "node:leaf-2", "node:server-1", "node:server-2"]
    page.get_by_role("button", name="Fit").click()

    create_link(page, "node:server-1", "node:leaf-1")
    create_link(page, "node:leaf-2", "node:server-1")  # drawn downwards: stored server -> leaf
    create_link(page, "node:server-2", "node:leaf-1")
    create_link(page, "node:server-2", "node:leaf-2")
    assert link_count(page) == 4
    ends = cy(page, "cy.edges().map((e) => [e.source().id(), e.data('a_port'), e.data('b_port')])")
    assert all(source.startswith("node:server-") for source, _, _ in ends)
    assert sorted((source, a_port) for source, a_port, _ in ends) == [
        ("node:server-1", 1),
        ("node:server-1", 2),
        ("node:server-2", 1),
        ("node:server-2", 2),
    ], "each new link takes the next free port"

    # The inspector shows a link's media and a device's ports.
    page.get_by_role("button", name="Draw links").click()  # back to select mode
    point = screen_point(page, "node:leaf-1")
    page.mouse.click(point["x"], point["y"])
    inspector = page.locator("[data-c='inspector']")
    expect(inspector).to_contain_text("QM9700")
    expect(inspector).to_contain_text("2 of 64")

    page.get_by_label("Design name").fill("Lab pod by hand")
    expect(page.locator("[data-canvas]")).to_have_attribute("data-dirty", "true")
    page.get_by_role("button", name="Save").click()
    expect(page).to_have_url(re.compile(r"/designs/\d+/canvas/"))
    expect(page.locator("[data-c='revision']")).to_have_text("revision 1")
    expect(page.locator("[data-canvas]")).to_have_attribute("data-dirty", "false")
    keep_screenshot(page, "canvas_hand_drawn")

    page.reload()
    wait_ready(page)
    assert device_ids(page) == ["node:leaf-1", "node:leaf-2", "node:server-1", "node:server-2"]
    assert link_count(page) == 4
    expect(page.locator("[data-canvas]")).to_have_attribute("data-editable", "true")
    page.get_by_label("Find device").fill("leaf-2")
    page.get_by_label("Find device").press("Enter")
    assert cy(page, "cy.$(':selected').map((e) => e.id())") == ["node:leaf-2"]

    # Change a saved link's media from the inspector; undo puts it back.
    link = cy(page, "cy.edges()[0].id()")
    cable = cy(page, f"cy.getElementById('{link}').data('cable')")
    cy_run(page, "cy.$(':selected').unselect()")
    cy_run(page, f"cy.getElementById('{link}').select()")
    dialog = open_link_dialog(page)
    # The link's current media is the choice checked (not always the first one offered).
    expect(dialog.locator("input[name=link-media]:checked")).to_have_count(1)
    dialog.get_by_label("Length (m)").fill("20")
    expect(dialog).to_contain_text("compatible choice")
    dialog.get_by_role("button", name="Change link").click()
    assert cy(page, f"cy.getElementById('{link}').data('length_m')") == 20
    expect(page.locator("[data-canvas]")).to_have_attribute("data-dirty", "true")
    page.get_by_role("button", name="Undo").click()
    assert cy(page, f"cy.getElementById('{link}').data('cable')") == cable
    expect(page.locator("[data-canvas]")).to_have_attribute("data-dirty", "false")


def test_undo_restores_a_moved_device(live_catalog, browser_login, live_server):
    page = browser_login
    page.goto(f"{live_server.url}/designs/canvas/new/")
    wait_ready(page)
    add_device(page, "QM9700", role="spine")
    before = cy(page, "cy.getElementById('node:spine-1').position()")
    start = screen_point(page, "node:spine-1")
    drag(page, start, {"x": start["x"] + 160, "y": start["y"] + 90})
    moved = cy(page, "cy.getElementById('node:spine-1').position()")
    assert abs(moved["x"] - before["x"]) > 50 and abs(moved["y"] - before["y"]) > 30

    page.locator("#canvas-cy").focus()
    page.keyboard.press("Control+z")
    restored = cy(page, "cy.getElementById('node:spine-1').position()")
    assert restored == pytest.approx(before, abs=0.5)
    page.keyboard.press("Control+y")
    assert cy(page, "cy.getElementById('node:spine-1').position()") == pytest.approx(moved, abs=0.5)
    # Undo twice more: the move, then the device itself.
    page.get_by_role("button", name="Undo").click()
    page.get_by_role("button", name="Undo").click()
    assert device_ids(page) == []

    # Copy and paste with the keyboard; Delete removes the selection.
    page.get_by_role("button", name="Redo").click()
    cy_run(page, "cy.getElementById('node:spine-1').select()")
    page.locator("#canvas-cy").focus()
    page.keyboard.press("Control+c")
    page.keyboard.press("Control+v")
    assert device_ids(page) == ["node:spine-1", "node:spine-2"]
    assert cy(page, "cy.$(':selected').map((e) => e.id())") == ["node:spine-2"]
    page.keyboard.press("Delete")
    assert device_ids(page) == ["node:spine-1"]


def test_incompatible_link_is_refused_with_the_reason(live_catalog, browser_login, live_server):
    page = browser_login
    page.goto(f"{live_server.url}/designs/canvas/new/")
    wait_ready(page)
    add_device(page, "DGX-H100")
    add_device(page, "Q3400-RA", role="leaf")
    dialog = draw_link(page, "node:server-1", "node:leaf-1")
    refusal = dialog.locator("[data-c='link-refusal']")
    expect(refusal).to_be_visible()
    expect(refusal).to_contain_text("OSFP224")
    expect(dialog).to_contain_text("No compatible media")
    expect(dialog.get_by_role("button", name="Create link")).to_be_disabled()
    keep_screenshot(page, "canvas_link_refused")
    dialog.get_by_role("button", name="Cancel").click()
    expect(dialog).to_be_hidden()
    assert link_count(page) == 0

    # Two servers are never linked directly: refused before asking the server.
    add_device(page, "DGX-H100")
    dialog = draw_link(page, "node:server-1", "node:server-2")
    expect(dialog.locator("[data-c='link-refusal']")).to_contain_text("Two servers")
    page.keyboard.press("Escape")
    assert link_count(page) == 0


def test_generated_design_scopes_groups_and_export(
    live_catalog, browser_login, live_server, django_user_model, tmp_path
):
    from planner.designs.services import design_create
    from planner.domain.presets import preset_get

    carol = django_user_model.objects.get(username="carol")
    design = design_create(owner=carol, spec_document=preset_get("h100-superpod-4su").spec)
    page = browser_login
    page.goto(f"{live_server.url}/designs/{design.pk}/")
    page.get_by_role("link", name="Canvas").click()
    expect(page).to_have_url(re.compile(rf"/designs/{design.pk}/canvas/"))
    wait_ready(page)
    canvas = page.locator("[data-canvas]")

    # A design of this size opens on the overview; the whole fabric is editable: rename a leaf
    # and save.
    expect(canvas).to_have_attribute("data-view", "overview")
    page.get_by_label("View", exact=True).select_option("all")
    expect(canvas).to_have_attribute("data-scope", "all")
    wait_ready(page)
    expect(canvas).to_have_attribute("data-editable", "true")
    page.get_by_label("Find device").fill("leaf-su001-r1")
    page.get_by_label("Find device").press("Enter")
    page.get_by_label("Name", exact=True).fill("leaf-a")
    page.get_by_role("button", name="Rename").click()
    page.get_by_label("Revision message").fill("Renamed a leaf")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("[data-c='revision']")).to_have_text("revision 2")
    # The saved revision is drawn (in place) once the status says so.
    expect(page.locator("[data-c='status']")).to_contain_text("Saved revision 2.")
    assert cy(page, "cy.getElementById('node:leaf-a').data('su')") == 1, "structure kept"

    # The overview: aggregates joined by bundles labelled with links and bandwidth.
    view = page.get_by_label("View", exact=True)
    expect(view.locator("option", has_text="SU 1")).to_have_count(1)
    view.select_option("overview")
    expect(canvas).to_have_attribute("data-view", "overview")
    assert cy(page, "cy.nodes(\"[kind = 'aggregate']\").length") >= 4
    labels = cy(page, "cy.edges(\"[kind = 'bundle']\").map((e) => e.data('label'))")
    assert any(re.search(r"\d+ × 400G · [\d.]+ Tb/s", label) for label in labels), labels
    keep_screenshot(page, "canvas_overview")

    # Double-click an SU's servers to drill down; the breadcrumb leads back.
    aggregate = cy(page, "cy.nodes(\"[kind = 'aggregate'][scope = 'su:2']\")[0].id()")
    point = screen_point(page, aggregate)
    page.mouse.dblclick(point["x"], point["y"])
    expect(canvas).to_have_attribute("data-scope", "su:2")
    expect(canvas).to_have_attribute("data-editable", "false")
    expect(page.get_by_role("navigation", name="Canvas view")).to_contain_text("SU 2")

    assert cy(page, "cy.nodes(\"[kind = 'group']\").length") > 1
    devices = len(device_ids(page))
    page.get_by_role("button", name="Collapse all").click()
    assert cy(page, "cy.nodes('.cy-expand-collapse-collapsed-node').length") >= 1
    assert len(device_ids(page)) < devices
    keep_screenshot(page, "canvas_collapsed")
    page.get_by_role("button", name="Expand all").click()
    assert cy(page, "cy.nodes('.cy-expand-collapse-collapsed-node').length") == 0
    assert len(device_ids(page)) == devices

    # One group at a time, from the inspector.
    collapsed = "cy.getElementById('group:rail:1').hasClass('cy-expand-collapse-collapsed-node')"
    cy_run(page, "cy.getElementById('group:rail:1').select()")
    page.get_by_role("button", name="Collapse group").click()
    assert cy(page, collapsed)
    page.get_by_role("button", name="Expand group").click()
    assert not cy(page, collapsed)
    keep_screenshot(page, "canvas_su")

    with page.expect_download() as download:
        page.get_by_role("button", name="Export PNG").click()
    assert download.value.suggested_filename == f"design-{design.pk}-r2-su-2.png"
    png = tmp_path / "view.png"
    download.value.save_as(png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5_000
    with page.expect_download() as download:
        page.get_by_role("button", name="Export SVG").click()
    svg = tmp_path / "view.svg"
    download.value.save_as(svg)
    assert "<svg" in svg.read_text()[:500]

    crumbs = page.get_by_role("navigation", name="Canvas view")
    crumbs.get_by_role("button", name="Overview").click()
    expect(canvas).to_have_attribute("data-view", "overview")


def test_save_conflict_keep_mine_or_reload(drawn_design, browser_login, live_server):
    from planner.designs.services import design_edit_topology

    design, carol = drawn_design, drawn_design.owner
    page = browser_login
    page.goto(f"{live_server.url}/designs/{design.pk}/canvas/")
    wait_ready(page)
    canvas = page.locator("[data-canvas]")
    expect(canvas).to_have_attribute("data-editable", "true")
    assert link_count(page) == 2

    # Someone saves revision 2 while this page still shows revision 1.
    design_edit_topology(
        design=design, user=carol, document=moved(DRAWN, "leaf-1", 50), base_revision=1
    )
    start = screen_point(page, "node:server-2")
    drag(page, start, {"x": start["x"] + 80, "y": start["y"] + 40})
    expect(canvas).to_have_attribute("data-dirty", "true")
    page.get_by_role("button", name="Save").click()
    conflict = page.locator("[data-c='conflict']")
    expect(conflict).to_be_visible()
    expect(conflict).to_contain_text("the latest is 2")
    keep_screenshot(page, "canvas_conflict")
    conflict.get_by_role("button", name="Keep mine (save on top of revision 2)").click()
    expect(page.locator("[data-c='revision']")).to_have_text("revision 3")
    expect(conflict).to_be_hidden()
    assert design.revisions.count() == 3

    # Again, but this time discard the drawing and load the latest revision.
    design_edit_topology(
        design=design, user=carol, document=moved(DRAWN, "leaf-1", 90), base_revision=3
    )
    start = screen_point(page, "node:server-1")
    drag(page, start, {"x": start["x"] - 60, "y": start["y"] + 30})
    page.get_by_role("button", name="Save").click()
    conflict.get_by_role("button", name="Reload").click()
    expect(page.locator("[data-c='revision']")).to_have_text("revision 4")
    expect(canvas).to_have_attribute("data-dirty", "false")
    assert cy(page, "cy.getElementById('node:leaf-1').position().x") == pytest.approx(190)
    assert design.revisions.count() == 4


def test_overlays_problems_and_utilization(drawn_design, browser_login, live_server):
    design = drawn_design
    page = browser_login
    # Finished job rows as the validate and simulate jobs leave them: the real overlays
    # endpoint serves them to the canvas (the utilization job kind arrives with the flow
    # simulator; its result key is part of the overlay contract already).
    from django.utils import timezone

    from simulation.models import Job

    revision = design.revisions.get(number=1)
    for kind, result in (
        (
            "validate",
            {
                "problems": [
                    {
                        "code": "rack-power",
                        "severity": "warning",
                        "message": "leaf-1 has no rack power budget left",
                        "element_ids": ["node:leaf-1"],
                    }
                ]
            },
        ),
        ("power", {"link_utilization": {"link:0": 0.95, "link:1": 0.1}, "racks": []}),
    ):
        Job.objects.create(
            owner=design.owner,
            kind=kind,
            design_revision=revision,
            parameters={"design": design.pk, "revision": 1},
            input_hash=f"overlay-{kind}",
            status="succeeded",
            result=result,
            finished=timezone.now(),
        )
    page.goto(f"{live_server.url}/designs/{design.pk}/canvas/")
    wait_ready(page)
    page.get_by_role("checkbox", name="Problems").check()
    problems = page.get_by_role("region", name="Problems")
    problems.get_by_role("button", name=re.compile("no rack power budget")).click()
    assert cy(page, "cy.$(':selected').map((e) => e.id())") == ["node:leaf-1"]
    assert cy(page, "cy.getElementById('node:leaf-1').hasClass('problem')")

    page.get_by_role("checkbox", name="Link utilization").check()
    legend = page.locator("[data-c='legend']")
    expect(legend).to_contain_text("Link utilization")
    hot = cy(page, "cy.getElementById('link:0').data('heat')")
    cool = cy(page, "cy.getElementById('link:1').data('heat')")
    assert int(hot[1:3], 16) > int(hot[3:5], 16), "95 % is red"
    assert int(cool[3:5], 16) > int(cool[1:3], 16), "10 % is green"
    keep_screenshot(page, "canvas_overlays")
    page.get_by_role("checkbox", name="Link utilization").uncheck()
    assert cy(page, "cy.edges('.heat').length") == 0
    expect(legend).to_be_hidden()
