"""Object-level access control, proven on every page and endpoint the URL resolver knows.

Mallory owns three designs (two revisions each, a job and, where quotes exist, a quote):

- ``Zebra-secret-7f3a``, shared ``team-edit`` with team Zebra, which Alice is not in: every
  URL naming it (or its revisions, jobs, quotes, audit events) answers Alice 404 on every
  method, and no list, page or response shows it;
- ``Tango read`` (``team-read``) and ``Tango edit`` (``team-edit``), shared with team Tango,
  where Alice is a viewer: she reads them, but every write answers 403 and no page she is
  shown carries a form that writes.

Routes are discovered by :mod:`tests.api.urlwalk`; each URL is first checked with Mallory, who
must not get 404, so that a wrongly filled URL cannot pass as "invisible".
"""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.test.client import BOUNDARY, MULTIPART_CONTENT, encode_multipart

from inventory.models import PriceBook
from inventory.services import SEED_PRICE_BOOK
from planner.asbuilt.models import FieldImport
from planner.audit.models import AuditEvent
from planner.designs.models import Design
from planner.designs.services import design_create, design_revise
from planner.teams.models import Team, TeamMembership
from simulation.models import Job
from simulation.services import job_cancel, job_enqueue
from tests.api import urlwalk
from tests.conftest import module_rows, untraced
from tests.factories import TINY_SPEC

SECRET = "Zebra-secret-7f3a"
TINY = {**TINY_SPEC, "name": SECRET}
WRITES = ("POST", "PUT", "PATCH", "DELETE")
#: Objects team members read (jobs and audit events stay their owner's / team owner's).
TEAM_READABLE = {"design", "revision", "quote", "asbuilt"}
#: POSTs a reader may make: starting a job on a design works on a copy of nothing, and a
#: what-if asks what a failure would take and stores nothing.
READER_MAY_POST = {"job-start", "design-revision-what-if"}


def _quote(design, owner):
    try:
        from planner.quotes.services import quote_create
    except ImportError:  # quotes not in this build
        return None
    book = PriceBook.objects.get(slug=SEED_PRICE_BOOK)
    return quote_create(
        design=design, actor=owner, customer=f"{design.name} customer", price_book=book
    )


def _design(owner, name, team, sharing):
    design = design_create(
        owner=owner, spec_document={**TINY, "name": name}, team=team, sharing=sharing
    )
    design_revise(
        design=design,
        user=owner,
        spec_document={**TINY, "name": name, "servers": 6},
        base_revision=1,
    )
    job = job_enqueue(owner=owner, kind="validate", design_revision=design.latest_revision)
    # A sweep too, for the routes that only a sweep job has (its chart); cancelled, so that
    # the owner stays under the per-user cap of queued jobs.
    sweep = job_cancel(
        job=job_enqueue(
            owner=owner, kind="sweep", design_revision=design.latest_revision, parameters={}
        )
    )
    quote = _quote(design, owner)
    asbuilt = FieldImport.objects.create(
        revision=design.revisions.get(number=1), kind="cabling", source_format="lldp-csv"
    )
    event = AuditEvent.objects.filter(design_ref=design.pk).order_by("-pk").first()
    objects = {
        "design": design.pk,
        "revision": 1,
        "job": [str(job.pk), str(sweep.pk)],
        "audit": event.pk,
        "asbuilt": asbuilt.pk,
        "quote": quote.pk if quote else None,
        "quote:str": quote.number if quote else None,
    }
    return design, objects


