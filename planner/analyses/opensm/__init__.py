"""Routed by OpenSM: the real subnet manager's forwarding tables for a design.

:func:`route_with_opensm` writes the design's InfiniBand topology as an ibsim net file
(:mod:`planner.domain.outputs.ib_topology`, failed links left out), runs Debian's OpenSM on it
once with a routing engine (:mod:`planner.analyses.opensm.runner`), reads the switches'
linear forwarding tables back (``dump_fts``) and checks them
(:mod:`planner.analyses.opensm.tables`): unrouted LIDs, credit loops. The tables go on the
network (``Network.forwarding``) for the flow simulation's ``opensm`` routing
(:mod:`planner.analyses.flow.forwarding`).

Size: ibsim holds at most :data:`MAX_NODES` nodes (each adapter port is one, each switch one; we
raise ibsim's default of 2,048 with ``-N``) and :data:`MAX_SWITCHES` switches; larger designs
are refused. Measured on a 2-core machine (OpenSM 3.3.23, ibsim 0.10, updn, ibsim's start
included): 1 SU DGX H100 (252 adapters, 12 switches) 1.2 s; 4 SU (1,020 adapters, 48 switches)
3.8 s; 16 SU (4,096 adapters, 320 switches, 4,416 ibsim nodes) 50 to 65 s. Time grows faster
than the nodes (every switch's table holds a LID per node): four times the nodes took three to
seventeen times as long. A 29 SU variant (7,424 adapters, 592 switches, 8,016 nodes) routed in
58 to 115 s, plus 26 s to write the topology and read and trace 4.4 million routes.
"""

from __future__ import annotations

import numpy as np

from planner.analyses.errors import JobInputError
from planner.analyses.flow.network import Network
from planner.analyses.opensm.runner import (
    ENGINES,
    INSTALL_HINT,
    OpenSMUnavailable,
    missing_tools,
    run_opensm,
)
from planner.analyses.opensm.tables import check_routes, tables_for
from planner.domain.fabric import Fabric
from planner.domain.outputs.ib_topology import ib_topology_lines

__all__ = [
    "DEFAULT_ENGINE",
    "ENGINES",
    "INSTALL_HINT",
    "MAX_NODES",
    "MAX_SWITCHES",
    "OpenSMUnavailable",
    "missing_tools",
    "report_line",
    "route_with_opensm",
]

#: ibsim's most nodes (adapter ports and switches) and switches here (its ``-N`` and ``-S``).
MAX_NODES = 8192
MAX_SWITCHES = 2048
#: The engine our opensm.conf fragment's ``ar_updn,updn`` routes with on upstream OpenSM.
DEFAULT_ENGINE = "updn"
#: Directed links in credit loops a report names.
LOOP_LINKS_SHOWN = 20


def _refusal(fabric: Fabric, net: Network, engine: str) -> str:
    """Why OpenSM cannot route this design ("" when it can; the tools are checked apart)."""
    transport = fabric.settings.transport
    if transport is not None and transport.transport != "infiniband":
        return (
            "routing: opensm is for an InfiniBand design; this one runs RoCE (Ethernet), which "
            "has no subnet manager: choose rail, ecmp, flowlet or spraying"
        )
    if engine not in ENGINES:
        return f"opensm_engine: one of {', '.join(ENGINES)}, not {engine!r}"
    if net.planes > 1:
        return (
            f"routing: this fabric has {net.planes} planes, each a subnet with its own subnet "
            "manager; OpenSM routing runs on a single-plane fabric (use rail or ib-ar)"
        )
    is_switch = net.is_switch
    switches = int(is_switch.sum())
    hosts = int((~is_switch[fabric.link_a]).sum() + (~is_switch[fabric.link_b]).sum())
    nodes = switches + hosts  # a host's every linked port is an adapter of its own
    if nodes > MAX_NODES or switches > MAX_SWITCHES:
        return (
            f"routing: OpenSM on ibsim handles at most {MAX_NODES:,} nodes (adapter ports and "
            f"switches) and {MAX_SWITCHES:,} switches; this design has {nodes:,} nodes and "
            f"{switches:,} switches: simulate it with rail (d-mod-k) or ib-ar"
        )
    return ""


