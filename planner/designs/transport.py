"""A revision's transport: its current settings and the InfiniBand vs RoCEv2 comparison, for the
design page and the API.

Reads only (nothing stored). The comparison (:func:`planner.analyses.transport_compare.
compare_transports`) rebuilds the revision's spec with each transport's switches; it is kept in
the cache per revision and catalog state (revisions never change), without prices. Prices are
applied on each read at the price book asked for, and only for users with the price right: a
user without it never gets a price computed.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass
from decimal import Decimal

from django.core.cache import cache
from django.core.exceptions import ValidationError

from inventory.permissions import price_books_for
from planner.analyses.transport_compare import compare_transports, price_comparison
from planner.analyses.transport_features import TRANSPORT_NAMES, TransportComparison
from planner.designs.adapters import (
    catalog_facts,
    catalog_fingerprint,
    price_of_factory,
    price_table,
)
from planner.designs.cache import cached, price_fingerprint, revision_ref
from planner.designs.figures import cost_book, power_text
from planner.designs.models import DesignRevision
from planner.designs.selectors import revision_fabric, revision_part_names
from planner.domain.catalog import CatalogLookupError
from planner.domain.spec import SpecError
from planner.domain.transport.resolve import resolve_transport
from planner.teams.selectors import quote_require_prices, user_can_view_prices

#: Revisions never change; the catalog fingerprint in the key retires an entry when it does.
CACHE_SECONDS = 24 * 3600
NO_SPEC = (
    "This revision has no spec (it was drawn on the canvas), so it cannot be rebuilt with the "
    "other transport's switches."
)


@dataclass(frozen=True)
class RevisionTransport:
    """What the page and the API show: the current settings, the comparison (or why not)."""

    settings: dict | None  # TransportSettings.as_dict() of the stored fabric
    #: "design" (stored with the revision), "defaults" (a revision saved before transport
    #: settings were kept) or "profile" (a design with none of its own, e.g. drawn on the
    #: canvas): the last two show the defaults of its switches' profile
    settings_origin: str
    comparison: TransportComparison | None
    unavailable: str = ""  # why there is no comparison
    edited: bool = False  # the topology was edited on the canvas: the spec is rebuilt

    def as_dict(self) -> dict:
        return {
            "settings": self.settings,
            "settings_origin": self.settings_origin,
            "comparison": None if self.comparison is None else self.comparison.as_dict(),
            "unavailable": self.unavailable,
            "edited_topology": self.edited,
        }


def _key(revision: DesignRevision) -> str:
    """The cache key of ``revision``'s transport (v3: the comparison's records moved to
    ``planner.analyses.transport_features``, so entries pickled before cannot be read)."""
    created = revision.created.timestamp() if revision.created else 0
    return f"planner:transport:v3:{revision.pk}:{created}:{catalog_fingerprint()}"


def _settings(fabric, facts) -> tuple[dict | None, str]:
    """The fabric's transport settings and their origin (see :class:`RevisionTransport`)."""
    if fabric.settings.transport is not None:
        return fabric.settings.transport.as_dict(), "design"
    origin = "defaults" if fabric.settings.legacy else "profile"
    try:
        return resolve_transport(None, fabric, facts).as_dict(), origin
    except (SpecError, KeyError, ValueError):
        return None, origin


def revision_transport(revision: DesignRevision) -> RevisionTransport:
    """The transport settings of ``revision`` and its comparison (cached; see the module)."""
    key = _key(revision)
    found = cache.get(key)
    if found is not None:
        return found
    facts = catalog_facts(for_new=True, keep=revision_part_names(revision))
    try:
        fabric = revision_fabric(revision)
    except (zlib.error, json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError, ValueError):
        fabric = None
    settings, origin = _settings(fabric, facts) if fabric is not None else (None, "defaults")
    edited = bool(fabric is not None and fabric.settings.generated is not None)
    spec = revision.spec if isinstance(revision.spec, dict) else {}
    comparison, unavailable = None, ""
    if not spec:
        unavailable = NO_SPEC
    else:
        try:
            price_of = price_of_factory(spec.get("price_book"))
        except CatalogLookupError:
            price_of = None
        try:
            summary = revision.summary or {}
            counts = summary.get("switches") if isinstance(summary.get("switches"), dict) else None
            comparison = compare_transports(
                spec, facts, price_of=price_of, gpus=summary.get("gpus"), current_counts=counts
            )
        except (SpecError, CatalogLookupError) as exc:
            reason = str(exc.args[0]) if exc.args else str(exc)  # a KeyError's str() quotes it
            unavailable = f"The revision's spec cannot be rebuilt with today's catalog: {reason}"
    result = RevisionTransport(settings, origin, comparison, unavailable, edited)
    cache.set(key, result, CACHE_SECONDS)
    return result