@pytest.fixture(scope="module")
def world_rows(django_db_setup, django_db_blocker, request):
    """Mallory's teams and designs, and the viewer Tess: built once for the module's tests
    (shared as :func:`tests.conftest.module_rows` says; the tests' writes are undone), and
    crawled untraced (:func:`tests.conftest.untraced`)."""
    from django.contrib.auth import get_user_model

    from simulation.tasks import run_job

    with module_rows(django_db_blocker), pytest.MonkeyPatch.context() as patch:
        patch.setattr(run_job, "apply_async", lambda *args, **kwargs: None)
        users = get_user_model().objects
        mallory = users.create_user(username="mallory", password="pw-mal-123!")
        zed = users.create_user(username="zed", password="pw-zed-123!")
        viewer = users.create_user(username="tess", password="pw-tess-123!")
        zebra = Team.objects.create(name="Zebra", slug="zebra")
        tango = Team.objects.create(name="Tango", slug="tango")
        TeamMembership.objects.create(team=zebra, user=mallory, role="owner")
        TeamMembership.objects.create(team=zebra, user=zed, role="editor")
        TeamMembership.objects.create(team=tango, user=mallory, role="owner")
        TeamMembership.objects.create(team=tango, user=viewer, role="viewer")
        secret, secret_objects = _design(mallory, SECRET, zebra, "team-edit")
        # Zebra's team pages and API: Mallory owns the team, Tess is not in it.
        secret_objects.update(team=zebra.slug, member=zed.username)
        read, read_objects = _design(mallory, "Tango read", tango, "team-read")
        edit, edit_objects = _design(mallory, "Tango edit", tango, "team-edit")
        with untraced(request.config):
            crawled = urlwalk.crawl(_logged_in(mallory), [secret.get_absolute_url()])
        yield {
            "mallory": mallory,
            "viewer": viewer,
            "crawled": crawled,
            "secret": (secret, urlwalk.Filler(secret_objects, crawled)),
            "shared": [
                (read, urlwalk.Filler(read_objects, crawled)),
                (edit, urlwalk.Filler(edit_objects, crawled)),
            ],
        }


def _logged_in(person) -> Client:
    client = Client(raise_request_exception=False)
    client.force_login(person)
    return client


@pytest.fixture
def world(world_rows, seed_catalog):
    """The shared world with new logged-in clients for Mallory (``owner``) and the viewer
    (``alice``): a test that logs out or changes its session leaves the next one alone."""
    return {
        **world_rows,
        "owner": _logged_in(world_rows["mallory"]),
        "alice": _logged_in(world_rows["viewer"]),
    }


def _send(client, method, url, route):
    """``method`` on ``url`` with an empty body: JSON to the API (multipart where JSON is not
    taken, e.g. uploads), a form to pages."""
    if method == "GET":
        return client.get(url)
    if route.is_api:
        response = client.generic(method, url, "{}", content_type="application/json")
        if response.status_code != 415:
            return response
        body = encode_multipart(BOUNDARY, {})
        return client.generic(method, url, body, content_type=MULTIPART_CONTENT)
    return client.generic(method, url, "", content_type="application/x-www-form-urlencoded")


def _object_routes():
    return [route for route in urlwalk.routes() if route.objects]


def _url(owner, filler, route, failures) -> str | None:
    """The first URL of ``route`` the owner reaches (so that a 404 for someone else means
    invisible, not misfilled); ``None`` (and a failure) when the owner reaches none."""
    tried = []
    for url in filler.candidates(route):
        status = owner.get(url).status_code
        if status != 404 and status < 500:
            return url
        tried.append(f"{url} -> {status}")
    if tried:
        failures.append(f"owner cannot reach {route.route}: {', '.join(tried)}")
    return None


@pytest.mark.no_cover  # a walk over many cases, untraced: see tests.conftest.untraced
def test_walk_finds_and_fills_every_object_route(world):
    routes = _object_routes()
    found = {frozenset(route.objects) for route in routes}
    assert {frozenset({"design"}), frozenset({"design", "revision"}), frozenset({"job"})} <= found
    assert frozenset({"audit"}) in found
    _, filler = world["secret"]
    unfilled = [route.route for route in routes if filler.fill(route) is None]
    assert not unfilled, (
        "These routes take a parameter the walk cannot fill (add it to urlwalk.DEFAULTS or link "
        f"to it from a design page): {unfilled}"
    )


