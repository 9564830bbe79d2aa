"""No price leaks: every GET route the URL resolver knows, asked by users without the price
right, is scanned for figures derived from prices (issue 14, item 4).

The scene: Sam (sales, with the price right) owns a design shared ``team-edit`` with team
Tango and a quote on it with distinctive terms (discount 17.25 % on switches, margin 23.47 %,
notes ``INTERNAL-NOTE-XYZ``), sent while the seed book priced QM9700, which the design uses,
at 29,753.19, then re-priced (version 2, a draft with a diff against the sent version) after
the book moved it to 31,337.77. Team Bravo keeps a confidential book pricing QM9700 at
16,180.33. Jobs (validate, power, simulate) have run on the design. Two
members of Tango without the price right then request every GET route (pages and API,
``?format=`` variants, exports and downloads, the diff with ``?price_book=``, link options,
audit events; the quote routes for both versions):

- Alice, a viewer;
- Olga, the team's owner (so she writes the design, sees its quote forms and reads the team's
  audit log, where the quote's change of terms is recorded).

Every response body (text; XLSX unzipped; a PDF must be refused) must hold none of the figures
Sam sees: the book prices, both versions' line prices and totals and their diff (as Sam's
priced JSON gives them), the revision diff's cost delta, the link options' prices, in every
formatting (``31337.77``, ``31,337.77``, ``31337.8``...), nor the discount, margin or notes,
nor the figure of Bravo's book (its slug is among the URL fillers).

Coverage: the walk runs with the coverage tracer paused (``no_cover``): it proves that no
route shows a price, not that lines run (every page and API view has its own tests, which the
coverage figure counts), and the tracer made it about twice as slow.
"""

from __future__ import annotations

import io
import re
import zipfile
from decimal import ROUND_HALF_UP, Decimal

import pytest
from django.test import Client
from hypothesis import given, settings
from hypothesis import strategies as st

from inventory.models import Price, PriceBook
from inventory.services import SEED_PRICE_BOOK
from planner.audit.models import AuditEvent
from planner.designs.services import design_create, design_revise
from planner.outputs import services as outputs
from planner.quotes import services as quotes
from planner.quotes.services import quote_create, quote_reprice, quote_send, quote_update
from planner.teams.models import Team, TeamMembership
from simulation.services import job_enqueue, job_execute
from tests.api import urlwalk
from tests.conftest import module_rows, untraced
from tests.factories import TINY_SPEC

BOOK_PRICE = Decimal("31337.77")
#: QM9700's price when version 1 of the quote was sent.
SENT_PRICE = Decimal("29753.19")
DISCOUNT = Decimal("17.25")
#: Not 23.5: a seed switch weighs 23.5 kg.
MARGIN = Decimal("23.47")
NOTES = "INTERNAL-NOTE-XYZ"
#: QM9700 in team Bravo's confidential book (no one of the scene is in Bravo).
TEAM_BOOK_PRICE = Decimal("16180.33")
TEAM_BOOK = "bravo-deal"
LINK = {"a": "DGX-H100", "b": "QM9700"}
JOBS = (("validate", {}), ("power", {}), ("simulate", {"traffic": "all-reduce"}))
#: Catalog parameters (inventory pages and API) filled with the parts the design uses.
CATEGORIES = ["switch", "server", "transceiver", "cable", "fiber"]


def _run_jobs(owner, revision) -> list[str]:
    ids = []
    for kind, parameters in JOBS:
        job = job_enqueue(owner=owner, kind=kind, design_revision=revision, parameters=parameters)
        job_execute(job_id=job.pk, worker="w1")
        ids.append(str(job.pk))
    return ids


def _formats(value: Decimal) -> set[str]:
    """``value`` as a page, a CSV or JSON could write it: 31337.77, 31,337.77, 31337.8,
    31,337.8, 31337.770..."""
    value = Decimal(value)
    one = value.quantize(Decimal("0.1"), ROUND_HALF_UP)
    found = {f"{value:.2f}", f"{value:,.2f}", f"{one:.1f}", f"{one:,.1f}", str(float(value))}
    if value == value.to_integral_value():
        found |= {f"{value:.0f}", f"{value:,.0f}"}
    return found


