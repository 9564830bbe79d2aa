"""How design summaries read on the pages: figures, and the rows of each summary table.

Pure formatting of the dict :func:`planner.domain.summary.summarize` returns; templates only
loop over the rows built here.
"""

from __future__ import annotations

from planner.domain.outputs.quote import minor_unit

TIER_LABELS = {
    "server-leaf": "Server – leaf",
    "leaf-spine": "Leaf – spine",
    "spine-core": "Spine – core",
    "campus": "Between buildings (campus)",
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


def money(amount, currency: str = "") -> str:
    """``32870`` -> ``"32,870.00"``; with ``currency="USD"`` -> ``"32,870.00 USD"``; ``None`` ->
    ``"—"``. Amounts are rounded to the cent as they are stored (``Decimal`` or float)."""
    if amount is None or amount == "":
        return "—"
    text = f"{amount:,.2f}"
    return f"{text} {currency}" if currency else text


def quantity(value, unit: str) -> str:
    """``409600, "Gb/s"`` -> ``"409,600 Gb/s"``; ``None`` -> ``"—"``."""
    text = number(value)
    return text if text == "—" or not unit else f"{text} {unit}"


def count(value, word: str, plural: str = "") -> str:
    """``1016, "GPU"`` -> ``"1,016 GPUs"``; ``1, "note"`` -> ``"1 note"``."""
    many = plural or f"{word}s"
    return f"{number(value)} {word if value == 1 else many}"


SEVERITY_WORDS = {
    "error": ("error", "errors"),
    "warning": ("warning", "warnings"),
    "info": ("note", "notes"),
}


def severity_counts(counts: dict) -> str:
    """``{"warning": 1, "info": 3}`` -> ``"1 warning, 3 notes"`` (errors first; none ->
    ``"no problems"``)."""
    parts = [
        count(counts[key], *SEVERITY_WORDS[key])
        for key in ("error", "warning", "info")
        if counts.get(key)
    ]
    return ", ".join(parts) or "no problems"


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
        (
            "Leaf oversubscription",
            (summary.get("oversubscription_text") or {}).get("leaf") or ratio(over.get("leaf")),
            "oversubscription",
        ),
        ("Max hops", number(summary.get("max_hops")), "hops"),
    ]


def switch_rows(summary: dict) -> list[tuple[str, str, str]]:
    """``(tier, model, count)`` per tier and switch model."""
    rows = []
    for role, models in (summary.get("switches_by_model") or {}).items():
        for model, count in models.items():
            rows.append((ROLE_LABELS.get(role, role), model, number(count)))
    return rows


def link_rows(summary: dict) -> list[tuple[str, str, str, str, str]]:
    """``(tier, links, per plane, physical ports, capacity)`` for the tiers the fabric has.

    Per plane reads "512 + 512" on a two-plane fabric ("" with one plane); physical ports
    are the cables per physical port NVIDIA's tables count (a server's 800G port carrying
    two 400G planes is one)."""
    links = summary.get("links") or {}
    capacity = summary.get("capacity_gbps") or {}
    per_plane = summary.get("links_per_plane") or {}
    physical = summary.get("physical_ports") or {}
    rows = []
    for tier, count in links.items():
        if not count:
            continue
        planes = per_plane.get(tier) or {}
        split = " + ".join(number(n) for _, n in sorted(planes.items())) if len(planes) > 1 else ""
        rows.append(
            (
                TIER_LABELS.get(tier, tier),
                number(count),
                split,
                number(physical.get(tier)),
                bandwidth(capacity.get(tier)),
            )
        )
    return rows


NETWORK_LABELS = {
    "storage": "Storage",
    "converged": "Converged (north-south)",
    "inband": "In-band management",
    "oob": "Out-of-band management",
    "management": "Management systems",
}


def _speed_text(gbps) -> str:
    gbps = float(gbps or 0)
    if not gbps:
        return ""
    if gbps >= 1000:
        return f"{gbps / 1000:g} Tb/s"
    return f"{gbps:g} Gb/s"


def _network_links(network: dict) -> list[tuple[str, str]]:
    """A network's link groups as ``("<a> – <b>, <speed>", count)``; the group's own name
    when it has no ends (a summary stored before they were kept)."""
    rows = []
    groups = network.get("link_groups") or []
    for group in groups:
        a, b = group.get("a"), group.get("b")
        label = f"{a} – {b}" if a and b and a != group["name"] else group["name"]
        label = label[0].upper() + label[1:] if label else label
        speed = _speed_text(group.get("speed_gbps"))
        rows.append((f"{label}, {speed}" if speed else label, number(group.get("links"))))
    if not groups:
        rows = [(name, number(n)) for name, n in (network.get("links") or {}).items()]
    return rows


