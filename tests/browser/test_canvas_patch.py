"""Issue 37 item 8 in Chromium: the canvas saves an edit as what it changed. On the 1 SU H100
SuperPOD, a link deleted in the middle of the fabric and a device moved each go to the server
as a PATCH of a few hundred bytes (not the fabric), the canvas draws what the answer says
changed in place (no reload of the view), and the drawing it then shows is the one a fresh
load of the saved revision shows: same ids, ends, ports and data, edit after edit on the same
page (a link deleted from the links renumbered in place). Each revision changes only what the
edit touched."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.test_canvas import drag, live_catalog, screen_point, wait_ready  # noqa: F401

DRAWING = """() => {
  const cy = window.fabricCanvas.cy;
  const out = {};
  cy.nodes("[kind = 'device']").forEach((n) => {
    const d = n.data();
    out[n.id()] = [d.name, d.ports_used, d.su, d.rack, d.parent ?? null,
                   Math.round(n.position().x * 10) / 10, Math.round(n.position().y * 10) / 10];
  });
  cy.edges("[kind = 'link']").forEach((e) => {
    const d = e.data();
    out[e.id()] = [d.source, d.target, d.a_port, d.b_port, d.speed_gbps, d.a_part, d.b_part,
                   d.cable, d.length_m, d.tier];
  });
  return out;
}"""


VISIBLE_DEVICE = """() => {
  const cy = window.fabricCanvas.cy;
  const box = cy.container().getBoundingClientRect();
  const inside = cy.nodes("[kind = 'device']").filter((n) => {
    const p = n.renderedPosition();
    return p.x > 60 && p.y > 60 && p.x < box.width - 60 && p.y < box.height - 60;
  });
  return inside.length ? inside[Math.floor(inside.length / 2)].data("name") : null;
}"""


def _requests(page) -> list:
    """The canvas's requests to its design's API from now on: (method, path, body size)."""
    seen = []

    def record(request):
        if "/api/planner/designs/" in request.url:
            seen.append((request.method, request.url, len(request.post_data or "")))

    page.on("request", record)
    return seen


def _reads_of_the_fabric(seen) -> list:
    return [s for s in seen if s[0] == "GET" and ("/canvas/" in s[1] or "/topology/" in s[1])]


def _saved_revision(page, number: int) -> None:
    canvas = page.locator("[data-canvas]")
    expect(page.locator('[data-c="revision"]')).to_have_text(f"revision {number}")
    expect(canvas).to_have_attribute("data-save-status", "idle")
    expect(canvas).to_have_attribute("data-edit-base", str(number))


def _fresh(page, url: str) -> dict:
    page.goto(url)
    wait_ready(page)
    return page.evaluate(DRAWING)


def _fresh_elsewhere(page, url: str) -> dict:
    """The drawing a fresh load of the latest revision shows, in another tab (this one keeps
    its drawing, renumbered in place, for the next edit)."""
    other = page.context.new_page()
    try:
        return _fresh(other, url)
    finally:
        other.close()


def test_an_edit_is_saved_as_what_it_changed_and_drawn_in_place(
    live_catalog,  # noqa: F811
    browser_login,
    live_server,
    django_user_model,
):
    from planner.designs.selectors import revision_topology
    from planner.designs.services import design_create
    from planner.domain.presets import preset_get

    carol = django_user_model.objects.get(username="carol")
    design = design_create(owner=carol, spec_document=preset_get("h100-superpod-1su").spec)
    url = f"{live_server.url}/designs/{design.pk}/canvas/?view=detail&scope=all"
    page = browser_login
    page.goto(url)
    wait_ready(page)
    expect(page.locator("[data-canvas]")).to_have_attribute("data-edit-base", "1")
    seen = _requests(page)

    # 1. A device moved: one PATCH, one node changed, the others where they were.
    name = page.evaluate(VISIBLE_DEVICE)
    start = screen_point(page, f"node:{name}")
    drag(page, start, {"x": start["x"] + 40, "y": start["y"] + 25})
    expect(page.locator("[data-canvas]")).to_have_attribute("data-dirty", "true")
    page.get_by_role("button", name="Save", exact=True).click()
    _saved_revision(page, 2)
    writes = [(method, size) for method, url_, size in seen if url_.endswith("/topology/")]
    assert [method for method, _ in writes] == ["PATCH"] and writes[0][1] < 400, seen
    assert _reads_of_the_fabric(seen) == []  # nothing loaded again
    first, second = (revision_topology(design.revisions.get(number=n)) for n in (1, 2))
    changed = [n["name"] for n, m in zip(first["nodes"], second["nodes"], strict=True) if n != m]
    assert changed == [name]
    assert second["links"] == first["links"]
    assert page.evaluate(DRAWING) == _fresh_elsewhere(page, url)  # as revision 2 loads

    # 2. A link in the middle deleted: the server asks first, then stores it.
    expect(page.locator("[data-canvas]")).to_have_attribute("data-edit-base", "2")
    seen.clear()
    links = page.evaluate("() => window.fabricCanvas.cy.edges(\"[kind = 'link']\").length")
    middle = links // 2
    page.evaluate(f"() => {{ window.fabricCanvas.cy.getElementById('link:{middle}').select(); }}")
    page.locator("#canvas-cy").focus()
    page.keyboard.press("Delete")
    page.get_by_role("button", name="Save", exact=True).click()
    page.get_by_role("button", name="Save anyway").click()
    _saved_revision(page, 3)
    writes = [(method, size) for method, url_, size in seen if url_.endswith("/topology/")]
    assert [method for method, _ in writes] == ["PATCH", "PATCH"], seen
    assert all(size < 400 for _, size in writes), writes  # the edit, not 500 links
    assert _reads_of_the_fabric(seen) == []
    spent = page.evaluate("() => window.fabricCanvas.state.saveTimings")
    assert spent["patch"] == 1 and spent["renumbered"] == links - middle - 1
    third = revision_topology(design.revisions.get(number=3))
    assert third["nodes"] == second["nodes"]
    assert third["links"] == second["links"][:middle] + second["links"][middle + 1 :]
    assert page.evaluate(DRAWING) == _fresh_elsewhere(page, url)

    # 3. On the drawing renumbered in place: the link now numbered `middle` (it was the next
    # one) deleted and saved, as a fresh load would have it.
    page.evaluate(f"() => {{ window.fabricCanvas.cy.getElementById('link:{middle}').select(); }}")
    page.locator("#canvas-cy").focus()
    page.keyboard.press("Delete")
    page.get_by_role("button", name="Save", exact=True).click()
    page.get_by_role("button", name="Save anyway").click()
    _saved_revision(page, 4)
    fourth = revision_topology(design.revisions.get(number=4))
    assert fourth["links"] == third["links"][:middle] + third["links"][middle + 1 :]
    assert page.evaluate(DRAWING) == _fresh_elsewhere(page, url)
