"""What a hand edit keeps of the revision it is based on, and which generator parameters it
makes untrue.

An edit document (:mod:`planner.domain.canvas`) carries nodes, links, parts, lengths, racks
by name and positions, but not the design's settings (transport, layout, networks, cabling,
power feeds ...: :class:`~planner.domain.settings.FabricSettings`) nor the facts of the
build (the generator's parameters: topology, servers per SU, oversubscription, ...; the media
notes). :func:`keep_from_base` copies the settings over whole and those facts from the base
revision's fabric onto the edited one, and checks each generator parameter against the edited
nodes and links. A parameter that no longer holds is reported (a
:class:`~inventory.library.rules.Violation` with severity ``info``, the spec ``field``, the
elements at fault and ``params`` ``{"was", "now"}``) and the summary shows what the fabric
now has (``topology`` becomes ``custom`` when the structure no longer holds).

The parameters are checked against what the generator built (``settings.generated``, kept
through every later edit), so that an edit which puts things back clears its reports.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import numpy as np

from inventory.library.rules import Violation
from planner.domain.fabric import ROLE, TIER, Fabric
from planner.domain.names import link_name

#: Facts of a build an edit keeps unless it changes them (``info`` keys; the settings are
#: kept whole, :func:`keep_from_base`).
KEPT_INFO = (
    "topology",
    "rails",
    "server_port_speed_gbps",
    "uplink_speed_gbps",
    "native_speed_gbps",
    "radix",
    "servers_per_su",
    "leaves_per_pod",
    "oversubscription",
    # the leaf's designed split (the summary's leaf bandwidth each way) and a one-tier pair
    # (the flow job keeps its traffic on the rails: planner.analyses.scenario)
    "leaf_down",
    "leaf_up",
    "mlag_pair",
    "layout_notes",
    "media_notes",
    # structured cabling (issue 19): the parts the plan reads and its counts, so an edited
    # revision keeps its patch panels (planner.domain.physical.structured)
    "structured",
)
#: Rack fields that follow from the nodes in the rack (recomputed by the power job).
RACK_DERIVED = ("index", "power_w", "power_incomplete")
CODE = "parameter-no-longer-holds"
PLURAL = {"leaf": "leaves", "spine": "spines"}
MAX_IDS = 50


def generated_parameters(fabric: Fabric) -> dict | None:
    """The generator's parameters of a fabric (``None`` for a hand-drawn one).

    Examples
    --------
    >>> generated_parameters(Fabric(info={"topology": "custom"})) is None
    True
    """
    info = fabric.info
    if fabric.settings.generated is not None:
        return fabric.settings.generated
    if info.get("topology") in (None, "custom"):
        return None
    models: dict[str, list[str]] = {}
    for role in ("server", "leaf", "spine", "core"):
        used = np.unique(fabric.node_model[fabric.node_role == ROLE[role]])
        if used.size:
            models[role] = sorted(fabric.models[int(m)] for m in used)
    return {
        "topology": info.get("topology"),
        "servers": int((fabric.node_role == ROLE["server"]).sum()),
        "rails": info.get("rails"),
        "planes": fabric.settings.planes,
        "trays": int((fabric.settings.rack_system or {}).get("compute_trays") or 1),
        "servers_per_su": info.get("servers_per_su"),
        "reserved_leaf_ports": int(info.get("reserved_leaf_ports") or 0),
        "oversubscription": dict(info.get("oversubscription") or {}),
        "models": models,
    }


def keep_from_base(base: Fabric, edited: Fabric) -> list[Violation]:
    """Give ``edited`` (built from an edit document) what it kept of ``base``: its settings
    whole (the planes as the document has them, the layout's rack count as the edit left
    it), its other networks' devices and links (``networks``) unchanged, rack types and the
    facts of the build; return the generator parameters it no longer
    meets (also stored in ``edited.info["stale_parameters"]``, as dicts)."""
    _keep_racks(base, edited)
    measured = dict(edited.info)
    info = {key: base.info[key] for key in KEPT_INFO if key in base.info}
    info.update({key: value for key, value in measured.items() if key not in KEPT_INFO})
    info["media_warnings"] = sorted(
        set(measured.get("media_warnings") or []) | set(base.info.get("media_warnings") or [])
    )
    layout = base.settings.layout
    if layout is not None:
        layout = {**layout, "racks": len(edited.racks)}
    generated = generated_parameters(base)
    edited.info = info
    # an edit document holds no other network's element: they stay as the base has them
    edited.networks, edited.network_columns = base.networks, base.network_columns
    edited.settings = replace(
        base.settings, layout=layout, planes=edited.settings.planes, generated=generated
    )
    if generated is None:
        return []
    stale = stale_parameters(edited, generated, base_names=set(base.node_name))
    fields = {v.field for v in stale}
    if fields & {"topology", "rails"}:
        info["topology"] = "custom"
    if "servers_per_su" in fields:
        info["servers_per_su"] = max(
            (v.params["now"] for v in stale if v.field == "servers_per_su"), default=None
        )
    for violation in stale:
        if violation.field.startswith("oversubscription."):
            tier = violation.field.split(".", 1)[1]
            info["oversubscription"] = {
                **info.get("oversubscription", {}),
                tier: violation.params["now"],
            }
    info["stale_parameters"] = [stale_dict(v) for v in stale]
    return stale


def stale_dict(violation: Violation) -> dict:
    """A parameter that no longer holds, as the API and the revision record it."""
    return {
        "code": violation.code,
        "field": violation.field,
        "message": violation.message,
        "element_ids": list(violation.element_ids),
        "severity": violation.severity,
        "was": violation.params.get("was"),
        "now": violation.params.get("now"),
    }


def _keep_racks(base: Fabric, edited: Fabric) -> None:
    known = {rack.get("name"): rack for rack in base.racks}
    units = (base.settings.layout or {}).get("rack_units")
    racks = []
    for index, rack in enumerate(edited.racks):
        kept = known.get(rack["name"])
        if kept is None:
            racks.append({**rack, "row": None, "position": None, "rack_units": units})
            continue
        racks.append(
            {
                **{k: v for k, v in kept.items() if k not in RACK_DERIVED},
                "index": index,
                "name": rack["name"],
            }
        )
    edited.racks = racks


def _names(fabric: Fabric, nodes) -> tuple[str, ...]:
    return tuple(f"node:{fabric.node_name[int(n)]}" for n in list(nodes)[:MAX_IDS])


def _listed(fabric: Fabric, nodes, limit: int = 3) -> str:
    nodes = list(nodes)
    names = ", ".join(fabric.node_name[int(n)] for n in nodes[:limit])
    more = len(nodes) - limit
    return f"{names} and {more:,} more" if more > 0 else names


def _stale(field: str, was, now, message: str, ids=()) -> Violation:
    return Violation(
        CODE,
        message,
        field=field,
        element_ids=tuple(ids),
        params={"was": was, "now": now},
        severity="info",
    )


def stale_parameters(
    fabric: Fabric, generated: dict, *, base_names: set[str] | None = None
) -> list[Violation]:
    """The generator parameters (``generated``, see :func:`generated_parameters`) that
    ``fabric`` no longer meets, each naming the spec field and the elements at fault."""
    out: list[Violation] = []
    role = fabric.node_role
    servers = np.flatnonzero(role == ROLE["server"])
    count = int(servers.size)
    if generated.get("servers") is not None and count != generated["servers"]:
        added = [s for s in servers if base_names and fabric.node_name[s] not in base_names]
        what = f" (added: {_listed(fabric, added)})" if added else ""
        out.append(
            _stale(
                "servers",
                generated["servers"],
                count,
                f"servers: the spec says {generated['servers']:,}; the fabric now has "
                f"{count:,}{what}.",
                _names(fabric, added),
            )
        )
    _check_models(fabric, generated, out)
    _check_nic_links(fabric, generated, servers, out)
    if generated.get("topology") == "rail-optimized":
        _check_sus(fabric, generated, servers, out)
        _check_rails(fabric, generated, out)
    _check_oversubscription(fabric, generated, out)
    managers = int(
        ((fabric.link_tier == TIER["server-leaf"]) & (role[fabric.link_a] == ROLE["manager"])).sum()
    )
    reserved = managers // max(1, int(generated.get("planes") or 1))
    if reserved != int(generated.get("reserved_leaf_ports") or 0):
        out.append(
            _stale(
                "reserved_leaf_ports",
                generated.get("reserved_leaf_ports"),
                reserved,
                f"reserved_leaf_ports: the spec keeps {generated.get('reserved_leaf_ports')} "
                f"leaf ports for the fabric manager; the fabric now links {reserved}.",
            )
        )
    return out


def _check_models(fabric: Fabric, generated: dict, out: list[Violation]) -> None:
    for role, wanted in (generated.get("models") or {}).items():
        nodes = np.flatnonzero(fabric.node_role == ROLE[role])
        other = [n for n in nodes if fabric.models[int(fabric.node_model[n])] not in wanted]
        if not other:
            continue
        field = "server" if role == "server" else f"switches.{role}"
        models = sorted({fabric.models[int(fabric.node_model[n])] for n in other})
        out.append(
            _stale(
                field,
                ", ".join(wanted),
                ", ".join(models),
                f"{field}: the spec says {', '.join(wanted)}; {_listed(fabric, other)} "
                f"{'is' if len(other) == 1 else 'are'} {', '.join(models)}.",
                _names(fabric, other),
            )
        )


def _nic_counts(fabric: Fabric, servers: np.ndarray) -> np.ndarray:
    ordinal = np.full(fabric.node_count, -1, dtype=np.int64)
    ordinal[servers] = np.arange(servers.size)
    own = ordinal[fabric.link_a]
    return np.bincount(own[own >= 0], minlength=servers.size)


def nic_link_message(fabric: Fabric, servers: np.ndarray, counts: np.ndarray) -> tuple[str, list]:
    """Which servers have another number of NIC links than most: ``(message, nodes)``.

    The message names the first such server, its count and the usual one."""
    usual = Counter(counts.tolist()).most_common(1)[0][0]
    odd = [int(servers[i]) for i in np.flatnonzero(counts != usual)]
    first = odd[0]
    have = int(counts[np.flatnonzero(servers == first)[0]])
    more = f" (and {len(odd) - 1:,} more servers differ)" if len(odd) > 1 else ""
    message = (
        f"server {fabric.node_name[first]} has {have} NIC link{'s' if have != 1 else ''} "
        f"while the others have {usual}{more}"
    )
    return message, odd


def _trays(fabric: Fabric, generated: dict) -> int:
    """Compute trays per server: those of a rack-scale system (GB300-NVL72: 18), else 1.
    Parameters kept before they named the trays read the fabric's rack system."""
    trays = generated.get("trays") or (fabric.settings.rack_system or {}).get("compute_trays")
    return max(int(trays or 1), 1)


