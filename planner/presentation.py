"""How design summaries read on the pages: figures, and the rows of each summary table.

Pure formatting of the dict :func:`planner.domain.summary.summarize` returns; templates only
loop over the rows built here.
"""

from __future__ import annotations

TIER_LABELS = {
    "server-leaf": "Server – leaf",
    "leaf-spine": "Leaf – spine",
    "spine-core": "Spine – core",
}
ROLE_LABELS = {"leaf": "Leaf", "spine": "Spine", "core": "Core"}


def number(value) -> str:
    """``1016`` -> ``"1,016"``; ``2.5`` -> ``"2.5"``; ``None`` -> ``"—"``."""
    if value is None or value == "":
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return f"{int(value):,}"
    if isinstance(value, float):
        return f"{value:,.4g}" if abs(value) < 1000 else f"{value:,.1f}"
    return str(value)


def bandwidth(gbps) -> str:
    """``51200`` -> ``"51.2 Tb/s"``; ``400`` -> ``"400 Gb/s"``."""
    if gbps is None:
        return "—"
    if gbps >= 1000:
        return f"{gbps / 1000:,.4g} Tb/s" if gbps < 10_000_000 else f"{gbps / 1000:,.0f} Tb/s"
    return f"{gbps:g} Gb/s"


def ratio(value) -> str:
    return "—" if value is None else f"{float(value):g}:1"


def key_figures(summary: dict) -> list[tuple[str, str, str]]:
    """``(label, value, test id)`` tiles at the top of a summary."""
    switches = summary.get("switches") or {}
    over = summary.get("oversubscription") or {}
    return [
        ("GPUs", number(summary.get("gpus")), "gpus"),
        ("Servers", number(summary.get("servers")), "servers"),
        ("Switches", number(summary.get("switches_total", sum(switches.values()))), "switches"),
        ("Tiers", number(summary.get("tiers")), "tiers"),
        ("Planes", number(summary.get("planes")), "planes"),
        ("Link speed", bandwidth(summary.get("speed_gbps")), "speed"),
        ("Bisection", bandwidth(summary.get("bisection_gbps")), "bisection"),
        ("Leaf oversubscription", ratio(over.get("leaf")), "oversubscription"),
        ("Max hops", number(summary.get("max_hops")), "hops"),
    ]


def switch_rows(summary: dict) -> list[tuple[str, str, str]]:
    """``(tier, model, count)`` per tier and switch model."""
    rows = []
    for role, models in (summary.get("switches_by_model") or {}).items():
        for model, count in models.items():
            rows.append((ROLE_LABELS.get(role, role), model, number(count)))
    return rows


def link_rows(summary: dict) -> list[tuple[str, str, str]]:
    """``(tier, links, capacity)`` for the tiers the fabric has."""
    links = summary.get("links") or {}
    capacity = summary.get("capacity_gbps") or {}
    return [
        (TIER_LABELS.get(tier, tier), number(count), bandwidth(capacity.get(tier)))
        for tier, count in links.items()
        if count
    ]


def transceiver_rows(summary: dict) -> list[tuple[str, str, str, str]]:
    """``(part, on switches, on servers, total)`` modules per part."""
    by_side = summary.get("transceivers_by_side") or {}
    switch, server = by_side.get("switch") or {}, by_side.get("server") or {}
    return [
        (part, number(switch.get(part, 0)), number(server.get(part, 0)), number(total))
        for part, total in (summary.get("transceivers") or {}).items()
    ]


def cable_rows(summary: dict) -> list[dict]:
    """Per cable part: ``part``, ``total``, ``span`` (shortest–longest) and ``lengths``
    (``(length, count)`` pairs, empty when no length is known)."""
    by_length = summary.get("cables_by_length") or {}
    rows = []
    for part, total in (summary.get("cables") or {}).items():
        lengths = list((by_length.get(part) or {}).items())
        span = ""
        if lengths:
            first, last = lengths[0][0], lengths[-1][0]
            span = f"{first} m" if first == last else f"{first}–{last} m"
        rows.append(
            {
                "part": part,
                "total": number(total),
                "span": span,
                "lengths": [(f"{length} m", number(count)) for length, count in lengths],
            }
        )
    return rows


def summary_context(summary: dict) -> dict:
    """Everything a summary template shows."""
    return {
        "figures": key_figures(summary),
        "switch_rows": switch_rows(summary),
        "link_rows": link_rows(summary),
        "transceiver_rows": transceiver_rows(summary),
        "cable_rows": cable_rows(summary),
        "extra": [
            ("Rails", number(summary.get("rails"))),
            ("Servers per SU", number(summary.get("servers_per_su"))),
            ("Scalable units", number(summary.get("scalable_units"))),
            ("Reserved leaf ports (UFM)", number(summary.get("reserved_leaf_ports"))),
            ("Spine oversubscription", ratio((summary.get("oversubscription") or {}).get("spine"))),
            ("Racks", number(summary.get("racks"))),
        ],
    }


def diff_rows(changes: dict) -> list[tuple[str, str, str, str]]:
    """``(path, old, new, delta)`` rows of a ``diff_summaries`` result."""
    rows = []
    for path, change in changes.items():
        delta = change.get("delta")
        rows.append(
            (
                path,
                number(change.get("old")) if change.get("old") is not None else "—",
                number(change.get("new")) if change.get("new") is not None else "—",
                "" if delta is None else (f"+{number(delta)}" if delta > 0 else number(delta)),
            )
        )
    return rows


#: Summary paths too fine-grained for the first view of a diff (shown folded).
DETAIL_PREFIXES = (
    "cables_by_length.",
    "transceivers_by_side.",
    "transceivers_per_link_end.",
    "switches_by_model.",
    "capacity_gbps.",
)


def split_diff_rows(changes: dict) -> tuple[list, list]:
    """``diff_rows`` split into headline figures and the finer detail (cable lengths, ...)."""
    main = {k: v for k, v in changes.items() if not k.startswith(DETAIL_PREFIXES)}
    detail = {k: v for k, v in changes.items() if k.startswith(DETAIL_PREFIXES)}
    return diff_rows(main), diff_rows(detail)