def _read_rows(bandwidth: dict | None) -> list[tuple[str, str]]:
    """The storage read rate per node, carried and asked (GB/s, line rate), as table rows."""
    if not bandwidth:
        return []

    def gbytes(value) -> str:
        return "—" if value is None else f"{float(value):,.1f} GB/s"

    rows = [
        ("Read per node, one node alone", gbytes(bandwidth.get("alone_gbytes_per_node"))),
        (
            f"Read per node, all {number(bandwidth.get('nodes'))} at once",
            gbytes(bandwidth.get("all_gbytes_per_node")),
        ),
    ]
    asked = bandwidth.get("asked_gbytes_per_node")
    if asked is not None:
        readers = bandwidth.get("readers")
        verdict = "met" if bandwidth.get("ok") else "short"
        rows.append(
            (
                f"Asked per node, {number(readers)} reading at once",
                f"{gbytes(asked)}, {verdict} ({gbytes(bandwidth.get('carried_gbytes_per_node'))})",
            )
        )
    return rows


def network_rows(summary: dict) -> list[dict]:
    """One entry per network of the cluster beside the compute fabric (``summary["networks"]``):
    its label, switches by model and role, cables and modules by part, what it serves, the
    management systems it counts, and its counting conventions, as text."""
    rows = []
    for name, network in (summary.get("networks") or {}).items():
        switches = []
        for role, models in (network.get("switches") or {}).items():
            for model, n in models.items():
                switches.append((role.replace("-", " ").capitalize(), model, number(n)))
        parts = [("Cable", part, number(n)) for part, n in (network.get("cables") or {}).items()]
        parts += [
            ("Cable, part not chosen", kind, number(n))
            for kind, n in (network.get("cables_not_chosen") or {}).items()
        ]
        parts += [
            ("Module", part, number(n)) for part, n in (network.get("transceivers") or {}).items()
        ]
        parts += [
            ("System", p["part"], number(p["count"]))
            for p in network.get("parts") or []
            if p.get("category") == "server"
        ]
        rows.append(
            {
                "name": name,
                "label": NETWORK_LABELS.get(name, name),
                "switches": switches,
                "switches_total": number(network.get("switches_total")),
                "cables_total": number(network.get("cables_total")),
                "parts": parts,
                "links": _network_links(network),
                "endpoints": [
                    (what[:1].upper() + what[1:], number(n))
                    for what, n in (network.get("endpoints") or {}).items()
                    if what not in (network.get("links") or {})  # e.g. OOB "PDUs": a link row
                ],
                "bandwidth": _read_rows(network.get("bandwidth")),
                "missing": list(network.get("parts_not_in_catalog") or []),
                "conventions": list(network.get("conventions") or []),
            }
        )
    return rows


def growth_rows(summary: dict) -> dict | None:
    """Today's and the final build's counts and each growth step, as text (or ``None``)."""
    growth = summary.get("growth")
    if not growth:
        return None
    keys = (("servers", "Servers"), ("gpus", "GPUs"), ("leaves", "Leaves"), ("spines", "Spines"))
    keys += (("cores", "Cores"),)
    table = [
        (label, number(growth["today"].get(key)), number(growth["final"].get(key)))
        for key, label in keys
    ]
    steps = []
    for step in growth.get("steps") or []:
        adds = step["adds"]
        parts = [
            count(adds.get("servers"), "server"),
            count(adds.get("gpus"), "GPU"),
            count(adds.get("leaves"), "leaf", "leaves"),
        ]
        if adds.get("spines"):
            parts.append(count(adds["spines"], "spine"))
        parts.append(count(adds.get("server_leaf_links"), "server link"))
        if adds.get("leaf_spine_links"):
            parts.append(count(adds["leaf_spine_links"], "leaf-spine link"))
        if adds.get("spine_core_links"):
            parts.append(count(adds["spine_core_links"], "spine-core link"))
        times = (
            "each of the next " + number(step["count"]) + " steps"
            if step["count"] > 1
            else "next step"
        )
        steps.append(f"{times.capitalize()}: + {', '.join(parts)}")
    return {"table": table, "steps": steps}


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