@pytest.mark.no_cover  # a walk over many cases, untraced: see tests.conftest.untraced
def test_other_teams_objects_are_404_on_every_method(world):
    _, filler = world["secret"]
    failures = []
    checked = 0
    for route in _object_routes():
        url = _url(world["owner"], filler, route, failures)
        if url is None:
            continue
        statuses = {}
        for method in ("GET", *WRITES):
            response = _send(world["alice"], method, url, route)
            statuses[method] = response.status_code
            if SECRET.encode() in response.content:
                failures.append(f"{method} {url} shows the design's name")
        if set(statuses.values()) - {404, 405} or 404 not in statuses.values():
            failures.append(f"{url} ({route.route}): {statuses}")
        checked += 1
    assert not failures, "\n".join(failures)
    assert checked >= 20
    assert Design.objects.filter(name=SECRET).exists()


@pytest.mark.no_cover  # a walk over many cases, untraced: see tests.conftest.untraced
def test_lists_and_searches_never_show_other_teams_objects(world):
    secret, _ = world["secret"]
    jobs = [
        str(pk)
        for pk in Job.objects.filter(design_revision__design=secret).values_list("pk", flat=True)
    ]
    assert len(jobs) == 2  # the validate job and the sweep
    failures = []
    for route in urlwalk.routes():
        if route.params or route.name in {"logout"}:
            continue
        # Searches for part of the name: a page may echo the query, never the whole name.
        for query in ("", f"design={secret.pk}", "q=Zebra-secret&search=Zebra-secret"):
            url = route.url({}, query)
            response = world["alice"].get(url)
            if response.status_code >= 500:
                failures.append(f"GET {url} -> {response.status_code}")
            shown = [job for job in jobs if job.encode() in response.content]
            if SECRET.encode() in response.content or shown:
                failures.append(f"GET {url} shows Mallory's design or job")
    assert not failures, "\n".join(failures)


def test_creating_on_other_teams_design_is_refused(world):
    secret, _ = world["secret"]
    alice = world["alice"]
    response = alice.post(
        "/api/simulation/jobs/",
        {"kind": "validate", "design": secret.pk},
        content_type="application/json",
    )
    assert response.status_code == 404
    # Any create endpoint that takes a design in its body must refuse it too.
    body = {"design": secret.pk, "revision": 1, "kind": "validate", "customer": "x"}
    for route in urlwalk.routes():
        if route.params or not route.is_api:
            continue
        response = alice.post(route.url({}), body, content_type="application/json")
        assert response.status_code not in {200, 201, 202}, (route.route, response.content)
        assert SECRET.encode() not in response.content, route.route
    assert not Job.objects.filter(owner=world["viewer"]).exists()


def _forms_that_write(response) -> list[str]:
    """Actions of the page's POST forms, other than logging out and starting a job."""
    page = urlwalk.parse_html(response.content.decode())
    actions = []
    for form in page.forms:
        if (form.get("method") or "get").lower() != "post":
            continue
        action = form.get("action") or response.wsgi_request.path
        if urlwalk.name_of(action) not in READER_MAY_POST | {"logout"}:
            actions.append(action)
    return actions


@pytest.mark.no_cover  # a walk over many cases, untraced: see tests.conftest.untraced
def test_team_viewer_reads_but_cannot_write(world):
    failures = []
    checked = 0
    for design, filler in world["shared"]:
        before = (design.revisions.count(), design.name, design.sharing)
        for route in _object_routes():
            url = _url(world["owner"], filler, route, failures)
            if url is None:
                continue
            readable = route.objects <= TEAM_READABLE
            response = world["alice"].get(url)
            if response.status_code >= 500 or (readable and response.status_code == 404):
                failures.append(f"viewer GET {url} ({route.route}) -> {response.status_code}")
            if not readable and response.status_code not in {404, 405}:
                failures.append(f"viewer GET {url} (not hers) -> {response.status_code}")
            if response.status_code == 200 and "html" in response.get("Content-Type", ""):
                for action in _forms_that_write(response):
                    failures.append(f"viewer is shown a write form on {url}: {action}")
            for method in WRITES:
                if method == "POST" and route.name in READER_MAY_POST:
                    continue
                status = _send(world["alice"], method, url, route).status_code
                allowed = {403, 405} if readable else {404, 405}
                if status not in allowed:
                    failures.append(f"viewer {method} {url} ({route.route}) -> {status}")
            checked += 1
        design.refresh_from_db()
        assert (design.revisions.count(), design.name, design.sharing) == before
    assert not failures, "\n".join(failures)
    assert checked >= 40


