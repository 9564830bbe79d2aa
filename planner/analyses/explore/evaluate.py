"""One candidate through the pipeline a saved design goes through, scored and checked against
the limits.

Steps (each the existing engine, never a new model):

1. ``parse_spec`` and :func:`planner.domain.pipeline.build_fabric` (generation, layout, media,
   structured cabling): a :class:`~planner.domain.fabric.FabricError` (a radix, media or
   reach refusal) makes the candidate ``infeasible`` with the field and message;
2. validation (:func:`planner.analyses.validate.validate_fabric`): an error makes it
   ``infeasible`` with each rule's code and message;
3. bill of materials and its cost at the price table's new-condition offers
   (:func:`planner.domain.outputs.quote.bom_cost`; unpriced lines are counted, never zero):
   ``cost`` the whole bill (servers and racks too), ``fabric_cost`` the compute fabric's
   switches, NIC cards, optics, cables and fibres;
4. power budget (:func:`planner.analyses.power.power_budget`: ``total_w``, servers and
   fabric);
5. bisection measured by max-flow (:func:`planner.analyses.resilience.measure_graph`);
6. the smallest optical margin (:func:`planner.domain.physical.budget.compute_budgets`);
7. expected failures a day (:func:`planner.analyses.resilience.failures.expected_failures`);
8. GPUs lost to one switch (GPUs whose every NIC link ends on that switch, so they are cut
   off from the fabric: :func:`planner.analyses.resilience.whatif.gpu_links`) and to one rack
   (:func:`planner.analyses.resilience.domains.domain_summary`, kind ``rack``);
9. the workload: every collective x message size x job size, ring collectives through the
   size sweep's alpha-beta ring schedule over the max-min flow rates
   (:func:`planner.analyses.size_sweep.run_size_sweep` with the catalog's latencies),
   all-to-all through :func:`planner.analyses.scenario.run_scenario`; ``collective_time_s`` is
   the sum of their times (each item run once), ``busbw_gbps`` the lowest busbw.

A broken limit makes the candidate ``infeasible`` with the field and both figures; an
unexpected exception makes it ``crashed`` with the exception's class and message (reported,
never dropped). The result is JSON-safe and the same for the same input but ``seconds``.
"""

from __future__ import annotations

import math
import time
from decimal import Decimal

import numpy as np

from planner.analyses.errors import JobInputError
from planner.analyses.power import power_budget
from planner.analyses.resilience.domains import domain_summary
from planner.analyses.resilience.failures import expected_failures
from planner.analyses.resilience.graph import measure_graph
from planner.analyses.resilience.whatif import gpu_links
from planner.analyses.validate import validate_fabric
from planner.domain.catalog import CatalogFacts, CatalogLookupError
from planner.domain.fabric import ROLE, Fabric, FabricError
from planner.domain.outputs.bom import bill_of_materials
from planner.domain.outputs.quote import PriceTable, bom_cost, network_of
from planner.domain.physical.budget import compute_budgets
from planner.domain.pipeline import build_fabric
from planner.domain.spec import SpecError, parse_spec

from .candidates import Candidate
from .requirements import Requirements

#: Bill-of-materials categories of ``fabric_cost``: the compute fabric's switches, NIC cards,
#: optics, cables and fibres (the transport comparison's categories; servers and racks out).
FABRIC_CATEGORIES = ("switch", "nic", "transceiver", "cable", "fiber")
#: Reasons listed per infeasible candidate (the rest are counted).
MAX_REASONS = 5


class Infeasible(Exception):
    """The candidate cannot be built or breaks a rule; ``reasons`` say why."""

    def __init__(self, reasons: list[str]):
        self.reasons = reasons
        super().__init__("; ".join(reasons))


def _round(value: float | None, digits: int = 6) -> float | None:
    if value is None or not math.isfinite(float(value)):
        return None
    return round(float(value), digits)