def _check_nic_links(fabric: Fabric, generated: dict, servers, out: list[Violation]) -> None:
    """Every server has ``rails x trays x planes`` NIC links (the generator's ports)."""
    if not servers.size or not generated.get("rails"):
        return
    counts = _nic_counts(fabric, servers)
    expected = (
        int(generated["rails"]) * _trays(fabric, generated) * int(generated.get("planes") or 1)
    )
    if counts.min() == counts.max() == expected:
        return
    if counts.min() == counts.max():
        now = int(counts[0])
        message = f"every server now has {now} NIC links"
        odd = list(servers)
    else:
        message, odd = nic_link_message(fabric, servers, counts)
        now = sorted(set(counts.tolist()))
    out.append(
        _stale(
            "rails",
            expected,
            now,
            f"rails: the spec gives every server {expected} NIC links; {message}. Flow "
            "simulation needs the same number on every server.",
            _names(fabric, odd),
        )
    )


def _check_sus(fabric: Fabric, generated: dict, servers, out: list[Violation]) -> None:
    per_su = generated.get("servers_per_su")
    if not per_su:
        return
    su = fabric.node_su[servers]
    loose = servers[su < 0]
    sizes = Counter(su[su >= 0].tolist())
    over = {s: n for s, n in sorted(sizes.items()) if n > per_su}
    if not loose.size and not over:
        return
    parts = []
    if over:
        parts.append("; ".join(f"SU {s + 1} has {n} servers" for s, n in list(over.items())[:3]))
    if loose.size:
        parts.append(f"{_listed(fabric, loose)} belong{'s' if loose.size == 1 else ''} to no SU")
    over_nodes = [n for n in servers if int(fabric.node_su[n]) in over]
    out.append(
        _stale(
            "servers_per_su",
            per_su,
            max(over.values(), default=per_su),
            f"servers_per_su: the spec puts {per_su} servers in each scalable unit; "
            + "; ".join(parts)
            + ".",
            _names(fabric, [*loose.tolist(), *over_nodes]),
        )
    )