def optical_context(summary: dict) -> dict | None:
    """The design page's optical budget: counts, the margin histogram as bars (``width_pct`` of
    the largest bin) and the worst links, from ``summary["optical_budget"]`` (None: none)."""
    report = summary.get("optical_budget")
    if not isinstance(report, dict) or not report.get("links_budgeted"):
        return None
    bins = [b for b in report.get("histogram") or [] if isinstance(b, dict)]
    top = max([int(b.get("count") or 0) for b in bins] or [0]) or 1
    threshold = float(report.get("threshold_db") or 0)
    bars = []
    for b in bins:
        high = b.get("high_db")
        level = "over" if high is not None and high <= 0 else "low"
        if high is None or high > threshold:
            level = "ok"
        bars.append(
            {
                "label": b.get("label", ""),
                "count": number(b.get("count")),
                "width_pct": round(100 * int(b.get("count") or 0) / top, 1),
                "bar_px": round(300 * int(b.get("count") or 0) / top),
                "text_x": 118 + round(300 * int(b.get("count") or 0) / top),
                "y": 22 * len(bars),
                "level": level,
            }
        )
    worst = []
    for row in report.get("worst") or []:
        connections = (
            f"{row['mated_pairs']} ({row['mpo_pairs']} MPO)" if row.get("mated_pairs") else "0"
        )
        worst.append(
            {
                **row,
                "grade_text": (row.get("grade") or "?")
                + (" (assumed)" if row.get("grade_assumed") else ""),
                "connections": connections,
                "level": "over"
                if row["margin_db"] < 0
                else "low"
                if row["margin_db"] < threshold
                else "ok",
            }
        )
    return {
        **report,
        "links_budgeted": number(report.get("links_budgeted")),
        "links_known": number(report.get("links_known")),
        "out_of_scope": number(report.get("out_of_scope")),
        "over_limit_n": int(report.get("over_limit") or 0),
        "under_threshold_n": int(report.get("under_threshold") or 0),
        "bars": bars,
        "svg_height": 22 * len(bars) + 4,
        "worst": worst,
    }


def duration_ns(value) -> str:
    """A one-way latency with its unit: ``231`` -> ``"231 ns"``, ``12285`` ->
    ``"12.29 µs"``; ``None`` -> ``"—"``.

    >>> duration_ns(231.0), duration_ns(1665.0), duration_ns(12285.0), duration_ns(None)
    ('231\xa0ns', '1,665\xa0ns', '12.29\xa0µs', '—')
    """
    if value is None:
        return "—"
    if abs(value) >= 10_000:
        return f"{value / 1000:,.2f}\u00a0µs"
    return f"{value:,.0f}\u00a0ns"


def latency_rows(summary: dict) -> dict | None:
    """The design page's latency table from ``summary["latency"]`` (None: no classes).

    Per path class: ``label``, ``description``, ``hops``, ``metres`` ("14–20 m, typ. 18 m"),
    ``min``, ``typical``, ``max`` with units (``"≥ 213 ns"`` when a fact is unknown: the
    known parts only) and ``unknown`` (what the catalog lacks)."""
    report = summary.get("latency")
    if not isinstance(report, dict) or not report.get("classes"):
        return None
    rows = []
    for key, entry in report["classes"].items():
        if not isinstance(entry, dict):
            continue
        metres = entry.get("metres") or {}
        latency = entry.get("latency_ns") or {}
        floor = "" if entry.get("complete") else "≥\u00a0"
        span = "—"
        if metres:
            low, typ, high = (number(metres.get(k)) for k in ("min", "typical", "max"))
            span = f"{low}\u00a0m" if low == high else f"{low}–{high}\u00a0m, typ. {typ}\u00a0m"
        rows.append(
            {
                "key": key,
                "label": entry.get("label", key),
                "description": entry.get("description", ""),
                "hops": number(entry.get("hops")),
                "metres": span,
                **{
                    k: (floor + duration_ns(latency[k])) if latency.get(k) is not None else "—"
                    for k in ("min", "typical", "max")
                },
                "complete": bool(entry.get("complete")),
                "unknown": list(entry.get("unknown") or []),
            }
        )
    return {
        "rows": rows,
        "scope": report.get("scope", ""),
        "typical": report.get("typical", ""),
        "notes": list(report.get("notes") or []),
        "incomplete": any(not row["complete"] for row in rows),
    }


