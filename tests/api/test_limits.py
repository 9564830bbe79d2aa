"""Limits and hardening: request and upload size caps (413 naming the limit), pagination
caps, the maximum design size, login lock-out after failures, CSRF on every form, security
headers (CSP included) and secrets kept out of the logs."""

from __future__ import annotations

import io
import logging
import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from inventory.models import SwitchModel
from planner.audit.models import AuditEvent
from planner.designs.models import Design
from planner.project.security import RedactSecretsFilter, redact
from tests.api import urlwalk
from tests.factories import TINY_SPEC

ROOT = Path(__file__).resolve().parents[2]


# --- request and upload sizes -----------------------------------------------------------------


def test_oversized_json_body_is_413_naming_the_limit(api_client, seed_catalog):
    limit = django_settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    spec = {**TINY_SPEC, "description": "x" * (limit + 1)}
    response = api_client.post("/api/planner/designs/", {"spec": spec}, format="json")
    assert response.status_code == 413
    body = response.json()
    assert body["setting"] == "DATA_UPLOAD_MAX_MEMORY_SIZE" and body["limit_bytes"] == limit
    assert f"{limit:,} bytes" in body["detail"]
    assert not Design.objects.exists()
    # Just under the limit the same endpoint reads the body (and answers about the spec).
    small = api_client.post("/api/planner/designs/", {"spec": {**TINY_SPEC, "x": 1}}, format="json")
    assert small.status_code == 400 and "problems" in small.json()


def test_oversized_upload_to_a_catalog_import_is_413(
    catalog_editor, logged_in_client, seed_catalog, settings
):
    settings.REQUEST_MAX_BYTES = 64 * 1024
    settings.CATALOG_IMPORT_MAX_BYTES = 32 * 1024
    before = SwitchModel.objects.count()
    header = "slug,name,manufacturer\n"
    rows = "".join(f"BIG-{i:06d},Big {i},nvidia\n" for i in range(4000))  # ~100 KB
    upload = SimpleUploadedFile("big.csv", (header + rows).encode(), content_type="text/csv")
    data = {"form": "csv", "csv-category": "switch", "csv-file": upload}
    response = logged_in_client.post("/catalog/transfer/", data)
    assert response.status_code == 413
    page = response.content.decode()
    assert "REQUEST_MAX_BYTES" in page and "65,536 bytes" in page
    assert 'data-testid="too-large"' in page
    # Between the import cap and the request cap: the form's own message, nothing imported.
    rows = "".join(f"MID-{i:06d},Mid {i},nvidia\n" for i in range(1500))  # ~40 KB
    upload = SimpleUploadedFile("mid.csv", (header + rows).encode(), content_type="text/csv")
    data = {"form": "csv", "csv-category": "switch", "csv-file": upload}
    response = logged_in_client.post("/catalog/transfer/", data)
    assert response.status_code == 200 and "the limit is 32.0" in response.content.decode()
    assert SwitchModel.objects.count() == before


def test_an_api_upload_over_the_cap_is_413_json(api_client, settings):
    settings.REQUEST_MAX_BYTES = 1024
    upload = SimpleUploadedFile("cabling.csv", b"a,b\n" * 1000, content_type="text/csv")
    response = api_client.post(
        "/api/planner/designs/1/cabling/", {"file": upload, "base_revision": 1}, format="multipart"
    )
    assert response.status_code == 413
    assert response.json()["setting"] == "REQUEST_MAX_BYTES"


# --- pagination ---------------------------------------------------------------------------------


def test_page_size_is_capped(api_client, user):
    AuditEvent.objects.all().delete()  # an empty log: the session's seed import is one event
    AuditEvent.objects.bulk_create(
        AuditEvent(actor=user, action="export.downloaded", summary=f"e{i}") for i in range(1001)
    )
    page = api_client.get("/api/planner/audit/", {"page_size": 100_000}).json()
    assert page["count"] == 1001
    assert len(page["results"]) == 1000 and page["next"]
    assert len(api_client.get("/api/planner/audit/").json()["results"]) == 50