def _money_in(data) -> set[str]:
    """Every amount (a string with two decimals) in a priced JSON answer."""
    found = set()
    if isinstance(data, dict):
        for item in data.values():
            found |= _money_in(item)
    elif isinstance(data, list):
        for item in data:
            found |= _money_in(item)
    elif isinstance(data, str) and re.fullmatch(r"-?\d+\.\d\d", data):
        found.add(data)
    return found


def _quoted(user) -> dict:
    """Sam's design and quote, shared with team Tango; a logged-in client per person."""
    from django.contrib.auth import get_user_model

    users = get_user_model().objects
    sam = users.create_user(username="sam", password="pw-sam-123!")
    olga = users.create_user(username="olga", password="pw-olga-123!")
    tango = Team.objects.create(name="Tango", slug="tango")
    TeamMembership.objects.create(team=tango, user=sam, role="editor", can_view_prices=True)
    TeamMembership.objects.create(team=tango, user=olga, role="owner")
    TeamMembership.objects.create(team=tango, user=user, role="viewer")
    bravo = Team.objects.create(name="Bravo", slug="bravo")
    secret = PriceBook.objects.create(slug=TEAM_BOOK, name="Bravo deal", team=bravo)
    Price.objects.create(
        book=secret,
        part_category="switch",
        part_slug="QM9700",
        price=TEAM_BOOK_PRICE,
        currency="USD",
    )
    book = PriceBook.objects.get(slug=SEED_PRICE_BOOK)
    offers = Price.objects.filter(book=book, part_slug="QM9700")
    assert offers.exists(), "the seed book prices QM9700"
    offers.update(price=SENT_PRICE)

    design = design_create(owner=sam, spec_document=TINY_SPEC, team=tango, sharing="team-edit")
    design_revise(
        design=design, user=sam, spec_document={**TINY_SPEC, "servers": 6}, base_revision=1
    )
    quote = quote_create(design=design, actor=sam, customer="ACME Labs", price_book=book)
    quote = quote_update(
        quote=quote,
        actor=sam,
        discounts_pct={"switch": DISCOUNT},
        margin_pct=MARGIN,
        notes=NOTES,
    )
    quote_send(quote=quote, actor=sam, may_view_prices=True, confirm_unpriced=True)
    offers.update(price=BOOK_PRICE)
    quote = quote_reprice(quote=quote, actor=sam, may_view_prices=True)
    clients = {}
    for person in (sam, olga, user):
        clients[person] = Client(raise_request_exception=False)
        clients[person].force_login(person)
    return {"design": design, "quote": quote, "offers": offers, "clients": clients}


@pytest.fixture(scope="module")
def scene(request, django_db_setup, django_db_blocker):
    """``quoted`` with each person's jobs, the price figures Sam sees, and URL fillers: built
    once for the module's tests (its rows shared as :func:`tests.conftest.module_rows` says;
    the tests only read)."""
    from django.contrib.auth import get_user_model

    from simulation.tasks import run_job

    with module_rows(django_db_blocker), pytest.MonkeyPatch.context() as patch:
        patch.setattr(run_job, "apply_async", lambda *args, **kwargs: None)
        alice = get_user_model().objects.create_user(username="alice", password="pw-alice-123!")
        yield _scene(_quoted(alice), request.config)


def _scene(quoted: dict, config) -> dict:
    """The scene's jobs and crawl run untraced, as the walk does (their lines are the job
    services' and the pages', which their own tests cover)."""
    design, quote, offers = quoted["design"], quoted["quote"], quoted["offers"]
    sam, olga, user = quoted["clients"]
    clients = {person.username: client for person, client in quoted["clients"].items()}
    revision = design.latest_revision
    with untraced(config):
        jobs = {person: _run_jobs(person, revision) for person in (sam, user, olga)}

    seller = clients["sam"]
    needles = _needles(seller, design, quote) | _formats(TEAM_BOOK_PRICE)
    with untraced(config):
        crawled = urlwalk.crawl(seller, [design.get_absolute_url(), quote.get_absolute_url()])
    event = AuditEvent.objects.filter(object_type="quote", details__change="updated").get()
    parts = sorted(set(design.latest_revision.summary.get("cables") or {}))
    values = {
        "slug": ["QM9700", "DGX-H100", SEED_PRICE_BOOK, TEAM_BOOK, *parts],
        "category": CATEGORIES,
        "pk": [str(pk) for pk in offers.values_list("pk", flat=True)],
        # Every file: quotes, revision downloads and exports, specs.
        "fmt": sorted({*quotes.EXPORT_FORMATS, *outputs.DOWNLOAD_FORMATS, "yaml", "json"}),
    }

    def filler(person, quote=quote):
        objects = {
            "design": design.pk,
            "revision": revision.number,
            "quote": quote.pk,
            "quote:str": quote.number,
            "job": jobs[person][-1],
            "audit": event.pk,
        }
        return urlwalk.Filler(objects, crawled, values)

    return {
        "design": design,
        "quote": quote,
        "clients": clients,
        "needles": needles,
        "viewers": [
            (clients[user.username], filler(user), filler(user, quote.previous)),
            (clients["olga"], filler(olga), filler(olga, quote.previous)),
        ],
        "seller": (seller, filler(sam)),
    }