def racks_text(summary: dict) -> str:
    """The design's racks and, when it has more than one kind, how many of each.

    >>> racks_text({"racks": 44, "racks_by_kind": {"compute": 32, "network": 6,
    ...     "management": 6}})
    '44 (32 compute, 6 network, 6 management)'
    >>> racks_text({"racks": 11, "racks_by_kind": {"compute": 8, "network": 3,
    ...     "management": 0}}), racks_text({"racks": 4})
    ('11 (8 compute, 3 network)', '4')
    """
    kinds = [f"{number(n)} {kind}" for kind, n in (summary.get("racks_by_kind") or {}).items() if n]
    total = number(summary.get("racks"))
    return f"{total} ({', '.join(kinds)})" if len(kinds) > 1 else total


def summary_context(summary: dict) -> dict:
    """Everything a summary template shows."""
    return {
        "figures": key_figures(summary),
        "switch_rows": switch_rows(summary),
        "link_rows": link_rows(summary),
        "transceiver_rows": transceiver_rows(summary),
        "cable_rows": cable_rows(summary),
        "multi_plane": int(summary.get("planes") or 1) > 1,
        "networks": network_rows(summary),
        "growth": growth_rows(summary),
        "optical": optical_context(summary),
        "latency": latency_rows(summary),
        "assumptions": [
            (a.get("field", ""), number(a.get("value")), a.get("source", ""))
            for a in summary.get("assumptions") or []
        ],
        "extra": [
            *(
                [("Unconnected GPUs", number(summary["gpus_unconnected"]))]
                if summary.get("gpus_unconnected")
                else []
            ),
            *(
                [
                    ("Rack-scale system", summary["rack_system"]["model"]),
                    ("Compute trays per rack", number(summary["rack_system"]["compute_trays"])),
                ]
                if summary.get("rack_system")
                else []
            ),
            ("Uplink speed", bandwidth(summary.get("uplink_speed_gbps"))),
            (
                "Leaf bandwidth down / up",
                " / ".join(
                    bandwidth((summary.get("leaf_bandwidth_gbps") or {}).get(way))
                    for way in ("down", "up")
                ),
            ),
            ("Rails", number(summary.get("rails"))),
            ("Servers per SU", number(summary.get("servers_per_su"))),
            ("Scalable units", number(summary.get("scalable_units"))),
            ("Reserved leaf ports (UFM)", number(summary.get("reserved_leaf_ports"))),
            ("Spine oversubscription", ratio((summary.get("oversubscription") or {}).get("spine"))),
            ("Racks", racks_text(summary)),
        ],
    }


#: Labels and units of summary and spec keys in a diff (``None`` unit: a plain count).
DIFF_LABELS = {
    "name": ("Name", None),
    "topology": ("Topology", None),
    "server": ("Server", None),
    "gpus": ("GPUs", None),
    "servers": ("Servers", None),
    "rails": ("Rails", None),
    "planes": ("Planes", None),
    "tiers": ("Tiers", None),
    "speed_gbps": ("Link speed", "Gb/s"),
    "switches_total": ("Switches", None),
    "reserved_leaf_ports": ("Reserved leaf ports", None),
    "bisection_gbps": ("Bisection bandwidth", "Gb/s"),
    "max_hops": ("Max hops", None),
    "servers_per_su": ("Servers per SU", None),
    "scalable_units": ("Scalable units", None),
    "racks": ("Racks", None),
    "stale_parameters": ("Spec parameters made untrue by hand edits", None),
}
#: ``prefix.rest`` keys: a label template over the rest's parts, and the unit.
DIFF_PREFIXES = {
    "switches": ("{0} switches", None),
    "links": ("Links {0}", None),
    "capacity_gbps": ("Capacity {0}", "Gb/s"),
    "oversubscription": ("{0} oversubscription", ":1"),
    "transceivers": ("Transceivers {0}", None),
    "transceivers_by_side": ("Transceivers on {0}s: {1}", None),
    "transceivers_per_link_end": ("Transceivers per link end: {0}", None),
    "cables": ("Cables {0}", None),
    "cables_by_length": ("Cables {0} at {1} m", None),
    "switches_by_model": ("{0} switches {1}", None),
    "media": ("Media {0}", None),
}
UNIT_SUFFIXES = {
    "_gbps": "Gb/s",
    "_m": "m",
    "_w": "W",
    "_bytes": "bytes",
    "_pct": "%",
    "_ns": "ns",
    "_db": "dB",
    "_kb": "KB",
    "_b": "bytes",
}