def test_every_api_list_has_a_page_size_cap():
    uncapped = []
    for route in urlwalk.routes():
        view = route.entry.callback
        view_class = getattr(view, "cls", None)
        actions = getattr(view, "actions", None) or {}
        if view_class is None or actions.get("get") != "list":
            continue
        paginator = view_class.pagination_class
        cap = getattr(paginator, "max_page_size", None) if paginator else None
        if paginator is None or not cap or cap > 1000:
            uncapped.append(f"{route.route}: {paginator} max_page_size={cap}")
    assert not uncapped, "\n".join(uncapped)


# --- maximum design size ------------------------------------------------------------------------


def test_design_size_limit_at_the_configured_value(
    api_client, logged_in_client, seed_catalog, settings
):
    settings.DESIGN_MAX_GPUS = 32  # 4 DGX-H100 of 8 GPUs each
    at_limit = api_client.post("/api/planner/designs/", {"spec": TINY_SPEC}, format="json")
    assert at_limit.status_code == 201, at_limit.content
    over = api_client.post(
        "/api/planner/designs/", {"spec": {**TINY_SPEC, "servers": 5}}, format="json"
    )
    assert over.status_code == 400
    [problem] = over.json()["problems"]
    assert problem["field"] == "servers"
    assert "40 GPUs" in problem["message"] and "32 GPUs (DESIGN_MAX_GPUS)" in problem["message"]
    wizard = {
        "source": "form",
        "name": "Too big",
        "topology": "rail-optimized",
        "server": "DGX-H100",
        "servers": 5,
        "leaf": "QM9700",
        "planes": 1,
        "tiers": "auto",
        "oversubscription": 1,
        "reserved_leaf_ports": 0,
        "media_server_leaf": "auto",
        "media_leaf_spine": "auto",
        "media_spine_core": "auto",
        "sharing": "private",
    }
    page = logged_in_client.post("/designs/new/", wizard)
    assert page.status_code == 200 and "32 GPUs (DESIGN_MAX_GPUS)" in page.content.decode()
    assert Design.objects.count() == 1


# --- login lock-out -----------------------------------------------------------------------------


def _login(client, username, password, address="10.0.0.1"):
    return client.post("/login/", {"username": username, "password": password}, REMOTE_ADDR=address)


def test_login_locks_after_failures_per_username_and_address(client, user, other_user):
    limit = django_settings.AXES_FAILURE_LIMIT
    for _ in range(limit - 1):
        response = _login(client, "alice", "wrong")
        assert response.status_code == 200 and b"didn't match" in response.content
    assert _login(client, "alice", "wrong").status_code == 429  # the limit-th failure locks
    locked = _login(client, "alice", "pw-alice-123!")  # even the right password
    assert locked.status_code == 429
    assert int(locked["Retry-After"]) == django_settings.AXES_COOLOFF_TIME.total_seconds()
    assert b"Too many failed logins" in locked.content and "_auth_user_id" not in client.session
    # Another username from that address, and the same username from another, still log in.
    assert _login(Client(), "bob", "pw-bob-123!").status_code == 302
    assert _login(Client(), "alice", "pw-alice-123!", address="10.0.0.2").status_code == 302
    # authenticate() without a request (test client, scripts) is no web login: not counted.
    assert Client().login(username="bob", password="pw-bob-123!")


def test_login_opens_again_after_the_cool_off(client, user):
    from axes.models import AccessAttempt

    for _ in range(django_settings.AXES_FAILURE_LIMIT):
        _login(client, "alice", "wrong")
    assert _login(client, "alice", "pw-alice-123!").status_code == 429
    cool_off = django_settings.AXES_COOLOFF_TIME
    AccessAttempt.objects.update(
        attempt_time=AccessAttempt.objects.get().attempt_time - cool_off - timedelta(seconds=1)
    )
    assert _login(client, "alice", "pw-alice-123!").status_code == 302
    # A success resets the count: failures start again from zero.
    assert not AccessAttempt.objects.filter(failures_since_start__gt=0).exists()


def test_failed_attempts_store_no_password(client, user):
    from axes.models import AccessAttempt

    _login(client, "alice", "s3cret-guess-1")
    stored = " ".join(str(value) for value in AccessAttempt.objects.values().get().values())
    assert "s3cret-guess-1" not in stored