def _needles(seller, design, quote) -> set[str]:
    """The price figures a user with the price right is shown (so that they exist)."""
    base = f"/api/planner/designs/{design.pk}"
    priced = seller.get(f"{base}/quotes/{quote.pk}/priced/")
    assert priced.status_code == 200, priced.content
    data = priced.json()
    switch = next(line for line in data["lines"] if line["part"] == "QM9700")
    assert Decimal(switch["unit_book"]) == BOOK_PRICE
    amounts = {Decimal(a) for a in _money_in(data) if abs(Decimal(a)) >= 1000}
    amounts |= {Decimal(data["totals"][key]) for key in ("sell", "cost", "margin")}
    # the sent version (frozen at the old price) and the diff between the two
    sent = seller.get(f"{base}/quotes/{quote.previous_id}/priced/").json()
    assert Decimal(next(x for x in sent["lines"] if x["part"] == "QM9700")["unit_book"]) == (
        SENT_PRICE
    )
    versions = seller.get(f"{base}/quotes/{quote.pk}/diff/").json()
    assert versions["changed"], "the re-priced version differs from the sent one"
    for answer in (sent, versions):
        amounts |= {Decimal(a) for a in _money_in(answer) if abs(Decimal(a)) >= 1000}
    diff = seller.get(f"{base}/diff/", {"from": 1, "to": 2, "price_book": SEED_PRICE_BOOK})
    assert diff.status_code == 200, diff.content
    cost = diff.json()["bom"]["cost"]["delta"]
    if cost and abs(Decimal(cost)) >= 100:
        amounts.add(Decimal(cost))
    options = seller.get("/api/planner/link-options/", LINK).json()["options"]
    amounts |= {Decimal(str(o["price"])) for o in options if o["price"] and o["price"] >= 100}
    needles = {NOTES, f"{DISCOUNT}", f"{MARGIN}"}
    for amount in amounts:
        needles |= _formats(amount)
    return needles


#: Where a response shows a database id, not a figure: JSON keys naming an object (``"id"``,
#: ``"design"``, ``"object_ref"``, ``"*_id"``; quoted or HTML-escaped, as the browsable API
#: shows them), numeric URL path segments and query values. An id may equal a price needle once
#: the suite has created a thousand rows; it is masked before the scan, never a price.
_ID_CONTEXTS = re.compile(
    r"((?:\"|&quot;)(?:id|pk|design|revision|job|quote|audit|object_ref|\w+_id)(?:\"|&quot;)"
    r"\s*:\s*(?:\"|&quot;)?)\d+"
    r"|(/)\d+(?=[/?#\"'<&\s]|$)"
    r"|([?&](?:amp;)?\w+=)\d+(?![\d.,])"
)


def _without_ids(text: str) -> str:
    """``text`` with the ids of :data:`_ID_CONTEXTS` masked as ``#``.

    >>> _without_ids('{"id": 1249, "design": "7", "price": 1249} /designs/1249/ ?job=1249')
    '{"id": #, "design": "#", "price": 1249} /designs/#/ ?job=#'
    """
    return _ID_CONTEXTS.sub(lambda m: (m.group(1) or m.group(2) or m.group(3)) + "#", text)