#: Keys that are a unit themselves: the word shown instead, and the unit.
UNIT_WORDS = {"metres": ("length", "m")}


def _part_label(part: str) -> str:
    return TIER_LABELS.get(part) or ROLE_LABELS.get(part) or part


def diff_label(path: str) -> tuple[str, str | None]:
    """A diff key as people read it, and its unit.

    >>> diff_label("bisection_gbps"), diff_label("oversubscription.leaf")
    (('Bisection bandwidth', 'Gb/s'), ('Leaf oversubscription', ':1'))
    >>> diff_label("links.leaf-spine"), diff_label("layout.row_length_m")
    (('Links Leaf – spine', None), ('Layout › Row length', 'm'))
    """
    if path in DIFF_LABELS:
        return DIFF_LABELS[path]
    head, _, rest = path.partition(".")
    if head in DIFF_PREFIXES and rest:
        template, unit = DIFF_PREFIXES[head]
        parts = rest.split(".", template.count("{") - 1)
        parts += [""] * (template.count("{") - len(parts))
        return template.format(*(_part_label(p) for p in parts)).strip(), unit
    words, unit = [], None
    for part in path.split("."):
        if part in UNIT_WORDS:
            part, unit = UNIT_WORDS[part]
        for suffix, name in UNIT_SUFFIXES.items():
            if part.endswith(suffix):
                part, unit = part[: -len(suffix)], name
                break
        words.append(_part_label(part).replace("_", " ").capitalize())
    return " › ".join(words), unit


#: Keys of a record that only identify it inside one revision (never shown).
RECORD_INTERNAL_KEYS = ("link", "id", "index")


#: Keys of a link record that name its ends (shown first, as ``ends`` or built from them).
RECORD_END_KEYS = ("ends", "a", "a_port", "a_port_name", "b", "b_port", "b_port_name")


def record_text(record: dict) -> str:
    """A record of a summary list in words: a link's ends first (``ends``, as
    :mod:`planner.domain.names` writes them; older summaries' device and port), then each
    value with its label and unit (internal indexes left out).

    >>> record_text({"link": 1151, "ends": "leaf-1 3/2 → spine-1 11/1", "a": "leaf-1",
    ...              "a_port": 6, "fiber_m": 25.0, "margin_db": 2.99, "grade_assumed": True})
    'leaf-1 3/2 → spine-1 11/1: fiber 25 m, margin 2.99 dB, grade assumed yes'
    >>> record_text({"a": "leaf-1", "a_port": 3, "b": "spine-1", "b_port": 1, "fiber_m": 9.5})
    'leaf-1 port 3 → spine-1 port 1: fiber 9.5 m'
    """
    head = record.get("ends") or ""
    if not head and "a" in record and "b" in record:
        head = " → ".join(
            f"{record[end]} port {record[port]}" if record.get(port) is not None else record[end]
            for end, port in (("a", "a_port"), ("b", "b_port"))
        )
    words = []
    for key, value in record.items():
        if key in RECORD_INTERNAL_KEYS or (head and key in RECORD_END_KEYS):
            continue
        label, unit = diff_label(key)
        words.append(f"{label.lower()} {_diff_value(value, unit, 'none')}")
    return f"{head}: {', '.join(words)}" if head and words else head or ", ".join(words)


def _diff_value(value, unit: str | None, absent: str) -> str:
    if value is None:
        return absent
    if isinstance(value, dict):
        return record_text(value)
    if isinstance(value, list | tuple):
        joint = "; " if any(isinstance(v, dict) for v in value) else ", "
        return joint.join(_diff_value(v, unit, "none") for v in value) or "none"
    if unit == ":1":
        return ratio(value)
    return quantity(value, unit or "") if isinstance(value, int | float) else str(value)


def _only_in(items, others) -> list:
    return [item for item in items if item not in others]


def diff_row(path: str, change: dict) -> tuple[str, str, str, str]:
    """``(label, old, new, delta)`` of one change of a ``diff_summaries`` result. Of two
    lists of records only the records that differ are shown ("…, and 9 the same")."""
    label, unit = diff_label(path)
    old, new = change.get("old"), change.get("new")
    delta = change.get("delta") if old is not None and new is not None else None
    if delta is None:
        delta_text = ""
    else:
        shown = number(abs(delta)) if unit == ":1" else quantity(abs(delta), unit or "")
        delta_text = f"+{shown}" if delta > 0 else f"-{shown}"
    records = [v for v in (old, new) if isinstance(v, list) and any(isinstance(i, dict) for i in v)]
    if len(records) == 2:
        same = len(old) - len(_only_in(old, new))
        old, new = _only_in(old, new), _only_in(new, old)
        if same:
            tail = f"; and {number(same)} the same"
            return label, _diff_value(old, unit, "") + tail, _diff_value(new, unit, "") + tail, ""
    return label, _diff_value(old, unit, "not set"), _diff_value(new, unit, "removed"), delta_text