# --- CSRF ---------------------------------------------------------------------------------------


@pytest.fixture
def staff_with_a_design(seed_catalog, django_user_model):
    from planner.designs.services import design_create

    staff = django_user_model.objects.create_user(
        username="stella", password="pw-stella-123!", is_staff=True
    )
    design = design_create(owner=staff, spec_document=TINY_SPEC)
    try:
        from inventory.models import PriceBook
        from inventory.services import SEED_PRICE_BOOK
        from planner.quotes.services import quote_create

        book = PriceBook.objects.get(slug=SEED_PRICE_BOOK)
        quote_create(design=design, actor=staff, customer="ACME", price_book=book)
    except ImportError:  # quotes not in this build
        pass
    return staff, design


def _pages(client, design) -> list[str]:
    """Every page without parameters, and every page reachable from the design's."""
    urls = [
        route.url({})
        for route in urlwalk.routes()
        if not route.params and not route.is_api and route.name not in {"logout", "healthz"}
    ]
    urls += ["/catalog/switch/QM9700/", "/catalog/switch/QM9700/edit/", "/catalog/switch/new/"]
    crawled = urlwalk.crawl(client, [design.get_absolute_url()])
    for route in urlwalk.routes():
        if route.route in crawled:
            kwargs, query = crawled[route.route]
            urls.append(route.url(kwargs, query))
    return sorted(set(urls))


def test_every_post_form_carries_a_csrf_token(staff_with_a_design):
    staff, design = staff_with_a_design
    client = Client()
    client.force_login(staff)
    missing, forms = [], 0
    for url in _pages(client, design):
        response = client.get(url)
        if response.status_code != 200 or "html" not in response.get("Content-Type", ""):
            continue
        for form in urlwalk.parse_html(response.content.decode()).forms:
            if (form.get("method") or "get").lower() != "post":
                continue
            forms += 1
            if "csrfmiddlewaretoken" not in form["inputs"]:
                missing.append(f"{url}: form to {form.get('action') or '(itself)'}")
    assert not missing, "\n".join(missing)
    assert forms >= 10  # logout on every page, restore, jobs, catalog, transfer, quotes


def test_a_post_without_the_csrf_token_is_refused(staff_with_a_design):
    staff, design = staff_with_a_design
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(staff)
    for url in (
        f"/designs/{design.pk}/revisions/1/restore/",
        f"/designs/{design.pk}/delete/",
        "/jobs/diagnostics/",
        "/account/token/",
        "/catalog/transfer/",
    ):
        assert strict.post(url, {}).status_code == 403, url
    # The API with a session needs the token too; with an API token it does not.
    api_post = strict.post(f"/api/planner/designs/{design.pk}/revisions/1/restore/")
    assert api_post.status_code == 403 and b"CSRF" in api_post.content
    token = Token.objects.create(user=staff)
    by_token = APIClient(enforce_csrf_checks=True)
    by_token.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert (
        by_token.post(f"/api/planner/designs/{design.pk}/revisions/1/restore/").status_code == 201
    )
    assert Design.objects.get().revisions.count() == 2  # only the token's restore happened


# --- security headers ----------------------------------------------------------------------


def test_security_headers_on_pages_api_and_errors(logged_in_client, settings):
    settings.REQUEST_MAX_BYTES = 10
    responses = {
        "page": logged_in_client.get("/designs/"),
        "api": logged_in_client.get("/api/planner/designs/"),
        "404": logged_in_client.get("/designs/999999/"),
        "413": logged_in_client.post(
            "/catalog/transfer/", {"csv-file": SimpleUploadedFile("a.csv", b"x" * 100)}
        ),
        "static": logged_in_client.get("/static/app/app.css"),
    }
    for what, response in responses.items():
        assert response["X-Frame-Options"] == "DENY", what
        assert response["X-Content-Type-Options"] == "nosniff", what
        assert response["Referrer-Policy"] == "same-origin", what
        assert response["Cross-Origin-Opener-Policy"] == "same-origin", what
        policy = dict(
            part.strip().split(" ", 1) for part in response["Content-Security-Policy"].split(";")
        )
        assert policy["script-src"] == "'self'", what
        assert policy["frame-ancestors"] == "'none'" and policy["object-src"] == "'none'", what
    assert responses["413"].status_code == 413