def _check_rails(fabric: Fabric, generated: dict, out: list[Violation]) -> None:
    """Rail-optimized: every NIC link of a server goes to a leaf of the server's SU, one leaf
    per rail and plane (of each compute tray, on a rack-scale system: its port
    ``(tray * rails + rail) * planes + plane``, :mod:`planner.domain.canvas.racks`)."""
    role = fabric.node_role
    nic = np.flatnonzero(role[fabric.link_a] == ROLE["server"])
    a, b = fabric.link_a[nic], fabric.link_b[nic]
    wrong_su = fabric.node_su[b] != fabric.node_su[a]
    tray = np.zeros(nic.size, dtype=np.int64)
    if _trays(fabric, generated) > 1 and generated.get("rails"):
        per_tray = int(generated["rails"]) * int(generated.get("planes") or 1)
        tray = fabric.link_a_port[nic].astype(np.int64) // per_tray
    key = np.stack([a, tray, fabric.node_rail[b], fabric.node_plane[b]], axis=1)
    _, first, counts = np.unique(key, axis=0, return_index=True, return_counts=True)
    doubled = np.zeros(nic.size, dtype=bool)
    doubled[first[counts > 1]] = True
    bad = np.flatnonzero(wrong_su | (fabric.node_rail[b] < 0) | doubled)
    if not bad.size:
        return
    link = int(nic[bad[0]])
    more = f" (and {bad.size - 1:,} more links)" if bad.size > 1 else ""
    out.append(
        _stale(
            "topology",
            "rail-optimized",
            "custom",
            f"topology: rail-optimized puts each NIC link of a server on its SU's leaf of that "
            f"rail; {link_name(fabric, link)} does not{more}.",
            tuple(f"link:{int(nic[i])}" for i in bad[:MAX_IDS]),
        )
    )


