"""How job results read on the pages: validation problems by rule, power tables, rack strip.

Pure formatting of the result dicts the runners store; templates only loop over what is built
here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from planner.designs.adapters import catalog_facts, fabric_unpack
from planner.domain.names import ARROW, end_name, end_text
from planner.domain.networks.elements import network_elements
from planner.presentation import NETWORK_LABELS, TIER_LABELS, number, severity_counts
from planner.presentation import count as count_of

MAX_ELEMENTS_SHOWN = 30
MAX_RACK_NAMES = 64
SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}
GRADE_LABELS = {
    "datasheet": "Datasheet (vendor document)",
    "secondary": "Secondary (reseller, blog, mirror)",
    "inferred": "Inferred (our arithmetic)",
    "estimate": "Estimate",
    "unknown": "Unknown (stand-in; not in the total)",
}
CATEGORY_LABELS = {
    "servers": "Servers",
    "switches": "Switches",
    "transceivers": "Transceivers",
    "cables": "Cables",
}
ROLE_LABELS = {
    "server": "Servers",
    "manager": "Fabric managers",
    "leaf": "Leaf switches",
    "spine": "Spine switches",
    "core": "Core switches",
}


class ElementNames:
    """Readable names of the element ids results carry (``node:<name>``, ``link:<i>``,
    ``link:<i>:up``, ``rack:<name>``, ``netlink:<i>``): devices and ports, never an index.

    ``fabric`` is the revision's :class:`~planner.domain.fabric.Fabric`, or a callable that
    loads it (called once, only if a link id needs naming); without one a link reads "link
    <i + 1>". ``elements`` are the cluster networks' devices and links
    (:class:`~planner.domain.networks.elements.ClusterElements`, or a callable that builds
    them from the fabric, called once, only if a ``netlink:<i>`` id needs naming); without
    them a network link reads "network link <i + 1>".
    """

    def __init__(self, fabric=None, elements=None):
        self._fabric = fabric
        self._elements = elements

    @property
    def fabric(self):
        if callable(self._fabric):
            self._fabric = self._fabric()
        return self._fabric

    @property
    def elements(self):
        if callable(self._elements):
            self._elements = self._elements(self.fabric)
        return self._elements

    def network_link(self, index: int) -> str:
        """``"gpu00001 bmc → oob-01 port 1 (oob)"`` (ends by :func:`planner.domain.names.
        end_text`)."""
        elements = self.elements
        links = getattr(elements, "links", ())
        if not 0 <= index < len(links):
            return f"network link {index + 1}"
        link = links[index]
        a, b = end_text(link.a_device, str(link.a_port)), end_text(link.b_device, str(link.b_port))
        return f"{a} {ARROW} {b} ({link.network})"

    def end(self, node: int, port: int) -> str:
        """``"leaf-su1-03 3/2"``: :func:`planner.domain.names.end_name`."""
        return end_name(self.fabric, node, int(port))

    def link(self, index: int, first: str | None = None) -> str:
        """``"leaf-su1-03 17/1 → spine-02 5/1"``; ``first`` (a device name) picks the end
        written first."""
        fabric = self.fabric
        if fabric is None or not 0 <= index < len(fabric.link_a):
            return f"link {index + 1}"
        a, b = int(fabric.link_a[index]), int(fabric.link_b[index])
        ends = [(a, int(fabric.link_a_port[index])), (b, int(fabric.link_b_port[index]))]
        if first is not None and fabric.node_name[b] == first and fabric.node_name[a] != first:
            ends.reverse()
        return f" {ARROW} ".join(self.end(node, port) for node, port in ends)

    def __call__(self, element_id: str) -> str:
        kind, _, rest = str(element_id).partition(":")
        if kind == "node":
            return rest
        if kind == "rack":
            return f"rack {rest}"
        if kind == "netlink":
            try:
                return self.network_link(int(rest))
            except ValueError:
                return str(element_id)
        if kind == "link":
            index, _, direction = rest.partition(":")
            try:
                text = self.link(int(index))
            except ValueError:
                return str(element_id)
            return f"{text}, {direction}" if direction else text
        return str(element_id)


def kw(watts) -> str:
    """``1354296`` -> ``"1,354.3 kW"``; ``None`` -> ``"—"``."""
    if watts is None:
        return "—"
    return f"{watts / 1000:,.1f} kW" if abs(watts) >= 1000 else f"{watts:,.1f} W"


def percent(share) -> str:
    """``0.3912`` -> ``"39.1 %"``."""
    return "—" if share is None else f"{share * 100:.1f} %"


def _more_elements(ids: list) -> str:
    """``"+970 more links"``, by what the ids not shown are."""
    kinds = Counter(str(i).partition(":")[0] for i in ids)
    words = {
        "link": ("link", "links"),
        "node": ("device", "devices"),
        "rack": ("rack", "racks"),
        "netlink": ("network link", "network links"),
    }
    return (
        "+"
        + ", ".join(
            count_of(n, *words.get(kind, ("element", "elements"))) for kind, n in kinds.items()
        )
        + " more"
    )


def validation_context(result: dict | None, names: Callable[[str], str] | None = None) -> dict:
    """Problems grouped by rule (errors first), with counts and element lists (named by
    ``names``, an :class:`ElementNames`)."""
    names = names or ElementNames()
    problems = (result or {}).get("problems") or []
    groups: dict[str, dict] = {}
    for problem in problems:
        rule = problem.get("rule") or problem.get("code") or "other"
        group = groups.setdefault(
            rule, {"rule": rule, "count": 0, "severities": Counter(), "problems": []}
        )
        group["count"] += 1
        group["severities"][problem.get("severity") or "info"] += 1
        elements = list(problem.get("element_ids") or [])
        hidden = elements[MAX_ELEMENTS_SHOWN:]
        group["problems"].append(
            {
                **problem,
                "elements": [names(e) for e in elements[:MAX_ELEMENTS_SHOWN]],
                "more_elements": _more_elements(hidden) if hidden else "",
            }
        )
    rows = []
    for group in groups.values():
        worst = min(group["severities"], key=lambda s: SEVERITY_ORDER.get(s, 9))
        group["worst"] = worst
        group["severity_text"] = severity_counts(group["severities"])
        rows.append(group)
    rows.sort(key=lambda g: (SEVERITY_ORDER.get(g["worst"], 9), -g["count"], g["rule"]))
    severities = Counter(p.get("severity") or "info" for p in problems)
    return {
        "groups": rows,
        "total": len(problems),
        "errors": severities.get("error", 0),
        "warnings": severities.get("warning", 0),
        "counts_text": severity_counts(severities),
        "summary": (result or {}).get("summary") or {},
    }


def _strip(racks: list[dict]) -> dict:
    """Bars of the rack power strip: heights in % of the largest power or limit."""
    scale = max(
        [r.get("power_w") or 0 for r in racks] + [r.get("limit_w") or 0 for r in racks] + [1]
    )
    bars = []
    for rack in racks:
        power, limit = rack.get("power_w") or 0, rack.get("limit_w")
        over = bool(limit and power > limit)
        label = f"{rack['rack']}: {kw(power)}"
        if limit:
            label += f" of {kw(limit)} ({percent(power / limit)})"
        if rack.get("airflow_mixed"):
            label += ", mixed airflow"
        if rack.get("incomplete"):
            label += ", some figures unknown"
        bars.append(
            {
                "rack": rack["rack"],
                "height": round(100 * power / scale, 1),
                "limit": round(100 * limit / scale, 1) if limit else None,
                "over": over,
                "mixed": bool(rack.get("airflow_mixed")),
                "incomplete": bool(rack.get("incomplete")),
                "label": label,
                "kind": rack.get("kind") or "",
            }
        )
    return {
        "bars": bars,
        "scale": kw(scale),
        # Each bar's rack name under it while they fit; otherwise the first and the last.
        "named": len(bars) <= MAX_RACK_NAMES,
        "first": bars[0]["rack"] if bars else "",
        "last": bars[-1]["rack"] if bars else "",
    }


def power_context(result: dict | None, names: ElementNames | None = None) -> dict:
    """Headline figures and the rows of the power tables.

    Long because: one template context of many figures and table rows, each row a few lines.
    """
    result = result or {}
    total = result.get("total_w") or 0
    by_category = result.get("by_category") or {}
    network = result.get("network_w") or 0
    confidence = result.get("confidence") or {}
    unknown = result.get("unknown") or {}
    figures = [
        ("Total", kw(total)),
        ("Heat", f"{number(round(result.get('btu_h') or 0))} BTU/h"),
        ("Network", kw(network)),
        ("Network per GPU", f"{number(result.get('network_w_per_gpu'))} W"),
        ("Network per Tb/s of bisection", f"{number(result.get('network_w_per_tbps'))} W"),
        ("Optics share of network", percent(result.get("optics_share"))),
    ]
    if result.get("pue") is not None:
        figures.append((f"Facility (PUE {result['pue']:g})", kw(result.get("facility_w"))))
    unknown_share = (confidence.get("unknown") or 0) + (confidence.get("estimate") or 0)
    figures.append(("Unknown / estimated share", percent(unknown_share)))
    categories = [
        (CATEGORY_LABELS.get(key, key), kw(watts), percent(watts / total if total else None))
        for key, watts in by_category.items()
    ]
    tiers = [
        (
            TIER_LABELS.get(tier, tier),
            number(row.get("links")),
            kw(row.get("transceivers_w")),
            kw(row.get("cables_w")),
            kw(row.get("total_w")),
        )
        for tier, row in (result.get("by_tier") or {}).items()
    ]
    networks = [
        (
            NETWORK_LABELS.get(name, name),
            kw(row.get("switches_w")),
            kw(row.get("transceivers_w")),
            kw(row.get("systems_w")),
            kw(row.get("total_w")),
        )
        for name, row in (result.get("by_network") or {}).items()
    ]
    roles = [
        (
            ROLE_LABELS.get(role, role),
            number(row.get("count")),
            kw(row.get("power_w")),
            number(row.get("unknown")) if row.get("unknown") else "",
        )
        for role, row in (result.get("by_role") or {}).items()
    ]
    grades = [
        (grade, GRADE_LABELS.get(grade, grade), percent(share))
        for grade, share in confidence.items()
        if share
    ]
    unknown_rows = [
        (kind, slug, number(count))
        for kind in ("devices", "transceivers", "cables")
        for slug, count in (unknown.get(kind) or {}).items()
    ]
    racks = result.get("racks") or []
    return {
        "figures": figures,
        "categories": categories,
        "tiers": tiers,
        "networks": networks,
        "roles": roles,
        "grades": grades,
        "unknown_rows": unknown_rows,
        "unknown_estimate": kw(unknown.get("estimate_w")) if unknown.get("estimate_w") else "",
        "notes": unknown.get("notes") or [],
        "rows": [
            {**row, "power": kw(row.get("power_w")), "limit": kw(row.get("limit_w"))}
            for row in result.get("rows") or []
        ],
        "racks": [
            {
                **rack,
                "power": kw(rack.get("power_w")),
                "limit": kw(rack.get("limit_w")),
                "use": percent(rack.get("utilization")),
                # the cluster networks' switches and systems in the rack (issue 18)
                "network": kw(rack.get("network_w")) if "network_w" in rack else "",
            }
            for rack in racks
        ],
        "has_network_racks": any("network_w" in rack for rack in racks),
        "strip": _strip(racks),
        "problems": validation_context({"problems": result.get("problems") or []}, names),
        "figures_used": result.get("figures") or {},
    }


CHART_W, CHART_H = 360, 140


def seconds(value) -> str:
    """``0.0123`` -> ``"12.300 ms"``."""
    if value is None:
        return "—"
    if value >= 1:
        return f"{value:,.3f} s"
    if value >= 1e-3:
        return f"{value * 1e3:,.3f} ms"
    return f"{value * 1e6:,.1f} µs"


def gbytes_s(value) -> str:
    """``"18.90 GB/s"`` (10^9 bytes a second), or "—"."""
    if value is None:
        return "—"
    return f"{float(value):,.2f} GB/s"


def gbps(value) -> str:
    return "—" if value is None else f"{value:,.1f} Gb/s"


def _bars(histogram: dict) -> list[dict]:
    """Bars of an inline SVG histogram (chart units, y down)."""
    counts = histogram.get("counts") or []
    edges = histogram.get("edges") or []
    top = max(counts + [1])
    width = CHART_W / max(1, len(counts))
    bars = []
    for i, count in enumerate(counts):
        height = round(CHART_H * count / top, 1)
        low, high = (edges[i], edges[i + 1]) if i + 1 < len(edges) else (0, 0)
        bars.append(
            {
                "x": round(i * width, 1),
                "y": round(CHART_H - height, 1),
                "w": round(max(1.0, width - 1), 1),
                "h": height,
                "label": f"{percent(low)}–{percent(high)}: {count:,} links",
            }
        )
    return bars


def _cdf(histogram: dict) -> str:
    """Points of the FCT CDF polyline (cumulative counts of the histogram)."""
    counts = histogram.get("counts") or []
    total = sum(counts) or 1
    width = CHART_W / max(1, len(counts))
    points, running = [f"0,{CHART_H}"], 0
    for i, count in enumerate(counts):
        running += count
        points.append(f"{round((i + 1) * width, 1)},{round(CHART_H * (1 - running / total), 1)}")
    return " ".join(points)


def _hot_spot_name(spot: dict, names: ElementNames) -> str:
    """``"leaf-su1-03 port 17 → spine-02 port 5, up"`` (ends in the direction of the load)."""
    direction = str(spot.get("link") or "").rpartition(":")[2]
    try:
        index = int(str(spot.get("fabric_link") or "").partition(":")[2])
        text = names.link(index, first=spot.get("from"))
    except ValueError:
        index, text = None, ""
    if not text or text.startswith("link "):  # no fabric: the device names the result keeps
        text = f"{spot.get('from', '?')} → {spot.get('to', '?')}"
    return f"{text}, {direction}" if direction in ("up", "down") else text


def opensm_text(report: dict | None) -> dict | None:
    """The OpenSM run of an ``opensm``-routed simulation in words: its sentence, and the
    unrouted routes and credit-loop links it found (none on a healthy fabric)."""
    if not report:
        return None
    # Lazy: it loads numba (about 1 s); only simulating needs it.
    from planner.analyses.opensm import report_line

    return {
        "line": report_line(report),
        "unrouted": report.get("unrouted_examples") or [],
        "loops": report.get("credit_loop_links") or [],
    }


def routing_label(name) -> str:
    """What a page calls a routing mode (an old name too): ``"adaptive"`` ->
    ``"Packet spraying (Spectrum-X, equal split)"``; an unknown name as it is."""
    # Lazy: it loads numba (about 1 s); only simulating needs it.
    from planner.analyses.flow import ROUTING_ALIASES, ROUTING_LABELS

    name = ROUTING_ALIASES.get(name, name)
    return ROUTING_LABELS.get(name, "—" if name in (None, "") else str(name))


#: Why a run below the bound falls short, and what to try, by routing mode.
LIMIT_ADVICE = {
    "ecmp": (
        "ECMP hashes each flow onto one path, so flows collide by chance: another seed moves "
        "the collisions (Monte Carlo seeds give their spread). Packet spraying (RoCE) or "
        "InfiniBand adaptive routing split every flow over all equal-cost links."
    ),
    "flowlet": (
        "Flowlets are hashed like ECMP flows, so they collide by chance: more flowlets per "
        "flow, packet spraying (RoCE) or InfiniBand adaptive routing spread the load."
    ),
    "rail": (
        "Static routing (d-mod-k) sends all traffic for one destination NIC along one fixed "
        "path, so destinations that share a link share its bandwidth: InfiniBand adaptive "
        "routing (or packet spraying on RoCE) spreads the load."
    ),
    "spraying": (
        "Every flow is already split over all equal-cost links: the fabric lacks capacity "
        "on this path (oversubscription or failed links)."
    ),
}
LIMIT_ADVICE["ib-ar"] = LIMIT_ADVICE["spraying"]
LIMIT_ADVICE["opensm"] = (
    "OpenSM's forwarding tables send all traffic for one destination along one path; another "
    "engine (ftree on a fat tree) or InfiniBand adaptive routing spreads the load."
)
#: When the limiting link is a NIC link, routing is not the cause.
LIMIT_AT_NIC = "It is a NIC link: the traffic asks more of one NIC than its line rate."


def limit_text(result: dict, names: ElementNames) -> str:
    """Why a run falls short of its bound, in words: the link holding back the last flow to
    finish, how many flows share it, and what to try (:data:`LIMIT_ADVICE`); ``""`` when
    the result names no such link."""
    # Lazy: it loads numba (about 1 s); only simulating needs it.
    from planner.analyses.flow import ROUTING_ALIASES

    limit = result.get("limit")
    if not limit:
        return ""
    flows = float(limit.get("flows") or 0)
    capacity = float(limit.get("capacity_gbps") or 0)
    shared = f"{flows:,.0f}" if flows == round(flows) else f"{flows:,.2f}"
    each = f"{capacity / flows:,.1f} Gb/s each on an equal split" if flows else ""
    text = (
        f"Below the bound because of {_hot_spot_name(limit, names)}: {shared} flows share "
        f"its {capacity:,.0f} Gb/s ({each}); the last flow to finish starts at "
        f"{float(limit.get('flow_gbps') or 0):,.1f} Gb/s."
    )
    if limit.get("tier") == "server-leaf":
        return f"{text} {LIMIT_AT_NIC}"
    routing = ROUTING_ALIASES.get(result.get("routing"), result.get("routing"))
    advice = LIMIT_ADVICE.get(routing, "")
    return f"{text} {advice}".strip()


FLOW_CONTROL_LABELS = {
    "lossless": "lossless (PFC)",
    "semi-lossless": "semi-lossless (switches obey pause, never send it)",
    "lossy": "lossy (ECN only)",
    "credit": "InfiniBand credit-based flow control (lossless)",
}
#: The congestion report's model, in words (planner.analyses.flow.congestion).
CONGESTION_ASSUMPTIONS = (
    "Fluid model, no buffer dynamics: the flows that start first send at their NIC's line "
    "rate (shared by the flows leaving that NIC) along the simulated routes; a switch port "
    "offered more than its capacity is a hot port, and its queue is taken to reach the pause "
    "threshold. Lossless: a pause stops the whole priority on a link (head-of-line "
    "blocking), so it spreads hop by hop to every upstream link carrying a flow to the hot "
    "port, back to the senders' NICs; flows that cross a paused link without going to the "
    "hot port are its victims. Lossy: ECN marks at the hot port instead, nothing spreads. "
    "Semi-lossless: switches obey pause but do not send it, nothing spreads. Buffer sizes, "
    "pause timing and how fast congestion control reacts are not modelled."
)


def _times(share) -> str:
    """``3.0`` -> ``"3.0 ×"`` (offered load over capacity)."""
    return "—" if share is None else f"{share:,.2f} ×"


def congestion_context(result: dict | None, names: ElementNames) -> dict | None:
    """The congestion report of a simulation (hot ports, the links a pause reaches), with
    ports named by device and port; ``None`` for results without one."""
    congestion = (result or {}).get("congestion")
    if not congestion:
        return None
    mode = congestion.get("flow_control")
    spreads = bool(congestion.get("spreads"))
    ports = []
    for hot in congestion.get("hot_ports") or []:
        tiers = ", ".join(
            f"{number(n)} {TIER_LABELS.get(tier, tier)}"
            for tier, n in (hot.get("tree_by_tier") or {}).items()
        )
        tree = [
            {
                "name": _hot_spot_name(link, names),
                "tier": TIER_LABELS.get(link.get("tier"), link.get("tier")),
                "hops": number(link.get("hops")),
                "flows": number(link.get("flows")),
            }
            for link in hot.get("tree") or []
        ]
        listed = len(tree)
        total = hot.get("tree_links") or 0
        ports.append(
            {
                "name": _hot_spot_name(hot, names),
                "tier": TIER_LABELS.get(hot.get("tier"), hot.get("tier")),
                "offered": _times(hot.get("offered")),
                "flows": number(hot.get("flows")),
                "victims": number(hot.get("victim_flows")),
                "tree_links": number(total),
                "tree_text": count_of(total, "link"),
                "tree_tiers": tiers or "—",
                "tree": tree,
                "more": count_of(total - listed, "more link") if total > listed else "",
            }
        )
    count = congestion.get("hot_port_count") or 0
    paused = congestion.get("paused_links") or 0
    label = FLOW_CONTROL_LABELS.get(mode, mode or "—")
    if not count:
        summary = f"No switch port is offered more than its capacity; flow control {label}."
    elif spreads:
        summary = (
            f"{count_of(count, 'hot port')}; flow control {label}: the pause of the "
            f"{'hot port' if len(ports) == 1 else f'{len(ports)} ports listed'} reaches "
            f"{count_of(paused, 'link')} upstream."
        )
    else:
        summary = (
            f"{count_of(count, 'hot port')}; flow control {label}: ECN marks (or drops) at the "
            "hot ports, no pause spreads. The links listed are those a lossless fabric "
            "would pause."
        )
    if count > len(ports):
        summary += f" The {len(ports)} most oversubscribed are listed."
    basis = congestion.get("basis")
    return {
        "mode": label,
        "spreads": spreads,
        "summary": summary,
        "basis": basis or "",
        "ports": ports,
        "assumptions": CONGESTION_ASSUMPTIONS,
    }


def _fct_ticks() -> list[dict]:
    """Y-axis ticks of the FCT CDF: 0–100 % of flows finished."""
    return [
        {"y": round(CHART_H * (1 - share), 1), "label": f"{round(share * 100)} %"}
        for share in (0, 0.25, 0.5, 0.75, 1)
    ]


def simulation_context(result: dict | None, names: ElementNames | None = None) -> dict:
    """Figures, the utilization histogram and FCT CDF (inline SVG), tiers, hot spots (named by
    ``names``, an :class:`ElementNames`).

    Long because: one template context of many figures and two inline charts, each a few lines.
    """
    names = names or ElementNames()
    result = result or {}
    figures = [
        ("Completion time", seconds(result.get("completion_time_s"))),
        ("Algorithm bandwidth", gbps(result.get("algbw_gbps"))),
        ("Bus bandwidth", gbps(result.get("busbw_gbps"))),
        ("Bound (non-blocking)", gbps(result.get("bound_busbw_gbps"))),
        ("Efficiency", percent(result.get("efficiency"))),
        ("Max link utilization", percent(result.get("max_link_utilization"))),
        ("Flows", number(result.get("flows"))),
        ("Failed links", number(result.get("failed_links"))),
    ]
    read = result.get("storage_read")
    if read:  # storage-read: per-node read rates on the storage network (GB/s = Gb/s / 8)
        rate = read.get("read_gbytes_per_node") or {}
        figures = [
            ("Read per node, min", gbytes_s(rate.get("min"))),
            ("Read per node, mean", gbytes_s(rate.get("mean"))),
            ("Read per node, max", gbytes_s(rate.get("max"))),
            ("Analysis, every node at once", gbytes_s(read.get("analytic_all_gbytes_per_node"))),
            ("Asked per node", gbytes_s(read.get("asked_gbytes_per_node"))),
            ("Limited by", ", ".join(read.get("bottleneck_tiers") or []) or "—"),
            ("Completion time", seconds(result.get("completion_time_s"))),
            ("Flows", number(result.get("flows"))),
            ("Failed links", number(result.get("failed_links"))),
        ]
    fct = result.get("fct") or {}
    fct_rows = [(key, seconds(fct.get(key))) for key in ("p50", "p90", "p99", "max")]
    histogram = fct.get("histogram") or {}
    edges = histogram.get("edges") or [0, 0]
    tiers = [
        (
            TIER_LABELS.get(tier, tier),
            number(row.get("links")),
            number(row.get("busy_links")),
            percent(row.get("mean_utilization")),
            percent(row.get("max_utilization")),
        )
        for tier, row in (result.get("per_tier_load") or {}).items()
    ]
    hot = [
        {
            **spot,
            "name": _hot_spot_name(spot, names),
            "use": percent(spot.get("utilization")),
            "peak_use": percent(spot.get("peak")),
            "tier_label": TIER_LABELS.get(spot.get("tier"), spot.get("tier")),
            "flows": number(spot.get("bottlenecked_flows")),
        }
        for spot in result.get("hot_spots") or []
    ]
    mc = result.get("monte_carlo")
    monte_carlo = None
    if mc:
        monte_carlo = {
            "seeds": mc.get("seeds"),
            "rows": [
                (
                    label,
                    fmt(mc[key].get("p50")),
                    fmt(mc[key].get("p90")),
                    fmt(mc[key].get("max")),
                )
                for label, key, fmt in (
                    ("Completion time", "completion_time_s", seconds),
                    ("Bus bandwidth", "busbw_gbps", gbps),
                )
                if key in mc
            ],
        }
    return {
        "figures": figures,
        "chart": {"w": CHART_W, "h": CHART_H, "mid": CHART_H // 2},
        "util_bars": _bars(result.get("utilization_histogram") or {}),
        "fct_rows": fct_rows,
        "fct_cdf": _cdf(histogram),
        "fct_range": (seconds(edges[0]), seconds(edges[-1])),
        "fct_ticks": _fct_ticks(),
        "tiers": tiers,
        "hot_spots": hot,
        "monte_carlo": monte_carlo,
        "links_reported": number(result.get("links_reported")),
        "parameters": {
            k: result.get(k) for k in ("traffic", "routing", "seed", "size_bytes", "ranks")
        },
        "ranks": count_of(result.get("ranks"), "node" if read else "GPU"),
        "storage_read": read,
        "routing_label": routing_label(result.get("routing")),
        "limit": limit_text(result, names),
        "flowlets": result.get("flowlets"),
        "opensm": opensm_text(result.get("opensm")),
        "congestion": congestion_context(result, names),
    }


PARAMETER_LABELS = {
    "traffic": "Traffic",
    "routing": "Routing",
    "flowlets": "Flowlets per flow",
    "pfc_mode": "Flow control (congestion report)",
    "opensm_engine": "OpenSM routing engine",
    "placement": "Placement",
    "seed": "Seed",
    "seeds": "Monte Carlo seeds",
    "size_bytes": "Message size",
    "fail_links": "Failed links",
    "pue": "PUE",
    "echo": "Echo",
    "rings": "Rings",
    "gpus": "GPUs",
    "switch_latency_ns": "Switch latency",
    "overhead_us": "Per-step overhead",
}
HIDDEN_PARAMETERS = {"design", "revision"}  # shown in the page heading, by name
#: Parameters that mean nothing for a traffic pattern: storage-read has every node read from
#: every storage array, so no GPU placement enters it.
UNUSED_BY_TRAFFIC = {"storage-read": {"placement"}}


#: Units of the parameters that carry one.
_PARAMETER_UNITS = {"switch_latency_ns": "ns", "overhead_us": "µs"}


def _parameter_text(key: str, value) -> str:
    if key == "size_bytes":
        return count_of(value, "byte")
    if key == "routing":
        return routing_label(value)
    if key == "pfc_mode":
        return FLOW_CONTROL_LABELS.get(value, str(value))
    if key in _PARAMETER_UNITS and isinstance(value, int | float) and not isinstance(value, bool):
        return f"{number(value)} {_PARAMETER_UNITS[key]}"
    if isinstance(value, int | float) and not isinstance(value, bool):
        return number(value)
    return "—" if value in (None, "") else str(value)


#: Labels that read otherwise for a kind of job.
KIND_PARAMETER_LABELS = {"sweep": {"seeds": "Seeds per point", "seed": "First seed"}}


def parameter_rows(parameters: dict | None, kind: str = "") -> list[tuple[str, str]]:
    """``(label, value)`` of a job's parameters: ``size_bytes`` reads ``"1,000,000,000 bytes"``;
    a list (a sweep's axis) reads its values one after the other (``"0; 2; 4"``); the design
    and revision (ids) are left to the heading."""
    rows = []
    unused = UNUSED_BY_TRAFFIC.get((parameters or {}).get("traffic"), set())
    for key, value in (parameters or {}).items():
        if key in HIDDEN_PARAMETERS or key in unused:
            continue
        label = (
            KIND_PARAMETER_LABELS.get(kind, {}).get(key)
            or PARAMETER_LABELS.get(key)
            or key.replace("_", " ").capitalize()
        )
        if isinstance(value, list | tuple):
            text = "; ".join(_parameter_text(key, v) for v in value) or "—"
        else:
            text = _parameter_text(key, value)
        rows.append((label, text))
    return rows


def attempts_text(job, limit: int) -> str:
    """How many times a worker ran the job, in words (``"Run 2 of at most 3 …"``)."""
    attempts = job.attempts or 0
    if attempts == 0:
        return "Never ran (cancelled first)" if job.is_finished else "Waiting for a worker"
    if attempts == 1:
        return "Ran once" if job.is_finished else "First run"
    return f"Run {attempts} of at most {limit} (the earlier runs lost their worker)"


def _fabric_loader(job) -> Callable | None:
    revision = job.design_revision
    if revision is None or not revision.topology:
        return None

    def load():
        try:
            return fabric_unpack(revision.topology)
        except Exception:  # noqa: BLE001 - names fall back to the result's own
            return None

    return load


def _network_elements(fabric):
    """The cluster networks' elements of ``fabric`` (None without networks, or when they
    cannot be built)."""
    if fabric is None or not fabric.settings.networks:
        return None
    try:
        return network_elements(fabric, catalog_facts())
    except Exception:  # noqa: BLE001 - names fall back to "network link <i>"
        return None


def job_context(job) -> dict:
    """What the job page shows under the job, by kind."""
    names = ElementNames(_fabric_loader(job), elements=_network_elements)
    if job.kind == "simulate":
        return {"simulation": simulation_context(job.result, names)}
    if job.kind == "validate":
        return {"validation": validation_context(job.result, names)}
    if job.kind == "power":
        return {"power": power_context(job.result, names)}
    return {}  # a sweep: simulation.sweep_chart
