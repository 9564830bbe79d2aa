"""Every catalog and price-book write, tried by users who may not make it.

The write operations come from the OpenAPI schema (every POST, PUT, PATCH and DELETE under
``/api/inventory/``) and from the catalog pages' URL patterns (every form that changes
something), so a new write route is probed without editing this file. Each is sent with a body
that would succeed for a catalog editor, by a team viewer who has the price right but not the
catalog-editor permission; each must answer 403 and change nothing. ``make bench``
(tests/bench_security.py) reads the counts this test writes to ``BENCH_STATS_FILE``.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from inventory.api.urls import ROUTES

STATS_FILE = os.environ.get("BENCH_STATS_FILE", "")
METHODS = ("post", "put", "patch", "delete")


@pytest.fixture
def viewer(seed_catalog, django_user_model):
    """A team viewer with the price right and no catalog-editor permission."""
    from planner.teams.models import Team, TeamMembership

    viewer = django_user_model.objects.create_user(username="vera", password="pw-vera-123!")
    team = Team.objects.create(name="Viewers", slug="viewers")
    TeamMembership.objects.create(team=team, user=viewer, role="viewer", can_view_prices=True)
    return viewer


def _catalog_state() -> dict:
    from inventory.models import CATEGORY_MODELS, Manufacturer, Price, PriceBook

    return {
        "parts": {
            category: sorted(model.objects.values_list("slug", "name", "archived"))
            for category, model in CATEGORY_MODELS.items()
        },
        "manufacturers": sorted(Manufacturer.objects.values_list("slug", "name")),
        "books": sorted(PriceBook.objects.values_list("slug", "name", "currency")),
        "prices": sorted(Price.objects.values_list("pk", "price")),
    }


def _api_writes(client) -> list[tuple[str, str]]:
    """(method, path template) of every write operation under /api/inventory/."""
    schema = json.loads(client.get("/api/schema/?format=json").content)
    return [
        (method, path)
        for path, operations in schema["paths"].items()
        if path.startswith("/api/inventory/")
        for method in operations
        if method in METHODS
    ]


def _fill(path: str) -> str:
    """A real object for each path parameter."""
    from inventory.models import CATEGORY_MODELS, Manufacturer, Price, PriceBook

    for category, route in ROUTES.items():
        if path.startswith(f"/api/inventory/{route}/"):
            path = path.replace("{slug}", CATEGORY_MODELS[category].objects.first().slug)
    path = path.replace("{id}", str(Price.objects.first().pk))
    if path.startswith("/api/inventory/manufacturers/"):
        path = path.replace("{slug}", Manufacturer.objects.first().slug)
    if path.startswith("/api/inventory/price-books/"):
        path = path.replace("{slug}", PriceBook.objects.first().slug)
    assert "{" not in path, path
    return path


def _page_writes() -> list[str]:
    """Catalog page URLs that change something when POSTed, with real objects filled in."""
    from inventory.models import CATEGORY_MODELS, PriceBook
    from inventory.urls import urlpatterns

    urls = []
    for pattern in urlpatterns:
        route = str(pattern.pattern)
        if not re.search(r"new/|edit/|delete/|archive/|transfer/|price-books/<", route):
            continue
        if route.endswith(".csv"):
            continue  # a download, not a form
        for category, model in CATEGORY_MODELS.items():
            part = model.objects.first()
            url = "/catalog/" + route.replace("<str:category>", category)
            url = url.replace("<part_slug:slug>", part.slug)
            url = url.replace("<slug:slug>", PriceBook.objects.first().slug)
            if url not in urls and "<" not in url:
                urls.append(url)
    return urls


def _body(method: str, path: str) -> dict:
    """A body a catalog editor's request would be accepted with (shape is not what is probed:
    the permission check comes first, so any body must be refused)."""
    if "price-books" in path:
        return {"slug": "probe-book", "name": "Probe", "currency": "USD"}
    if "prices" in path:
        return {"price": "1.00"}
    return {"name": "Probe edit", "slug": "probe-part", "manufacturer": "nvidia"}


def test_no_catalog_write_by_a_non_editor_succeeds(viewer, client):
    from rest_framework.test import APIClient

    api = APIClient()
    api.force_authenticate(viewer)
    client.force_login(viewer)
    before = _catalog_state()
    statuses: dict[str, int] = {}
    for method, template in _api_writes(client):
        path = _fill(template)
        response = getattr(api, method)(path, _body(method, path), format="json")
        statuses[f"{method.upper()} {template}"] = response.status_code
    for url in _page_writes():
        response = client.post(url, {"name": "Probe edit", "confirm": "yes"})
        statuses[f"POST {url}"] = response.status_code
    allowed = {route: code for route, code in statuses.items() if code not in (403,)}
    if STATS_FILE:
        Path(STATS_FILE).write_text(
            json.dumps(
                {
                    "attempts": len(statuses),
                    "statuses": {
                        str(code): list(statuses.values()).count(code)
                        for code in sorted(set(statuses.values()))
                    },
                    "allowed": len(allowed),
                    "not_403": allowed,
                },
                indent=2,
            )
        )
    assert len(statuses) >= 40, statuses  # the API's writes and the pages' forms were found
    assert not allowed, allowed
    assert _catalog_state() == before  # nothing changed