def diff_rows(changes: dict) -> list[tuple[str, str, str, str]]:
    """``(label, old, new, delta)`` rows of a ``diff_summaries`` result: labels with units
    ("Bisection bandwidth", "409,600 Gb/s"); a value that is gone reads "removed", one that was
    not there "not set", and only a change between two numbers has a delta."""
    return [diff_row(path, change) for path, change in changes.items()]


def diff_text(path: str, change: dict) -> str:
    """One change of a ``diff_summaries`` result as a sentence.

    >>> diff_text("speed_gbps", {"old": 400, "new": 800, "delta": 400})
    'Link speed: 400 Gb/s → 800 Gb/s (+400 Gb/s)'
    >>> diff_text("transport.routing", {"old": "adaptive", "new": "static"})
    'Transport › Routing: adaptive → static'
    """
    label, old, new, delta = diff_row(path, change)
    return f"{label}: {old} → {new}" + (f" ({delta})" if delta else "")


def diff_texts(changes: dict) -> dict:
    """A ``diff_summaries`` result with each change's sentence added (``text``)."""
    return {path: {**change, "text": diff_text(path, change)} for path, change in changes.items()}


#: Summary paths too fine-grained for the first view of a diff (shown folded).
DETAIL_PREFIXES = (
    "optical_budget.worst",
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


def network_diff_rows(networks: dict) -> list[dict]:
    """Rows of a revision diff's ``networks`` (``planner.domain.summary.diff_networks``): per
    network its label, status, switches and cables (was, now, change) and the finer detail
    (switches per role and model, cables per kind, other figures) as ``diff_rows``.

    >>> change = {"old": 16, "new": 20, "delta": 4}
    >>> row = network_diff_rows({"storage": {"status": "changed", "switches": change,
    ...     "cables": {"old": 548, "new": 548, "delta": 0}, "text": "t",
    ...     "switches_by_model": {"leaf QM9700": change}}})[0]
    >>> row["label"], row["switches"], row["cables"]
    ('Storage', ('16', '20', '+4'), ('548', '548', ''))
    >>> row["detail"]
    [('Switches › leaf QM9700', '16', '20', '+4')]
    """
    labels = {"compute": "Compute fabric", **NETWORK_LABELS}

    def figures(change: dict) -> tuple[str, str, str]:
        delta = change.get("delta") or 0
        return number(change["old"]), number(change["new"]), f"{delta:+,}" if delta else ""

    rows = []
    for name, entry in networks.items():
        detail = [
            (f"Switches › {key}", *figures(change))
            for key, change in (entry.get("switches_by_model") or {}).items()
        ]
        detail += [
            (f"Cables › {kind}", *figures(change))
            for kind, change in (entry.get("cables_by_kind") or {}).items()
        ]
        rows.append(
            {
                "name": name,
                "label": labels.get(name, name),
                "status": entry.get("status", "changed"),
                "switches": figures(entry["switches"]),
                "cables": figures(entry["cables"]),
                "text": entry.get("text", ""),
                "detail": detail + diff_rows(entry.get("figures") or {}),
            }
        )
    return rows


def stale_text(item: dict) -> str:
    """A spec parameter a revision no longer meets, as one sentence naming the parameter
    once (messages that start with it are shown as they are).

    >>> stale_text({"field": "rails", "message": "rails: every server now has 72 NIC links"})
    'rails: every server now has 72 NIC links'
    >>> stale_text({"field": "servers", "message": "128 servers, the spec says 127"})
    'servers: 128 servers, the spec says 127'
    """
    field, message = item.get("field") or "", item.get("message") or ""
    if not field or message.startswith(f"{field}:"):
        return message
    return f"{field}: {message}"


def money_text(value, currency: str | None = None) -> str:
    """A money amount with thousands separators and cents (``12,345.60``), or the decimal
    places of ``currency``'s minor unit when given (``12,346`` in JPY); ``""`` for none."""
    if value is None:
        return ""

    places = 2 if currency is None else minor_unit(currency)
    return f"{value:,.{places}f}"