def comparison_cost(comparison: TransportComparison | None, book) -> dict | None:
    """Both sides priced at ``book`` (its currency, new condition, no discounts), or None.
    The caller has checked the price right."""
    if comparison is None or book is None:
        return None

    return price_comparison(comparison, price_table(book), currency=book.currency)


def revision_transport_for(user, revision: DesignRevision, *, price_book_slug: str | None = None):
    """:func:`revision_transport` as JSON for ``user``: with ``cost`` only when a price book
    is named, and then only for users with the price right.

    Raises
    ------
    PermissionDenied
        A price book was named but ``user`` may not see prices.
    django.core.exceptions.ValidationError
        No price book the user reads has that slug (field ``price_book``).
    """
    book = None
    if price_book_slug:
        quote_require_prices(user_can_view_prices(user))
        book = price_books_for(user).filter(slug=price_book_slug).first()
        if book is None:
            raise ValidationError({"price_book": f"No price book {price_book_slug!r}."})
    found = revision_transport(revision)
    cost = comparison_cost(found.comparison, book)
    if cost is not None:
        cost["price_book"] = book.slug
    return {**found.as_dict(), "cost": cost}


# --- The design page ---------------------------------------------------------------------------


def _source_parts(text: str | None) -> dict:
    """``"https://x (primary; note)"`` -> ``{"url": "https://x", "text": "primary; note"}``;
    other text (``spec``, ``inferred: ...``) has no URL."""
    text = str(text or "")
    if text.startswith("http"):
        url, _, rest = text.partition(" ")
        return {"url": url, "text": rest.strip().strip("()")}
    return {"url": "", "text": text}


def _value_text(value) -> str:
    if value is None:
        return "blank"
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value) or "—"
    if isinstance(value, int | float):
        return f"{value:,}"
    return str(value)


SETTING_LABELS = {
    "routing_engine": "Routing engine",
    "adaptive_routing": "Adaptive routing",
    "shield": "SHIELD (fast link fault recovery)",
    "sharp": "SHARP",
    "profile": "Switch profile",
    "lossless_priority": "Lossless priority",
    "lossless_dscp": "Lossless DSCP",
    "cnp_priority": "CNP priority",
    "cnp_dscp": "CNP DSCP",
    "trust": "Trust",
    "ecn_min_kb": "ECN minimum (KB)",
    "ecn_max_kb": "ECN maximum (KB)",
    "pfc_mode": "PFC mode",
    "mtu_b": "MTU (B)",
    "pfc_watchdog": "PFC watchdog",
    "load_balancing": "Load balancing",
    "multiplane_mode": "Multiplane mode",
}
NIC_LABELS = {
    "profile": "profile",
    "data_priority": "data priority",
    "data_dscp": "data DSCP",
    "cnp_priority": "CNP priority",
    "cnp_dscp": "CNP DSCP",
    "trust": "trust",
    "adaptive_routing": "adaptive routing",
    "multiplane_modes": "multiplane modes",
}


def settings_rows(settings: dict | None) -> tuple[list[dict], list[dict]]:
    """(setting rows, NIC rows) of a ``TransportSettings.as_dict()``: label, value text and
    its source (URL and provenance text) per field."""
    if not settings:
        return [], []
    sources = settings.get("sources") or {}
    kind = settings.get("transport")
    block = settings.get(kind) or {}
    rows = []
    for name, label in SETTING_LABELS.items():
        if name not in block:
            continue
        value = block[name]
        if name == "mtu_b" and block.get("mtu_by_role"):
            overrides = ", ".join(f"{r} {v:,}" for r, v in block["mtu_by_role"].items())
            value = f"{_value_text(value)} ({overrides})"
        rows.append(
            {
                "label": label,
                "value": value if isinstance(value, str) else _value_text(value),
                "source": _source_parts(sources.get(f"{kind}.{name}")),
            }
        )
    nics = []
    for key, nic in (block.get("nics") or {}).items():
        fields = []
        for name, label in NIC_LABELS.items():
            fields.append(
                {
                    "label": label,
                    "value": _value_text(nic.get(name)),
                    "source": _source_parts(sources.get(f"{kind}.nics.{key}.{name}")),
                }
            )
        nics.append({"key": key, "fields": fields})
    return rows, nics


def _w(watts) -> str:
    return power_text(watts)


def _gbps(value) -> str:
    return "—" if value is None else f"{value:,.1f} Gb/s"


def _pct(value) -> str:
    return "—" if value is None else f"{value * 100:,.0f} %"


def _counterpart_pairs(side: dict) -> list[dict]:
    """The side's switch replacements, one row per original -> chosen pair (roles joined)."""
    pairs: dict[tuple, dict] = {}
    for c in side["counterparts"]:
        key = (c["original"], c["chosen"], c["speed_gbps"])
        entry = pairs.setdefault(key, {**c, "roles": []})
        entry["roles"].append(c["role"])
    for entry in pairs.values():
        entry["roles"] = ", ".join(entry["roles"])
        entry["alternatives"] = ", ".join(entry["alternatives"][:6])
    return list(pairs.values())