#: A figure as a needle may be: digits, with separators.
_FIGURE = re.compile(r"\d[\d.,]*")
#: Figures in a text, whole: not inside a longer run of digits and separators.
_FIGURE_IN_TEXT = re.compile(r"(?<![\d.,])\d[\d.,]*")


def _leaks(needles: set[str], text: str) -> list[str]:
    """The needles ``text`` shows once its ids are masked (:func:`_without_ids`). A needle that
    starts with a digit counts only where it stands whole: not preceded by a digit or separator,
    not followed by a digit. Figures are looked up among the figures of the text (one pass over
    it, not one per needle); any other needle by its text.

    >>> needles = {"31337.77", "31,337.8", "1249", "12.5", "Tango notes", "7.5x"}
    >>> _leaks(needles, "Total 31337.77, 131,337.8 and 31,337.85; 12.5. Tango notes 7.5x")
    ['12.5', '31337.77', '7.5x', 'Tango notes']
    >>> _leaks(needles, '{"id": 1249, "price": 1249}')
    ['1249']
    """
    text = _without_ids(text)
    figures = {needle for needle in needles if _FIGURE.fullmatch(needle)}
    found = {
        needle
        for needle in needles - figures
        if needle in text
        and (not needle[0].isdigit() or re.search(rf"(?<![\d.,]){re.escape(needle)}(?!\d)", text))
    }
    for run in set(_FIGURE_IN_TEXT.findall(text)):
        # A figure stands whole where the run ends or a separator follows it.
        found.update(
            run[:end]
            for end in range(1, len(run) + 1)
            if (end == len(run) or run[end] in ".,") and run[:end] in figures
        )
    return sorted(found)


def _leaks_one_search_per_needle(needles: set[str], text: str) -> list[str]:
    """:func:`_leaks` as a regular-expression search per needle: the reference it must agree
    with (``test_the_figure_scan_finds_what_a_search_per_needle_finds``)."""
    text = _without_ids(text)
    return sorted(
        needle
        for needle in needles
        if re.search(
            rf"(?<![\d.,]){re.escape(needle)}(?!\d)" if needle[0].isdigit() else re.escape(needle),
            text,
        )
    )


@given(
    needles=st.sets(st.text("0123456789.,x-", min_size=1, max_size=6), max_size=8),
    text=st.text('0123456789.,x- "id:/', max_size=60),
)
@settings(max_examples=300, derandomize=True, database=None)
def test_the_figure_scan_finds_what_a_search_per_needle_finds(needles, text):
    assert _leaks(needles, text) == _leaks_one_search_per_needle(needles, text)


def _body_text(response) -> str | None:
    """The response as text to scan (XLSX unzipped); ``None`` for a PDF served (a failure:
    a PDF cannot be scanned, so it must be refused)."""
    content = b"".join(response.streaming_content) if response.streaming else response.content
    if content.startswith(b"%PDF"):
        return None
    if content[:2] == b"PK":
        with zipfile.ZipFile(io.BytesIO(content)) as archive:
            return "\n".join(
                archive.read(name).decode(errors="replace") for name in archive.namelist()
            )
    return content.decode(errors="replace")


def _variants(route: urlwalk.Route, url: str) -> list[str]:
    """``url`` and, for the API, its ``?format=`` variants; with ``price_book`` and link
    parameters where a route takes them."""
    urls = [url]
    join = "&" if "?" in url else "?"
    if route.is_api and "format" not in {name for name, _, _ in route.params}:
        urls.append(f"{url}{join}format=api")  # the browsable API renders the answer too
    if "diff" in route.route or "link-options" in route.route:
        urls += [f"{u}{'&' if '?' in u else '?'}price_book={SEED_PRICE_BOOK}" for u in list(urls)]
    if "diff" in route.route and "from=" not in url:
        urls = [f"{u}{'&' if '?' in u else '?'}from=1&to=2" for u in urls]
    if "search" in route.route:  # a search echoes its query: never ask for a needle
        urls += [f"{url}{join}q={query}" for query in ("ACME", "Q-", "QM9700", "Tango")]
    if "link-options" in route.route:
        urls = [f"{u}{'&' if '?' in u else '?'}a={LINK['a']}&b={LINK['b']}" for u in urls]
    return urls


