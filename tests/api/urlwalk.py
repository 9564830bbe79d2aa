"""Walk every URL pattern the resolver knows, and fill its parameters with real objects.

Used by the access-control and limits tests, so that a page or endpoint added later is covered
without anyone listing it. A pattern's parameters are filled by what they name:

- by parameter name (``design_pk``, ``job_pk``, ``quote_pk``, ...) or, for ``pk``/``id``/
  ``number``, by the path segment before it (``designs/<pk>``, ``revisions/<number>``,
  ``jobs/<pk>``, ``quotes/<pk>``, ``audit/<pk>``): see :data:`OBJECT_BY_NAME` and
  :data:`OBJECT_BY_SEGMENT`;
- any other parameter (a file format, an export kind) from the links and forms of the pages
  the design's owner sees (:func:`crawl`), query string included.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import urlsplit

from django.urls import URLPattern, URLResolver, get_resolver, resolve
from django.urls.exceptions import Resolver404
from rest_framework.views import APIView

#: Parameter names that always mean one kind of object.
OBJECT_BY_NAME = {
    "design_pk": "design",
    "design_id": "design",
    "revision_number": "revision",
    "job_pk": "job",
    "job_id": "job",
    "quote_pk": "quote",
    "quote_id": "quote",
    "event_pk": "audit",
    "team_slug": "team",
    "username": "member",  # teams/<team_slug>/members/<username>/
}
#: For ``pk``, ``id``, ``number`` and the like: the object named by the segment before it.
OBJECT_BY_SEGMENT = {
    "designs": "design",
    "design": "design",
    "revisions": "revision",
    "revision": "revision",
    "jobs": "job",
    "job": "job",
    "quotes": "quote",
    "quote": "quote",
    "audit": "audit",
    "cabling": "asbuilt",  # as-built/cabling/<pk>/ (API)
    "as-built": "asbuilt",  # as-built/<import_pk>/csv/ (page)
}
#: Values to try for parameters that are not objects, when no page links to the pattern.
DEFAULTS = {
    "format": ["json"],
    "fmt": ["yaml", "json", "csv", "xlsx", "pdf", "txt"],
    "kind": ["bom", "cabling", "csv", "json"],
}

_PARAM = re.compile(r"<(?:(?P<conv>\w+):)?(?P<name>\w+)>|\(\?P<(?P<rname>\w+)>(?P<regex>[^)]*)\)")


@dataclass(frozen=True)
class Route:
    """One URL pattern: its full route text, name and view."""

    route: str
    name: str
    entry: URLPattern = field(compare=False, hash=False)

    @property
    def is_api(self) -> bool:
        view = self.entry.callback
        view_class = getattr(view, "cls", None) or getattr(view, "view_class", None)
        return isinstance(view_class, type) and issubclass(view_class, APIView)

    @property
    def params(self) -> list[tuple[str, str, str]]:
        """``(name, converter or regex, segment before it)`` for each parameter."""
        found = []
        for match in _PARAM.finditer(self.route):
            name = match.group("name") or match.group("rname")
            kind = match.group("conv") or match.group("regex") or "str"
            before = self.route[: match.start()].rstrip("/.").replace("\\", "")
            segment = re.split(r"[/.^]", before)[-1] if before else ""
            found.append((name, kind, segment))
        return found

    def object_of(self, name: str, segment: str) -> str | None:
        """The kind of object a parameter names, or ``None``."""
        if name in OBJECT_BY_NAME:
            return OBJECT_BY_NAME[name]
        if name in {"pk", "id", "number"} or name.endswith(("_pk", "_id")):
            return OBJECT_BY_SEGMENT.get(segment)
        return None

    @property
    def objects(self) -> set[str]:
        """Kinds of object this route's parameters name (empty: not object-scoped)."""
        return {kind for n, _, s in self.params if (kind := self.object_of(n, s))}

    def url(self, values: dict[str, str], query: str = "") -> str:
        """The route with ``values`` for its parameters."""

        def fill(match):
            return str(values[match.group("name") or match.group("rname")])

        path = _PARAM.sub(fill, self.route)
        path = path.replace("^", "").replace("$", "").replace("\\Z", "").replace("\\", "")
        path = path.replace("/?", "/")
        return "/" + path + (f"?{query}" if query else "")


def _walk(patterns, prefix=""):
    for entry in patterns:
        if isinstance(entry, URLResolver):
            yield from _walk(entry.url_patterns, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern):
            yield prefix + str(entry.pattern), entry