def _side_rows(side: dict, cost: dict | None) -> dict:
    power = side.get("power") or {}
    flows = [
        {
            **run,
            "busbw": _gbps(run["busbw_gbps"]),
            "bound": _gbps(run["bound_busbw_gbps"]),
            "efficiency_text": _pct(run["efficiency"]),
            "utilization": _pct(run["max_link_utilization"]),
            "time": "—"
            if run["completion_time_s"] is None
            else f"{run['completion_time_s'] * 1000:,.1f} ms",
        }
        for run in side["flows"]
    ]
    counts = ", ".join(f"{n:,} {role}" for role, n in side["switch_counts"].items())
    models = ", ".join(f"{role} {slug}" for role, slug in side["switches"].items())
    return {
        **side,
        "models": models,
        "counts": counts,
        "quantity_rows": [{"group": g, "n": f"{n:,}"} for g, n in side["quantities"].items()],
        "power_rows": [
            {"label": "Switches", "value": _w(power.get("switches_w"))},
            {"label": "Optics", "value": _w(power.get("transceivers_w"))},
            {"label": "Cables", "value": _w(power.get("cables_w"))},
            {"label": "Network total", "value": _w(power.get("network_w"))},
        ]
        if power
        else [],
        "per_gpu": "—"
        if power.get("network_w_per_gpu") is None
        else f"{power['network_w_per_gpu']:,.1f} W per GPU",
        "flow_rows": flows,
        "pairs": _counterpart_pairs(side),
        "cost": cost,
    }


def _money(amount: str | None, currency: str) -> str:
    if amount is None:
        return "—"
    return f"{Decimal(amount):,.2f} {currency}"


def _cost_rows(cost: dict | None) -> dict | None:
    if not cost:
        return None
    currency = cost["currency"]
    sides = {}
    for transport, side in cost["sides"].items():
        if side is None:
            sides[transport] = None
            continue
        sides[transport] = {
            **side,
            "total_text": _money(side["total"], currency),
            "group_rows": [
                {
                    "group": g["group"],
                    # a group none of whose lines is priced has no cost, not a zero one
                    "cost": "not priced"
                    if g["unpriced_lines"] and not g["cost"]
                    else _money(g["cost"], currency),
                    "unpriced": g["unpriced_lines"],
                }
                for g in side["groups"]
            ],
            "largest_rows": [
                {
                    "name": p["name"] or p["part"],
                    "quantity": f"{p['quantity']:,}",
                    "unit": _money(p["unit"], currency),
                    "cost": _money(p["cost"], currency),
                }
                for p in side["largest"]
            ],
        }
    differences = []
    for entry in [*cost["differences"], {"group": "total", "difference": cost["difference"]}]:
        amount = entry["difference"]
        if amount is None:
            continue
        value = Decimal(amount)
        if value == 0:
            text = "the same on both sides"
        else:
            cheaper = "less" if value < 0 else "more"
            text = f"the RoCEv2 build costs {_money(str(abs(value)), currency)} {cheaper}"
        differences.append({"group": entry["group"], "text": text})
    not_compared = [d["group"] for d in cost["differences"] if not d["comparable"]]
    return {
        "currency": currency,
        "sides": sides,
        "differences": differences,
        "not_compared": ", ".join(not_compared),
        "complete": all(s and s["complete"] for s in cost["sides"].values()),
    }


def page_context(user, revision: DesignRevision | None) -> dict:
    """The design page's transport section for ``revision`` (``{}`` without a revision):
    current settings, the comparison with formatted figures (units, thousands separators), and
    costs at the seed price book for users with the price right."""
    if revision is None:
        return {}

    found = revision_transport(revision)
    rows, nics = settings_rows(found.settings)
    context = {
        "settings": found.settings,
        "settings_name": TRANSPORT_NAMES.get((found.settings or {}).get("transport"), "—"),
        "settings_origin": found.settings_origin,
        "setting_rows": rows,
        "nic_rows": nics,
        "unavailable": found.unavailable,
        "edited": found.edited,
        "comparison": None,
    }
    if found.comparison is None:
        return context
    data = found.comparison.as_dict()
    book = cost_book(user)
    cost = None
    if book is not None:  # the price right was checked by cost_book: the book is theirs
        priced = cached(
            "transport-cost",
            [revision_ref(revision), price_fingerprint(book)],
            lambda: comparison_cost(found.comparison, book),
        )
        cost = _cost_rows(priced)
    sides = [
        _side_rows(side, (cost or {}).get("sides", {}).get(side["transport"]) if cost else None)
        for side in data["sides"]
    ]
    context.update(
        comparison=data,
        sides=sides,
        cost=cost,
        price_book=book,
        gpus_text=f"{data['gpus']:,}" if data["gpus"] is not None else "—",
        max_gpus_text=f"{data['max_gpus']:,}",
        size_text=f"{data['size_bytes'] / 1e9:,.0f} GB",
    )
    return context