def _build(candidate: Candidate, facts: CatalogFacts, price_of) -> Fabric:
    try:
        spec = parse_spec(candidate.document)
    except SpecError as exc:
        raise Infeasible([f"{f}: {m}" if f else m for f, m in exc.problems]) from None
    try:
        return build_fabric(spec, facts, price_of=price_of)
    except FabricError as exc:
        where = f"{exc.field}: " if getattr(exc, "field", None) else ""
        raise Infeasible([f"build: {where}{exc}"]) from None
    except CatalogLookupError as exc:
        raise Infeasible([f"build: {exc.args[0] if exc.args else exc}"]) from None
    except SpecError as exc:
        raise Infeasible([f"build: {f}: {m}" if f else m for f, m in exc.problems]) from None


def _validate(fabric: Fabric, facts: CatalogFacts) -> dict:
    report = validate_fabric(fabric, facts)
    errors = [p for p in report.problems if p.severity == "error"]
    if errors:
        reasons = [f"validation {p.code}: {p.message}" for p in errors[:MAX_REASONS]]
        if len(errors) > MAX_REASONS:
            reasons.append(f"and {len(errors) - MAX_REASONS} more validation errors")
        raise Infeasible(reasons)
    return {k: int(v) for k, v in report.counts_by_severity.items() if v}


def counts(fabric: Fabric) -> dict:
    """GPUs, servers, switches, links and racks of a built fabric."""
    role = fabric.node_role
    return {
        "gpus": int(fabric.info.get("gpus") or 0),
        "servers": int((role == ROLE["server"]).sum()),
        "switches": int((role >= ROLE["leaf"]).sum()),
        "links": int(fabric.link_count),
        "racks": len(fabric.racks),
    }


def _cost(fabric: Fabric, facts: CatalogFacts, prices: PriceTable | None, currency: str) -> dict:
    bom = bill_of_materials(fabric, facts)
    if prices is None:
        return {
            "cost": None,
            "fabric_cost": None,
            "currency": currency,
            "cost_complete": False,
            "unpriced_lines": None,
        }
    quote = bom_cost(bom, table=prices, currency=currency)
    unpriced = sum(1 for line in quote.lines if not line.priced)
    fabric = sum(
        (
            line.extended_cost
            for line in quote.lines
            if line.priced
            and line.line.category in FABRIC_CATEGORIES
            and network_of(line.line.tier) == "compute"
        ),
        Decimal("0"),
    )
    return {
        "cost": float(quote.cost_total.quantize(Decimal("0.01"))),
        "fabric_cost": float(fabric.quantize(Decimal("0.01"))),
        "currency": currency,
        "cost_complete": bool(quote.complete),
        "unpriced_lines": unpriced,
        "unpriced_parts": sorted(quote.unpriced_parts),
    }


def gpus_lost_to_one_switch(fabric: Fabric) -> int:
    """Most GPUs one switch failure cuts off: GPUs whose every NIC link ends on that switch
    (on a multi-plane fabric a GPU keeps its other planes, degraded, and is not counted)."""
    gpu, link = gpu_links(fabric)
    if not gpu.size:
        return 0
    far = fabric.link_b[link].astype(np.int64)
    size = int(gpu.max()) + 1
    low = np.full(size, np.iinfo(np.int64).max, dtype=np.int64)
    high = np.full(size, -1, dtype=np.int64)
    np.minimum.at(low, gpu, far)
    np.maximum.at(high, gpu, far)
    single = low[(low == high) & (high >= 0)]
    if not single.size:
        return 0
    switch = fabric.node_role[single] >= ROLE["leaf"]
    if not switch.any():
        return 0
    return int(np.bincount(single[switch]).max())


def gpus_lost_to_one_rack(fabric: Fabric) -> int:
    """Most GPUs one rack failure loses (its servers and those it cuts off)."""
    if not fabric.racks:
        return 0
    for kind in domain_summary(fabric, worst=1)["kinds"]:
        if kind["kind"] == "rack":
            return int(kind["largest"]["gpus"])
    return 0


def optical_margin_min_db(fabric: Fabric, facts: CatalogFacts) -> float | None:
    """The smallest worst-case optical margin of the links with a known budget."""
    budgets = compute_budgets(fabric, facts)
    known = budgets.margin_db[budgets.known]
    return _round(float(known.min()), 3) if known.size else None