def route_with_opensm(
    fabric: Fabric, net: Network, *, engine: str = DEFAULT_ENGINE
) -> tuple[Network, dict]:
    """``net`` with OpenSM's forwarding tables on it, and the report of the run.

    The topology is the fabric less the links ``net`` has failed, so OpenSM routes around
    them as it would on the floor. The report: the engine asked for and the one that routed
    (OpenSM falls back to ``minhop`` when an engine cannot route the fabric, ``ftree`` on a
    fat tree with a link missing), LIDs, the (switch, adapter) routes traced and those with
    no route (examples), credit loops and the seconds the run took.

    Raises
    ------
    JobInputError
        Not an InfiniBand design, a multi-plane fabric, too large for ibsim, an unknown
        engine, or OpenSM did not route (:class:`OpenSMUnavailable` when the tools are not
        installed: the message says how to install them).
    """
    if problem := _refusal(fabric, net, engine):
        raise JobInputError(problem, field=problem.split(":", 1)[0])
    if problem := missing_tools():
        raise OpenSMUnavailable(problem, field="routing")
    alive = net.alive[0 : 2 * net.fabric_links : 2].copy()
    text = "".join(ib_topology_lines(fabric, leave_out=np.flatnonzero(~alive)))
    run = run_opensm(text, engine=engine)
    if not run.routed_by:
        raise JobInputError(
            f"routing: OpenSM (engine {engine}) configured no forwarding tables on this "
            f"design; its log ends: {run.log_tail.splitlines()[-1] if run.log_tail else '-'}",
            field="routing",
        )
    source = f"OpenSM {run.version or ''} ({run.routed_by}) on ibsim".replace("  ", " ")
    tables = tables_for(fabric, run.fts, alive, source=source)
    check = check_routes(fabric, tables)
    host_ends = int((tables.dest_col >= 0).sum())
    is_switch = net.is_switch
    nic_links = np.flatnonzero(alive & (is_switch[fabric.link_a] != is_switch[fabric.link_b]))
    routed = net.__class__(**{k: getattr(net, k) for k in net.__dataclass_fields__})
    routed.forwarding = tables
    report = {
        "engine": engine,
        "routed_by": run.routed_by,
        "fallback": run.routed_by != engine,
        "version": run.version,
        "adapters": check.adapters,
        "switches": check.switches,
        "lids": check.adapters + check.switches,
        "adapters_without_lid": int(nic_links.size - host_ends),
        "routes": check.pairs,
        "unrouted": check.unrouted,
        "unrouted_lids": check.unrouted_adapters,
        "unrouted_examples": check.examples,
        "dependencies": check.dependencies,
        "credit_loops": bool(check.credit_loop_links),
        "credit_loop_link_count": len(check.credit_loop_links),
        "credit_loop_links": [net.link_id(i) for i in check.credit_loop_links[:LOOP_LINKS_SHOWN]],
        "failed_links": int((~alive).sum()),
        "seconds": round(run.seconds, 2),
    }
    return routed, report


def report_line(report: dict) -> str:
    """The report of :func:`route_with_opensm` in one sentence."""
    asked = f" (asked {report['engine']}: OpenSM fell back)" if report.get("fallback") else ""
    lids = f" (to {report['unrouted_lids']:,} LIDs)" if report.get("unrouted_lids") else ""
    loops = (
        f"credit loops through {report.get('credit_loop_link_count', 0):,} links"
        if report.get("credit_loops")
        else "no credit loop"
    )
    return (
        f"OpenSM {report.get('version') or ''} routed with {report['routed_by']}{asked}: "
        f"{report['lids']:,} LIDs, {report['routes']:,} switch-to-adapter routes, "
        f"{report['unrouted']:,} unrouted{lids}, {loops} ({report['seconds']:,.1f} s)"
    ).replace("  ", " ")