def _get_urls(filler: urlwalk.Filler) -> list[tuple[urlwalk.Route, str]]:
    urls = []
    for route in urlwalk.routes():
        if route.name in {"logout", "api-schema", "api-docs", "healthz"}:
            continue
        candidates = filler.candidates(route) if route.params else [route.url({})]
        for url in candidates:
            urls.extend((route, variant) for variant in _variants(route, url))
    return urls


def test_needles_are_shown_to_the_price_right(scene):
    """The figures scanned for exist: Sam, who has the price right, sees them."""
    seller, filler = scene["seller"]
    needles = scene["needles"]
    assert {"31337.77", "31,337.77", "31337.8"} <= needles
    quote = scene["quote"]
    page = seller.get(quote.get_absolute_url()).content.decode()
    assert _leaks(needles, page), "the quote page shows Sam the prices"
    api = seller.get(f"/api/planner/designs/{quote.design_id}/quotes/{quote.pk}/").json()
    assert api["notes"] == NOTES and Decimal(api["margin_pct"]) == MARGIN
    assert Decimal(api["discounts_pct"]["switch"]) == DISCOUNT
    assert len(_get_urls(filler)) > 150


@pytest.mark.no_cover  # a walk over every GET route: see the module's note on coverage
def test_no_price_reaches_a_user_without_the_price_right(scene):
    needles = scene["needles"]
    failures = []
    checked = 0
    for client, filler, sent_filler in scene["viewers"]:
        who = client.session.get("_auth_user_id")
        sent = [(route, url) for route, url in _get_urls(sent_filler) if "quote" in route.objects]
        assert len(sent) > 10
        for route, url in _get_urls(filler) + sent:
            response = client.get(url)
            if response.status_code >= 500:
                failures.append(f"user {who}: GET {url} -> {response.status_code}")
                continue
            text = _body_text(response)
            if text is None:
                failures.append(f"user {who}: GET {url} serves a PDF ({response.status_code})")
                continue
            leaked = _leaks(needles, text)
            if leaked:
                failures.append(f"user {who}: GET {url} ({route.route}) shows {leaked}")
            checked += response.status_code == 200
    assert not failures, "\n".join(failures)
    assert checked >= 100


def test_price_terms_are_kept_and_changed_only_with_the_price_right(scene):
    """Olga writes the design but has no price right: she changes a quote's customer (API
    and form) and its terms stay; sending a discount, margin or notes is 403."""
    quote = type(scene["quote"]).objects.get(pk=scene["quote"].pk)  # this test's own copy
    olga = scene["clients"]["olga"]
    url = f"/api/planner/designs/{quote.design_id}/quotes/{quote.pk}/"
    for body in ({"margin_pct": "10"}, {"discounts_pct": {"switch": 1}}, {"notes": "x"}):
        refused = olga.patch(url, body, content_type="application/json")
        assert refused.status_code == 403, refused.content
        assert "price right" in refused.json()["detail"]
    changed = olga.patch(url, {"customer": "ACME Research"}, content_type="application/json")
    assert changed.status_code == 200, changed.content
    assert not set(changed.json()) & {"discounts_pct", "margin_pct", "notes"}
    form = olga.get(f"{quote.get_absolute_url()}edit/")
    assert b'data-testid="price-terms-hidden"' in form.content
    posted = olga.post(
        f"{quote.get_absolute_url()}edit/",
        {
            "customer": "ACME Labs 2",
            "revision": quote.revision.number,
            "price_book": quote.price_book.slug,
            "price_condition": quote.price_condition,
            "currency": quote.currency,
            "valid_until": quote.valid_until.isoformat(),
            "spares_transceiver": "2",
        },
    )
    assert posted.status_code == 302, posted.content.decode()[:2000]
    quote.refresh_from_db()
    assert quote.customer == "ACME Labs 2" and quote.spares_pct == {"transceiver": "2"}
    assert (quote.margin_pct, quote.notes) == (MARGIN, NOTES)
    assert {k: Decimal(v) for k, v in quote.discounts_pct.items()} == {"switch": DISCOUNT}


def test_schema_documents_price_terms_as_optional():
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    quote = schema["components"]["schemas"]["Quote"]
    for name in ("discounts_pct", "margin_pct", "notes"):
        assert name not in quote["required"]
        assert "price right" in quote["properties"][name]["description"]