def _job_sizes(fabric: Fabric, req: Requirements) -> list[int]:
    """The workload's job sizes on this candidate: whole servers, at most every GPU."""
    from planner.analyses.resilience.domains import gpus_per_server

    gpus = int(fabric.info.get("gpus") or 0)
    per = max(1, gpus_per_server(fabric))
    out = []
    for job in req.workload.job_gpus or (gpus,):
        job = min(int(job), gpus) // per * per
        if job >= 2 and job not in out:
            out.append(job)
    return out


def workload_runs(fabric: Fabric, facts: CatalogFacts, req: Requirements) -> list[dict]:
    """Every collective x job size x message size of the workload (module doc, step 9)."""
    from planner.analyses.scenario import run_scenario
    from planner.analyses.size_sweep import catalog_latency, run_size_sweep

    routing = None if req.workload.routing == "design" else req.workload.routing
    sizes = tuple(int(s) for s in req.workload.message_bytes)
    runs: list[dict] = []
    latency = None
    for collective in req.workload.collectives:
        if collective == "all-to-all":
            for size in sizes:
                out = run_scenario(
                    fabric, traffic=collective, routing=routing, size_bytes=size, summary_only=True
                )
                runs.append(
                    {
                        "collective": collective,
                        "job_gpus": int(out["gpus"]),
                        "message_bytes": size,
                        "routing": out["routing"],
                        "time_s": _round(out["completion_time_s"], 9),
                        "busbw_gbps": _round(out["busbw_gbps"], 3),
                        "engine": "run_scenario (all GPUs, groups of 512)",
                    }
                )
            continue
        if latency is None:
            latency = catalog_latency(fabric, facts)
        for job in _job_sizes(fabric, req):
            sweep = run_size_sweep(
                fabric,
                traffic=collective,
                routing=routing,
                gpus=job,
                link_ns=latency[0],
                node_ns=latency[1],
                sizes=sizes,
            )
            for point in sweep["points"]:
                runs.append(
                    {
                        "collective": collective,
                        "job_gpus": job,
                        "message_bytes": int(point["size_bytes"]),
                        "routing": sweep["routing"],
                        "time_s": _round(point["time_s"], 9),
                        "busbw_gbps": _round(point["busbw_gbps"], 3),
                        "engine": "size_sweep ring schedule (rail rings)",
                        **(
                            {"notes": sweep["latency"]["notes"]}
                            if sweep["latency"]["notes"]
                            else {}
                        ),
                    }
                )
    return runs


def _limits(metrics: dict, req: Requirements) -> list[dict]:
    """Each limit the requirements set, with the candidate's value and whether it keeps it."""
    lim = req.limits
    rows = []

    def row(field_name: str, limit, value, ok) -> None:
        rows.append({"field": field_name, "limit": limit, "value": value, "ok": ok})

    if lim.budget is not None and lim.budget.amount is not None:
        cost = metrics.get("cost")
        ok = None if cost is None else cost <= lim.budget.amount
        row("limits.budget", lim.budget.amount, cost, ok)
    if lim.power_kw is not None:
        kw = _round(metrics["power_w"] / 1000, 3) if metrics.get("power_w") is not None else None
        row("limits.power_kw", lim.power_kw, kw, None if kw is None else kw <= lim.power_kw)
    if lim.racks is not None:
        row("limits.racks", lim.racks, metrics["racks"], metrics["racks"] <= lim.racks)
    if lim.max_gpus_lost_switch is not None:
        v = metrics["gpus_lost_switch"]
        row(
            "limits.max_gpus_lost_switch",
            lim.max_gpus_lost_switch,
            v,
            v <= lim.max_gpus_lost_switch,
        )
    if lim.max_gpus_lost_rack is not None:
        v = metrics["gpus_lost_rack"]
        row("limits.max_gpus_lost_rack", lim.max_gpus_lost_rack, v, v <= lim.max_gpus_lost_rack)
    if lim.min_optical_margin_db is not None:
        v = metrics.get("optical_margin_min_db")
        ok = True if v is None else v >= lim.min_optical_margin_db
        row("limits.min_optical_margin_db", lim.min_optical_margin_db, v, ok)
    return rows