def test_revision_restore_end_to_end(api_client, seed_catalog, user):
    base = "/api/planner/designs"
    created = api_client.post(f"{base}/", {"spec": {**TINY, "name": "Restore me"}}, format="json")
    assert created.status_code == 201, created.content
    pk = created.json()["id"]
    revised = api_client.post(
        f"{base}/{pk}/revisions/",
        {"spec": {**TINY, "name": "Restore me", "servers": 6}, "base_revision": 1},
        format="json",
    )
    assert revised.status_code == 201, revised.content

    def topology(number):
        response = api_client.get(f"{base}/{pk}/revisions/{number}/topology/")
        assert response.status_code == 200, response.content
        body = response.json()
        return {"nodes": body["nodes"], "links": body["links"]}

    first, second = topology(1), topology(2)
    assert first != second
    restored = api_client.post(f"{base}/{pk}/revisions/1/restore/")
    assert restored.status_code == 201, restored.content
    assert restored.json()["number"] == 3
    assert restored.json()["kind"] == "restored" and restored.json()["parent"] == 1
    assert topology(3) == first
    assert (
        api_client.get(f"{base}/{pk}/revisions/3/").json()["summary"]
        == (api_client.get(f"{base}/{pk}/revisions/1/").json()["summary"])
    )
    assert api_client.get(f"{base}/{pk}/").json()["latest_revision"] == 3

    events = api_client.get("/api/planner/audit/", {"design": pk, "action": "design.restored"})
    assert events.status_code == 200
    [event] = events.json()["results"]
    assert event["actor"] == user.username and event["object_ref"] == "3"
    assert event["design"] == pk and event["details"] == {"restored": 1}


def test_audit_log_is_read_by_team_owners_only(world, other_user):
    secret, _ = world["secret"]
    read, _ = world["shared"][0]
    owner, alice = world["owner"], world["alice"]
    mine = owner.get("/api/planner/audit/", {"design": read.pk}).json()
    assert mine["count"] >= 3  # created, revised, job submitted (and a quote)
    assert {e["action"] for e in mine["results"]} >= {"design.created", "design.revised"}
    # Alice, a viewer of the team, reads none of it, neither by API nor page.
    assert alice.get("/api/planner/audit/", {"design": read.pk}).json()["count"] == 0
    page = alice.get("/audit/", {"design": read.pk})
    assert page.status_code == 200 and b"Tango read" not in page.content
    owner_page = owner.get("/audit/", {"design": read.pk, "action": "design.revised"})
    assert b"Tango read" in owner_page.content and b"Revision saved" in owner_page.content
    assert b"Design created</td>" not in owner_page.content  # filtered by action
    # Zebra's owner reads Zebra's events; Tango's events stay out of them.
    zebra = owner.get("/api/planner/audit/", {"team": "zebra"}).json()
    assert {e["design"] for e in zebra["results"]} == {secret.pk}
    # Pages of 50 at most, and page_size is capped like every API list.
    assert len(owner.get("/api/planner/audit/", {"page_size": 100_000}).json()["results"]) <= 1000


# --- prices -------------------------------------------------------------------------------------

QM9700_PRICE = "32870"  # the seed book's offer for QM9700 (inventory/library/seed/prices.yaml)


def _price_shown(response) -> bool:
    """Whether the page shows QM9700's price as a number of its own (32870, 32,870.00), not as
    digits inside another one (a timestamp's microseconds, .832870, once made this flaky)."""
    text = response.content.decode(errors="replace").replace(",", "")
    return re.search(rf"(?<![\d.]){QM9700_PRICE}(?!\d)", text) is not None


