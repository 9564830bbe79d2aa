"""Catalog governance through the API and the pages: reads for everyone signed in, writes for
catalog editors (403 otherwise, on every route), team price books, audited history, a used part
refused on delete (409) and archived instead, with the old revision still reading, exporting
and pricing."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from inventory.api.urls import ROUTES
from inventory.models import CATEGORY_MODELS, Manufacturer, Price, PriceBook, ServerModel
from inventory.services import SEED_PRICE_BOOK
from planner.audit.models import AuditEvent
from planner.designs.services import design_create
from planner.quotes.services import quote_create
from planner.teams.models import Team, TeamMembership
from tests.conftest import grant_catalog_editor
from tests.factories import TINY_SPEC

WRITES = ("POST", "PUT", "PATCH", "DELETE")


@pytest.fixture
def people(seed_catalog, django_user_model):
    """Plain user Nora; team Alpha: owner Olga (price right), viewer Vic (price right), editor
    Eve; team Beta: owner Bea (price right); catalog editor Ed; staff Stu."""

    def make(name, **extra):
        return django_user_model.objects.create_user(
            username=name, password=f"pw-{name}-123!", **extra
        )

    users = {name: make(name) for name in ("nora", "olga", "vic", "eve", "bea")}
    users["ed"] = grant_catalog_editor(make("ed"))
    users["stu"] = make("stu", is_staff=True)
    alpha = Team.objects.create(name="Alpha", slug="alpha")
    beta = Team.objects.create(name="Beta", slug="beta")
    for team, name, role, prices in (
        (alpha, "olga", "owner", True),
        (alpha, "vic", "viewer", True),
        (alpha, "eve", "editor", False),
        (beta, "bea", "owner", True),
    ):
        TeamMembership.objects.create(
            team=team, user=users[name], role=role, can_view_prices=prices
        )
    alpha_book = PriceBook.objects.create(slug="alpha-deal", name="Alpha deal", team=alpha)
    Price.objects.create(
        book=alpha_book, part_category="switch", part_slug="QM9700", price=1234, currency="USD"
    )
    return {**users, "alpha": alpha, "beta": beta, "alpha_book": alpha_book}


def api(user) -> APIClient:
    client = APIClient(raise_request_exception=False)
    client.force_authenticate(user)
    return client


def page(user) -> Client:
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client


def _catalog_state() -> tuple:
    parts = tuple(
        (category, model.objects.count(), str(model.objects.order_by("-updated")[0].updated))
        for category, model in CATEGORY_MODELS.items()
        if model.objects.exists()
    )
    return (
        parts,
        Manufacturer.objects.count(),
        PriceBook.objects.count(),
        tuple(Price.objects.order_by("pk").values_list("pk", "price")),
    )


def _api_write_urls() -> list[tuple[str, str]]:
    """Every catalog write: (method, url) on lists and details of every route."""
    urls = [("POST", "/api/inventory/manufacturers/")]
    urls += [(m, "/api/inventory/manufacturers/nvidia/") for m in ("PUT", "PATCH", "DELETE")]
    for route in ROUTES.values():
        slug = {"servers": "DGX-H100", "switches": "QM9700"}.get(route)
        if slug is None:
            model = CATEGORY_MODELS[next(c for c, r in ROUTES.items() if r == route)]
            slug = model.objects.order_by("slug").values_list("slug", flat=True)[0]
        urls.append(("POST", f"/api/inventory/{route}/"))
        urls += [(m, f"/api/inventory/{route}/{slug}/") for m in ("PUT", "PATCH", "DELETE")]
        urls += [("POST", f"/api/inventory/{route}/{slug}/{a}/") for a in ("archive", "unarchive")]
    for slug in (SEED_PRICE_BOOK, "alpha-deal"):
        urls += [(m, f"/api/inventory/price-books/{slug}/") for m in ("PUT", "PATCH", "DELETE")]
    urls.append(("POST", "/api/inventory/price-books/"))
    offer = Price.objects.filter(book__slug=SEED_PRICE_BOOK).order_by("pk").first()
    urls.append(("POST", "/api/inventory/prices/"))
    urls += [(m, f"/api/inventory/prices/{offer.pk}/") for m in ("PUT", "PATCH", "DELETE")]
    return urls


BODY = {
    "slug": "NEW-THING",
    "name": "New",
    "manufacturer": "nvidia",
    "price": "1.00",
    "book": SEED_PRICE_BOOK,
    "part_category": "switch",
    "part_slug": "QM9700",
    "currency": "USD",
}


@pytest.mark.parametrize("who", ["nora", "vic", "eve"])
def test_non_editors_get_403_on_every_catalog_api_write(people, who):
    client = api(people[who])
    before = _catalog_state()
    failures = []
    for method, url in _api_write_urls():
        response = client.generic(method, url, _json(BODY), content_type="application/json")
        # A team book they may not read is invisible (404); everything else is 403.
        allowed = {403, 404} if "alpha-deal" in url else {403}
        if response.status_code not in allowed:
            failures.append(f"{method} {url} -> {response.status_code} {response.content[:120]}")
    assert not failures, "\n".join(failures)
    assert _catalog_state() == before
    # (the seed load's import wrote each part's creation, as the system: actor None)
    assert not AuditEvent.objects.filter(action__startswith="catalog.", actor__isnull=False)
    assert not AuditEvent.objects.filter(action="price.changed").exists()
    # reading stays open
    assert client.get("/api/inventory/servers/DGX-H100/").status_code == 200
    assert client.get("/api/inventory/servers/DGX-H100/history/").status_code == 200


def _json(body):
    import json

    return json.dumps(body)


def test_non_editors_get_403_on_every_catalog_page_write(people):
    client = page(people["vic"])  # a team viewer with the price right
    before = _catalog_state()
    pages = [
        "/catalog/switch/new/",
        "/catalog/switch/QM9700/edit/",
        "/catalog/switch/QM9700/delete/",
    ]
    for url in pages:
        for method in ("GET", "POST"):
            response = client.generic(method, url, "", "application/x-www-form-urlencoded")
            assert response.status_code == 403, (method, url)
            assert b"catalog-editor permission" in response.content
    for url in ("/catalog/switch/QM9700/archive/", "/catalog/switch/QM9700/unarchive/"):
        assert client.post(url).status_code == 403
    assert client.post("/catalog/transfer/", {"form": "csv"}).status_code == 403
    upload = client.post(f"/catalog/price-books/{SEED_PRICE_BOOK}/", {"file": ""})
    assert upload.status_code == 403
    assert _catalog_state() == before
    # the buttons are not shown
    detail = client.get("/catalog/switch/QM9700/").content.decode()
    assert "/catalog/switch/QM9700/history/" in detail
    for action in ("edit", "delete", "archive"):
        assert f"/catalog/switch/QM9700/{action}/" not in detail
    assert "/catalog/switch/new/" not in client.get("/catalog/switch/").content.decode()
    transfer = client.get("/catalog/transfer/").content.decode()
    assert 'data-testid="editors-only"' in transfer and 'name="csv-file"' not in transfer
    book = client.get(f"/catalog/price-books/{SEED_PRICE_BOOK}/").content.decode()
    assert "Replace prices from a CSV" not in book


@pytest.mark.parametrize("who", ["ed", "stu"])
def test_editors_change_the_catalog_and_the_history_shows_old_and_new(people, who):
    client = api(people[who])
    patched = client.patch(
        "/api/inventory/switches/QM9700/", {"power_typical_w": 700}, format="json"
    )
    assert patched.status_code == 200, patched.content
    history = client.get("/api/inventory/switches/QM9700/history/").json()
    assert history[0]["action"] == "catalog.changed" and history[0]["actor"] == who
    assert history[0]["details"]["fields"]["power_typical_w"] == {"old": 747, "new": 700}
    # everyone signed in reads it, on the page too
    html = page(people["nora"]).get("/catalog/switch/QM9700/history/").content.decode()
    assert "power_typical_w" in html and "747" in html and "700" in html and who in html
    created = client.post(
        "/api/inventory/manufacturers/", {"slug": "acme", "name": "ACME"}, format="json"
    )
    assert created.status_code == 201
    assert client.delete("/api/inventory/manufacturers/acme/").status_code == 204
    assert client.delete("/api/inventory/manufacturers/nvidia/").status_code == 409
    offer = Price.objects.filter(book__slug=SEED_PRICE_BOOK, part_slug="QM9700").first()
    changed = client.patch(f"/api/inventory/prices/{offer.pk}/", {"price": "1.00"}, format="json")
    assert changed.status_code == 200, changed.content
    event = AuditEvent.objects.get(action="price.changed", object_ref=str(offer.pk))
    assert event.details["fields"]["price"] == {"old": f"{offer.price:.2f}", "new": "1.00"}
    # price events stay with the price right; catalog events are everyone's
    nora = api(people["nora"]).get("/api/planner/audit/").json()["results"]
    assert {e["action"] for e in nora} >= {"catalog.changed", "catalog.deleted"}
    assert "price.changed" not in {e["action"] for e in nora}


def test_team_books_follow_the_team(people):
    url = "/api/inventory/price-books/alpha-deal/"
    offer = Price.objects.get(book=people["alpha_book"])
    # the owner with the price right changes the book and its offers
    assert api(people["olga"]).patch(url, {"name": "Alpha 2027"}, format="json").status_code == 200
    response = api(people["olga"]).patch(
        f"/api/inventory/prices/{offer.pk}/", {"price": "999.00"}, format="json"
    )
    assert response.status_code == 200
    new_offer = api(people["olga"]).post(
        "/api/inventory/prices/",
        {**BODY, "book": "alpha-deal", "price": "5.00"},
        format="json",
    )
    assert new_offer.status_code == 201, new_offer.content
    # but not the public book, nor move an offer into it
    public = f"/api/inventory/price-books/{SEED_PRICE_BOOK}/"
    assert api(people["olga"]).patch(public, {"name": "x"}, format="json").status_code == 403
    assert (
        api(people["olga"]).post("/api/inventory/prices/", BODY, format="json").status_code == 403
    )
    # a viewer of the team reads it but may not change it
    vic = api(people["vic"])
    assert vic.get(url).status_code == 200
    assert vic.patch(url, {"name": "x"}, format="json").status_code == 403
    # another team's owner does not see it, its prices or its events
    bea = api(people["bea"])
    assert bea.get(url).status_code == 404
    assert bea.patch(url, {"name": "x"}, format="json").status_code in {403, 404}
    slugs = {b["slug"] for b in bea.get("/api/inventory/price-books/").json()["results"]}
    assert slugs == {SEED_PRICE_BOOK}
    prices = bea.get("/api/inventory/prices/?part_slug=QM9700").json()["results"]
    assert {p["book"] for p in prices} == {SEED_PRICE_BOOK}
    assert b"999" not in page(people["bea"]).get("/catalog/switch/QM9700/").content
    assert not [
        e
        for e in bea.get("/api/planner/audit/").json()["results"]
        if e["action"] == "price.changed"
    ]
    assert people["alpha_book"].team == people["alpha"]
    assert PriceBook.objects.get(slug=SEED_PRICE_BOOK).team is None  # the seed stays public


def test_quotes_pick_only_books_the_user_may_read(people):
    design = design_create(
        owner=people["bea"], spec_document=TINY_SPEC, team=people["beta"], sharing="team-edit"
    )
    url = f"/api/planner/designs/{design.pk}/quotes/"
    refused = api(people["bea"]).post(
        url, {"customer": "X", "price_book": "alpha-deal"}, format="json"
    )
    assert refused.status_code == 400 and "price_book" in refused.json()
    ok = api(people["bea"]).post(
        url, {"customer": "X", "price_book": SEED_PRICE_BOOK}, format="json"
    )
    assert ok.status_code == 201, ok.content


@pytest.fixture
def used(people):
    """A design of Olga's using DGX-H100 and QM9700 (revision 1), with a quote."""
    design = design_create(owner=people["olga"], spec_document=TINY_SPEC)
    book = PriceBook.objects.get(slug=SEED_PRICE_BOOK)
    quote = quote_create(design=design, actor=people["olga"], customer="Acme", price_book=book)
    return design, quote