def routes() -> list[Route]:
    """Every URL pattern of the app (the admin's and static files' left out)."""
    found = {}
    for route, entry in _walk(get_resolver().url_patterns):
        if route.startswith(("admin/", "^admin/", "static/")):
            continue
        found.setdefault(route, Route(route, entry.name or "", entry))
    return sorted(found.values(), key=lambda r: r.route)


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links: list[str] = []
        self.forms: list[dict] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])
        if tag == "form":
            self.forms.append({**attrs, "inputs": []})
        if tag in {"input", "button"} and self.forms and attrs.get("name"):
            self.forms[-1]["inputs"].append(attrs["name"])


def parse_html(text: str) -> _Links:
    """Links (``href``) and forms (attributes and input names) of a page."""
    parser = _Links()
    parser.feed(text)
    return parser


def route_of(url: str):
    """``(route text, kwargs, query)`` of a local URL, or ``None``."""
    parts = urlsplit(url)
    if parts.netloc or not parts.path.startswith("/"):
        return None
    try:
        match = resolve(parts.path)
    except Resolver404:
        return None
    return match.route, match.kwargs, parts.query


def name_of(url: str) -> str:
    """The URL name a local URL resolves to ("" if none)."""
    try:
        return resolve(urlsplit(url).path).url_name or ""
    except Resolver404:
        return ""


class Filler:
    """Fills routes with the objects of one scenario, other parameters from ``values`` (values
    to try per parameter name, e.g. catalog slugs or every file format) or else a crawl."""

    def __init__(
        self,
        objects: dict[str, object],
        crawled: dict[str, tuple[dict, str]],
        values: dict[str, list] | None = None,
    ):
        self.objects = objects  # kind (or "kind:converter") -> value(s) (pk, number, uuid)
        self.crawled = crawled  # route -> (kwargs, query) seen on the owner's pages
        self.values = values or {}  # parameter name -> values to try

    def fill(self, route: Route) -> str | None:
        """The URL of ``route`` for this scenario's objects, or ``None`` if it cannot be."""
        candidates = self.candidates(route)
        return candidates[0] if candidates else None

    def candidates(self, route: Route) -> list[str]:
        """URLs of ``route`` for this scenario's objects, best guess first (several when a
        parameter that is not an object was not seen on a page); empty if it cannot be."""
        seen_kwargs, query = self.crawled.get(route.route, ({}, ""))
        values: dict[str, list] = {}
        for name, converter, segment in route.params:
            kind = route.object_of(name, segment)
            if kind is not None:
                # A converter-specific value first: a quote by number under <str:number>.
                # Several objects of one kind (a job of each kind) are tried in turn.
                value = self.objects.get(f"{kind}:{converter}", self.objects.get(kind))
                if value is None:
                    return []
                values[name] = list(value) if isinstance(value, list | tuple) else [value]
            elif name in self.values:
                values[name] = list(self.values[name])
            elif name in seen_kwargs:
                values[name] = [seen_kwargs[name]]
            elif name in DEFAULTS:
                values[name] = DEFAULTS[name]
            else:
                return []
        names = list(values)
        return [
            route.url(dict(zip(names, combination, strict=True)), query)
            for combination in itertools.product(*(values[name] for name in names))
        ]


def crawl(client, start_urls: list[str], rounds: int = 3) -> dict[str, tuple[dict, str]]:
    """Follow the links and form actions of the pages reachable from ``start_urls``.

    GET only, object-scoped pages only, ``rounds`` deep. Returns ``{route: (kwargs, query)}``
    of every URL seen, preferring one with a query string (a diff needs ``?from=&to=``).
    """
    object_routes = {route.route for route in routes() if route.objects}
    seen: dict[str, tuple[dict, str]] = {}
    fetched: set[str] = set()
    frontier = list(start_urls)
    for _ in range(rounds):
        next_frontier = []
        for url in frontier:
            if url in fetched:
                continue
            fetched.add(url)
            response = client.get(url)
            if response.status_code != 200 or "html" not in response.get("Content-Type", ""):
                continue
            page = parse_html(response.content.decode())
            targets = page.links + [form.get("action") or url for form in page.forms]
            for target in targets:
                found = route_of(target)
                if found is None:
                    continue
                route, kwargs, query = found
                kwargs = {k: str(v) for k, v in kwargs.items()}
                if route not in seen or (query and not seen[route][1]):
                    seen[route] = (kwargs, query)
                if route in object_routes:
                    next_frontier.append(target)
        frontier = next_frontier
    return seen
