"""The canvas of a cluster design (issue 18): the 4 SU H100 SuperPOD with storage, in-band
and OOB networks (planner/domain/examples/h100-superpod-4su-cluster.yaml) shows a Networks
control with one checkbox per layer it has; switching a layer off hides exactly what the
API says that layer alone shows (its devices and links), in place, without a new request,
and the choice holds in the next view; a network device's inspector names its network."""

from pathlib import Path

import pytest
from playwright.sync_api import expect

from planner.designs.services import design_create

EXAMPLE = (
    Path(__file__).resolve().parents[2]
    / "planner"
    / "domain"
    / "examples"
    / "h100-superpod-4su-cluster.yaml"
)


@pytest.fixture
def live_catalog(transactional_db, seed_catalog):
    return seed_catalog


def cy(page, expression: str):
    return page.evaluate(f"() => {{ const cy = window.fabricCanvas.cy; return {expression}; }}")


VISIBLE = "cy.elements(':visible').length"


def wait_visible(page, count: int) -> None:
    page.wait_for_function(
        f"() => window.fabricCanvas.cy.elements(':visible').length === {count}", timeout=5000
    )


def test_network_layers_toggle_in_place(
    live_catalog, browser_login, live_server, django_user_model
):
    carol = django_user_model.objects.get(username="carol")
    design = design_create(owner=carol, spec_document=EXAMPLE.read_text())
    page = browser_login
    canvas_requests = []
    page.on(
        "request",
        lambda r: "/canvas/" in r.url and "/api/" in r.url and canvas_requests.append(r.url),
    )
    page.goto(f"{live_server.url}/designs/{design.pk}/canvas/?view=detail&scope=all")
    expect(page.locator("[data-canvas]")).to_have_attribute("data-state", "ready")

    networks = page.get_by_role("group", name="Networks")
    expect(networks).to_be_visible()
    boxes = networks.get_by_role("checkbox")
    expect(boxes).to_have_count(4)
    for name in ("Compute", "Storage", "In-band", "OOB"):
        expect(networks.get_by_role("checkbox", name=name, exact=True)).to_be_checked()
    expect(networks.get_by_role("checkbox", name="Converged")).to_have_count(0)

    layers = page.evaluate("() => window.fabricCanvas.state.counts.layers")
    total = page.evaluate("() => window.fabricCanvas.state.counts.elements")
    assert cy(page, VISIBLE) == total
    assert cy(page, "cy.edges(\"[network = 'storage']\").length") == layers["storage"]["edges"] > 0
    requests_before = len(canvas_requests)

    # Storage off: its devices and links go, the servers stay (compute still shows them).
    storage = networks.get_by_role("checkbox", name="Storage", exact=True)
    storage.uncheck()
    hidden = layers["storage"]["nodes"] + layers["storage"]["edges"]
    wait_visible(page, total - hidden)
    assert cy(page, "cy.edges(\"[network = 'storage']:visible\").length") == 0
    assert cy(page, "cy.nodes(\"[role = 'server']:visible\").length") == 127
    expect(page.locator("[data-c='status']")).to_contain_text("Storage hidden")
    storage.check()
    wait_visible(page, total)

    # OOB off by keyboard: the OOB switches and their managed-port bundles go.
    oob = networks.get_by_role("checkbox", name="OOB", exact=True)
    oob.focus()
    page.keyboard.press("Space")
    expect(oob).not_to_be_checked()
    wait_visible(page, total - layers["oob"]["nodes"] - layers["oob"]["edges"])
    assert cy(page, "cy.edges(\"[kind = 'network-bundle'][network = 'oob']:visible\").length") == 0
    assert len(canvas_requests) == requests_before  # toggles never re-fetch

    # A storage switch in the inspector: model, role, network, rack and its links.
    page.get_by_label("Find device").fill("stor-leaf-01")
    page.get_by_label("Find device").press("Enter")
    inspector = page.locator("[data-c='inspector']")
    expect(inspector.get_by_role("heading", name="stor-leaf-01")).to_be_visible()
    expect(inspector).to_contain_text("QM9700")
    expect(inspector).to_contain_text("Storage")
    expect(inspector).to_contain_text("Links by network")

    # The choice holds in the overview: OOB stays hidden there.
    page.get_by_label("View", exact=True).select_option("overview")
    expect(page.locator("[data-canvas]")).to_have_attribute("data-view", "overview")
    page.wait_for_function("() => window.fabricCanvas.state.counts.elements < 1000")
    assert cy(page, "cy.nodes(\"[network = 'oob']\").length") > 0
    assert cy(page, "cy.nodes(\"[network = 'oob']:visible\").length") == 0
    expect(oob).not_to_be_checked()