def _check_oversubscription(fabric: Fabric, generated: dict, out: list[Violation]) -> None:
    wanted = generated.get("oversubscription") or {}
    role, tier = fabric.node_role, fabric.link_tier
    for name, down_tier, up_tier in (
        ("leaf", "server-leaf", "leaf-spine"),
        ("spine", "leaf-spine", "spine-core"),
    ):
        ratio = wanted.get(name)
        nodes = np.flatnonzero(role == ROLE[name])
        if ratio is None or not nodes.size:
            continue
        down = np.bincount(fabric.link_b[tier == TIER[down_tier]], minlength=fabric.node_count)[
            nodes
        ]
        up = np.bincount(fabric.link_a[tier == TIER[up_tier]], minlength=fabric.node_count)[nodes]
        if not up.any():
            continue  # the top tier: nothing above it
        with np.errstate(divide="ignore"):
            measured = np.where(up > 0, down / np.maximum(up, 1), np.inf)
        over = np.flatnonzero(measured > ratio + 1e-6)
        if not over.size:
            continue
        worst = int(over[np.argmax(measured[over])])
        node = int(nodes[worst])
        now = float(measured[worst]) if np.isfinite(measured[worst]) else None
        shown = f"{now:.3g}:1" if now is not None else "no uplinks"
        out.append(
            _stale(
                f"oversubscription.{name}",
                ratio,
                round(now, 4) if now is not None else None,
                f"oversubscription: the spec has {ratio:g}:1 at the {name}s; "
                f"{fabric.node_name[node]} now has {int(down[worst])} down- and "
                f"{int(up[worst])} uplinks ({shown})"
                + (f", as do {over.size - 1:,} more {PLURAL[name]}" if over.size > 1 else "")
                + ".",
                _names(fabric, nodes[over]),
            )
        )


__all__ = ["generated_parameters", "keep_from_base", "stale_dict", "stale_parameters"]