def _price_urls():
    """Every page and list without parameters, and QM9700's own pages and API."""
    urls = [route.url({}) for route in urlwalk.routes() if not route.params]
    urls += [
        "/catalog/switch/QM9700/",
        "/api/inventory/switches/QM9700/",
        "/api/inventory/switches/QM9700/works-with/",
        f"/catalog/price-books/{SEED_PRICE_BOOK}/",
        f"/catalog/price-books/{SEED_PRICE_BOOK}/prices.csv",
        f"/api/inventory/price-books/{SEED_PRICE_BOOK}/",
        "/api/inventory/prices/?part_slug=QM9700",
    ]
    return [url for url in urls if not url.startswith(("/logout", "/api/schema"))]


LINK = {"a": "DGX-H100", "b": "QM9700"}


def _price_link_option(client) -> None:
    """Give the parts of the first DGX-H100 - QM9700 link option a price in the seed book (the
    seed leaves some of them unpriced), so that the option has a price to hide or show."""
    from inventory.models import Price
    from inventory.services import part_get

    option = client.get("/api/planner/link-options/", LINK).json()["options"][0]
    book = PriceBook.objects.get(slug=SEED_PRICE_BOOK)
    for slug in {option["a_part"], option["b_part"], option["cable"]}:
        part = part_get(slug)
        offers = Price.objects.filter(book=book, part_slug=part.slug, condition="new")
        seen = offers.filter(currency=book.currency).exclude(grade="estimate")
        if not seen.exists():  # (an estimate never prices a link option)
            Price.objects.create(
                book=book,
                part_category=part.CATEGORY,
                part_slug=part.slug,
                condition="new",
                currency=book.currency,
                price=100,
                seller="test",
            )


def test_prices_hidden_without_the_price_right(client, seed_catalog, user):
    from inventory.models import Price

    client.force_login(user)
    shown = [url for url in _price_urls() if _price_shown(client.get(url))]
    assert not shown, f"prices shown to a user without the price right: {shown}"
    for url in (
        "/catalog/price-books/",
        f"/catalog/price-books/{SEED_PRICE_BOOK}/",
        f"/catalog/price-books/{SEED_PRICE_BOOK}/prices.csv",
        "/api/inventory/price-books/",
        "/api/inventory/prices/",
    ):
        assert client.get(url).status_code == 403, url
    before = Price.objects.count()
    upload = client.post(f"/catalog/price-books/{SEED_PRICE_BOOK}/", {"file": ""})
    assert upload.status_code == 403 and Price.objects.count() == before
    detail = client.get("/catalog/switch/QM9700/").content.decode()
    assert 'data-testid="prices-hidden"' in detail and "/catalog/price-books/" not in detail
    _price_link_option(client)
    options = client.get("/api/planner/link-options/", LINK).json()
    assert options["options"] and all(o["price"] is None for o in options["options"])


@pytest.mark.parametrize("who", ["member with the price right", "staff"])
def test_prices_shown_with_the_price_right(client, seed_catalog, user, who):
    if who == "staff":
        user.is_staff = True
        user.save()
    else:
        team = Team.objects.create(name="Sales", slug="sales")
        TeamMembership.objects.create(team=team, user=user, can_view_prices=True)
    client.force_login(user)
    for url in (
        "/catalog/switch/QM9700/",
        f"/catalog/price-books/{SEED_PRICE_BOOK}/",
        f"/catalog/price-books/{SEED_PRICE_BOOK}/prices.csv",
        "/api/inventory/prices/?part_slug=QM9700",
    ):
        response = client.get(url)
        assert response.status_code == 200 and _price_shown(response), url
    assert b"/catalog/price-books/" in client.get("/catalog/").content
    _price_link_option(client)
    options = client.get("/api/planner/link-options/", LINK).json()
    assert any(o["price"] is not None for o in options["options"])


def test_price_right_is_managed_in_the_admin(client, user, django_user_model):
    admin = django_user_model.objects.create_superuser(username="root", password="pw-root-123!")
    team = Team.objects.create(name="Sales", slug="sales")
    membership = TeamMembership.objects.create(team=team, user=user)
    client.force_login(admin)
    page = client.get(f"/admin/teams/team/{team.pk}/change/").content.decode()
    assert "can_view_prices" in page
    listing = client.get("/admin/teams/teammembership/").content.decode()
    assert 'name="form-0-can_view_prices"' in listing
    assert membership.can_view_prices is False