def test_deleting_a_used_part_is_409_and_deletes_nothing(people, used):
    before = _catalog_state()
    response = api(people["ed"]).delete("/api/inventory/servers/DGX-H100/")
    assert response.status_code == 409
    body = response.json()
    assert "1 revision of 1 design" in body["detail"] and "archive" in body["detail"]
    assert body["in_use"] == 1
    html = page(people["ed"]).post("/catalog/server/DGX-H100/delete/")
    assert html.status_code == 409
    text = html.content.decode()
    assert 'data-testid="part-in-use"' in text and "1 revision" in text and "Archive" in text
    assert _catalog_state() == before
    assert ServerModel.objects.filter(slug="DGX-H100").exists()
    assert not AuditEvent.objects.filter(action="catalog.deleted").exists()


def test_archived_part_old_revision_reads_exports_prices_new_design_refused(people, used):
    design, quote = used
    before = _catalog_state()
    archived = api(people["ed"]).post("/api/inventory/servers/DGX-H100/archive/")
    assert archived.status_code == 200 and archived.json()["archived"] is True
    assert ServerModel.objects.filter(slug="DGX-H100", archived=True).exists()
    # nothing deleted: only the archived flag (and its timestamp) changed
    assert _catalog_state()[1:] == before[1:]
    olga = api(people["olga"])
    base = f"/api/planner/designs/{design.pk}"
    assert olga.get(f"{base}/revisions/1/").status_code == 200
    bom = olga.get(f"{base}/revisions/1/bom/")
    assert bom.status_code == 200 and "DGX-H100" in bom.content.decode()
    for fmt in ("cabling-csv", "bom-csv"):
        response = olga.get(f"{base}/revisions/1/exports/{fmt}/")
        assert response.status_code == 200, fmt
        text = b"".join(response.streaming_content).decode()
        assert "DGX-H100" in text or "gpu" in text, fmt
    priced = olga.get(f"{base}/quotes/{quote.pk}/priced/")
    assert priced.status_code == 200, priced.content
    assert "DGX-H100" in priced.content.decode() and "32870" in priced.content.decode()
    # hidden from lists and pickers, still there by its own URL and with include_archived
    listed = olga.get("/api/inventory/servers/?page_size=500").json()["results"]
    assert "DGX-H100" not in {p["slug"] for p in listed}
    everything = olga.get("/api/inventory/servers/?page_size=500&include_archived=true").json()
    assert "DGX-H100" in {p["slug"] for p in everything["results"]}
    assert olga.get("/api/inventory/servers/DGX-H100/").status_code == 200
    wizard = page(people["olga"]).get("/designs/new/").content.decode()
    assert 'value="DGX-H100"' not in wizard
    list_page = page(people["olga"]).get("/catalog/server/").content.decode()
    assert "/catalog/server/DGX-H100/" not in list_page
    assert "/catalog/server/DGX-H100/" in (
        page(people["olga"]).get("/catalog/server/?include_archived=true").content.decode()
    )
    # a new design naming it is refused, naming the field
    refused = olga.post(
        "/api/planner/designs/", {"spec": {**TINY_SPEC, "name": "New"}}, format="json"
    )
    assert refused.status_code == 400
    [problem] = refused.json()["problems"]
    assert problem["field"] == "server" and "archived" in problem["message"]
    # unarchived: new designs may use it again
    assert api(people["ed"]).post("/api/inventory/servers/DGX-H100/unarchive/").status_code == 200
    again = olga.post(
        "/api/planner/designs/", {"spec": {**TINY_SPEC, "name": "New"}}, format="json"
    )
    assert again.status_code == 201, again.content
    actions = list(
        AuditEvent.objects.filter(object_ref="DGX-H100").values_list("action", flat=True)
    )
    assert actions.count("catalog.archived") == 2


def test_archive_and_history_on_the_pages(people, used):
    ed = page(people["ed"])
    detail = ed.get("/catalog/server/DGX-H100/").content.decode()
    assert "/catalog/server/DGX-H100/archive/" in detail
    response = ed.post("/catalog/server/DGX-H100/archive/", follow=True)
    assert response.status_code == 200
    assert 'data-testid="archived"' in response.content.decode()
    history = ed.get("/catalog/server/DGX-H100/history/").content.decode()
    assert "Catalog part archived" in history and "archived" in history


def test_an_empty_choice_in_a_form_body_is_a_400_naming_it(api_client, catalog_editor):
    """A multipart or form body with ``kind=`` used to store the default silently."""
    from inventory.models import PriceBook

    book = PriceBook.objects.first()
    response = api_client.put(
        f"/api/inventory/price-books/{book.slug}/",
        {"slug": book.slug, "name": book.name, "kind": ""},
        format="multipart",
    )
    assert response.status_code == 400
    assert "kind" in response.json()