def _limit_reasons(rows: list[dict], currency: str) -> list[str]:
    reasons = []
    for r in rows:
        if r["ok"] is False:
            reasons.append(
                f"{r['field']}: {r['value']:,} is over the limit of {r['limit']:,}"
                if r["field"] != "limits.min_optical_margin_db"
                else f"{r['field']}: the smallest margin, {r['value']:g} dB, is under "
                f"{r['limit']:g} dB"
            )
        elif r["ok"] is None and r["field"] == "limits.budget":
            reasons.append(f"limits.budget: no price table to cost the candidate in {currency}")
    return reasons


def measure(fabric: Fabric, facts: CatalogFacts, req: Requirements, prices, currency) -> dict:
    """Every metric of a built, valid fabric (module doc, steps 3-9)."""
    metrics = counts(fabric)
    metrics.update(_cost(fabric, facts, prices, currency))
    power = power_budget(fabric, facts)
    metrics["power_w"] = _round(power.total_w, 1)
    metrics["network_power_w"] = _round(power.network_w, 1)
    metrics["bisection_gbps"] = _round(measure_graph(fabric).measured_gbps, 3)
    metrics["optical_margin_min_db"] = optical_margin_min_db(fabric, facts)
    failures = expected_failures(fabric, facts)
    metrics["failures_per_day"] = _round(failures.get("total_per_day"), 6)
    metrics["gpus_lost_switch"] = gpus_lost_to_one_switch(fabric)
    metrics["gpus_lost_rack"] = gpus_lost_to_one_rack(fabric)
    runs = workload_runs(fabric, facts, req)
    metrics["workload"] = runs
    times = [r["time_s"] for r in runs if r["time_s"] is not None]
    metrics["collective_time_s"] = (
        _round(sum(times), 9) if times and len(times) == len(runs) else None
    )
    busbw = [r["busbw_gbps"] for r in runs if r["busbw_gbps"] is not None]
    metrics["busbw_gbps"] = min(busbw) if busbw else None
    return metrics


def evaluate_candidate(
    candidate: Candidate,
    requirements: Requirements,
    facts: CatalogFacts,
    *,
    prices: PriceTable | None = None,
    currency: str | None = None,
    price_of=None,
) -> dict:
    """The candidate built, checked and scored (module doc); JSON-safe, deterministic but for
    ``seconds``. ``prices`` prices the bill in ``currency`` (default: the budget's, else USD);
    ``price_of(slug)`` is what media ``auto`` compares (the price book's unit prices)."""
    if currency is None:
        budget = requirements.limits.budget
        currency = budget.currency if budget is not None else "USD"
    started = time.perf_counter()
    out = {
        "index": candidate.index,
        "key": candidate.key,
        "label": candidate.label,
        "axes": dict(candidate.axes),
        "status": "feasible",
        "reasons": [],
        "metrics": {},
        "limits": [],
    }
    try:
        fabric = _build(candidate, facts, price_of)
        out["metrics"] = counts(fabric)
        out["metrics"]["validation"] = _validate(fabric, facts)
        validation = out["metrics"]["validation"]
        out["metrics"] = measure(fabric, facts, requirements, prices, currency)
        out["metrics"]["validation"] = validation
        out["limits"] = _limits(out["metrics"], requirements)
        reasons = _limit_reasons(out["limits"], currency)
        if reasons:
            out["status"], out["reasons"] = "infeasible", reasons
    except Infeasible as exc:
        out["status"], out["reasons"] = "infeasible", list(exc.reasons)
    except JobInputError as exc:
        out["status"], out["reasons"] = "infeasible", [f"workload: {exc}"]
    except Exception as exc:  # noqa: BLE001 - a crash is reported, never dropped
        out["status"] = "crashed"
        out["reasons"] = [f"{type(exc).__name__}: {exc}"[:500]]
    out["seconds"] = round(time.perf_counter() - started, 3)
    return out


__all__ = [
    "evaluate_candidate",
    "gpus_lost_to_one_rack",
    "gpus_lost_to_one_switch",
    "measure",
    "workload_runs",
]
