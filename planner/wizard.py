"""Reads for the design wizard: which leaf switches can take a server's links, and the
defaults a new design starts from.

A switch "fits" a server when :func:`planner.domain.canvas.link_options` finds at least one
media choice for a server-leaf link between them: the same link rules
(``inventory/library/compat.py``, ``planner/domain/media.py``) the generator and the
validator use. Archived parts are not offered, as in the wizard's lists.
"""

from __future__ import annotations

from planner.adapters import catalog_facts
from planner.domain import canvas


def leaf_fit(server: str) -> dict:
    """Every catalog switch, and whether it can be the leaf of ``server``.

    Returns ``{"server", "known", "switches": [{slug, name, fits, reason}]}``, switches that
    fit first (then by slug); ``reason`` is the rule's own message ("" when it fits).
    ``known`` is false when the catalog has no such server (every switch then fits: the
    server field shows that problem).
    """
    facts = catalog_facts(for_new=True)
    model = facts.devices.get(server)
    known = model is not None and model.category == "server"
    rows = []
    for slug, device in sorted(facts.devices.items()):
        if device.category != "switch" or device.slug != slug:  # aliases: once
            continue
        reason = ""
        if known:
            options = canvas.link_options(server, slug, facts=facts)
            if not list(options):
                reason = " ".join(r["message"] for r in options.refusal) or "no media fits"
        rows.append({"slug": slug, "name": device.name, "fits": not reason, "reason": reason})
    rows.sort(key=lambda row: (not row["fits"], row["slug"]))
    return {"server": server, "known": known, "switches": rows}


def wizard_defaults(servers: list[str]) -> dict:
    """The server and leaf a blank wizard starts with: the first server in ``servers`` that
    some switch can serve, and the first switch that fits it (``{}`` when none does)."""
    for server in servers:
        fitting = [row["slug"] for row in leaf_fit(server)["switches"] if row["fits"]]
        if fitting:
            return {"server": server, "leaf": fitting[0]}
    return {}


def short(text: str, limit: int = 90) -> str:
    """``text`` cut at a word before ``limit`` characters, with "…" when cut.

    >>> short("a b c", 10), short("one two three four", 12)
    ('a b c', 'one two…')
    """
    if len(text) <= limit:
        return text
    return text[: limit - 1].rsplit(" ", 1)[0].rstrip(" ,;:(") + "…"