INLINE_SCRIPT = re.compile(
    r"<script(?![^>]*\bsrc=)(?![^>]*type=\"application/json\")[^>]*>|\son[a-z]+\s*=|javascript:",
    re.IGNORECASE,
)


def test_templates_have_no_inline_script():
    """The policy allows scripts from this site only: no inline <script>, on*= handlers or
    javascript: URLs in any template (json_script data is fine)."""
    offenders = []
    for path in sorted((ROOT / "templates").rglob("*.html")):
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if INLINE_SCRIPT.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}")
    assert not offenders, "\n".join(offenders)


def test_swagger_ui_loads_its_script_from_a_url(logged_in_client):
    page = logged_in_client.get("/api/docs/").content.decode()
    assert not re.search(r"<script>(?!\s*</script>)", page)
    script = re.search(r'<script src="([^"]*\?script=?)"', page)
    assert script, page
    assert logged_in_client.get(script.group(1)).status_code == 200


# --- secrets never logged -----------------------------------------------------------------------


@pytest.fixture
def log_output():
    """What the app's configured log handlers write (filters included), at DEBUG, with SQL."""
    from django.db import connection

    buffer = io.StringIO()
    root = logging.getLogger()
    handlers = [h for h in root.handlers if isinstance(h, logging.StreamHandler)]
    assert handlers and any(
        isinstance(f, RedactSecretsFilter) for h in handlers for f in h.filters
    ), "the settings' console handler lost its redact_secrets filter"
    # Swap the streams without flushing the old ones: an earlier test's captured stderr may be
    # closed already (setStream would flush it and fail).
    saved = [(h, h.stream) for h in handlers]
    for handler in handlers:
        handler.stream = buffer
    levels = {name: logging.getLogger(name).level for name in ("", "django.db.backends", "axes")}
    for name in levels:
        logging.getLogger(name).setLevel(logging.DEBUG)
    connection.force_debug_cursor = True  # SQL with its parameters is logged too
    yield buffer
    connection.force_debug_cursor = False
    for name, level in levels.items():
        logging.getLogger(name).setLevel(level)
    for handler, stream in saved:
        handler.stream = stream


def test_passwords_and_tokens_never_reach_the_logs(client, user, log_output):
    password = "Wr0ng-horse-battery"
    client.post("/login/", {"username": "alice", "password": password})
    client.post("/login/", {"username": "alice", "password": password + "2"})
    token = Token.objects.create(user=user)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert api.get("/api/planner/designs/").status_code == 200
    assert api.get("/api/planner/designs/999999/").status_code == 404  # logs "Not Found"
    bad = APIClient()
    wrong_last = "1" if token.key.endswith("0") else "0"  # never the real key
    bad.credentials(HTTP_AUTHORIZATION=f"Token {token.key[:-1]}{wrong_last}")
    assert bad.get("/api/planner/designs/").status_code == 401
    logging.getLogger("planner").warning(
        "request headers: %s", {"Authorization": f"Token {token.key}"}
    )
    written = log_output.getvalue()
    assert "SELECT" in written and "AXES" in written  # the capture saw SQL and the lock-out log
    assert password not in written
    assert token.key not in written and token.key[:-1] not in written


def test_redact_covers_the_usual_shapes():
    key = "0123456789abcdef0123456789abcdef01234567"
    assert key not in redact(f"Authorization: Token {key}")
    assert key not in redact(f"SELECT ... WHERE key = '{key}'; args=('{key}',)")
    assert "hunter2" not in redact("{'username': 'al', 'password': 'hunter2'}")
    assert "hunter2" not in redact('{"new_password1": "hunter2"}')
    assert "abc123" not in redact("Cookie: sessionid=abc123; csrftoken=abc123")
    assert redact("design 42 saved by alice") == "design 42 saved by alice"
