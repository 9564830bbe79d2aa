"""The runner: groups the links, runs the registered checks of each stage in order, reports.

It knows stages, not checks: every check comes from :mod:`.registry`, where the family
modules put them when :mod:`planner.analyses.validate` is imported.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import numpy as np

from planner.analyses.rules_catalog import RULES, SEVERITIES
from planner.analyses.validate.context import Context, Finding, LinkGroup, chunks, row_groups
from planner.analyses.validate.registry import Check, checks
from planner.analyses.validate.report import ValidationReport
from planner.domain.catalog import CatalogFacts
from planner.domain.fabric import Fabric

Progress = Callable[[int, int], None] | None

PROGRESS_STEPS = 10  # progress at least every tenth of the links


def validate_fabric(
    fabric: Fabric, facts: CatalogFacts, *, on_progress: Progress = None
) -> ValidationReport:
    """Check every link against the compatibility rules and the fabric's wiring.

    Parameters
    ----------
    fabric : Fabric
        A built fabric; media and layout columns are used when present.
    facts : CatalogFacts
        The catalog the fabric was built from.
    on_progress : callable, optional
        ``on_progress(done, total)`` in links, at least every tenth of the links.

    Returns
    -------
    ValidationReport
        Grouped problems; ``as_dict()`` gives ``{"problems": [...], "summary": {...}}``.
    """
    start = time.perf_counter()
    ctx = Context(fabric, facts)
    total = fabric.link_count

    def progress(done: int) -> None:
        if on_progress:
            on_progress(int(done), int(total))

    progress(0)
    ctx.scopes.add("device")
    if ctx.has_media:
        ctx.scopes.add("media")
    _run(ctx, "links")
    _link_groups(ctx, progress)
    if ctx.has_media:
        ctx.scopes.add("module")
        _run(ctx, "module")
    ctx.scopes.add("fabric")
    _run(ctx, "fabric")
    progress(total)
    problems = ctx.out.problems()
    counts_by_code: dict[str, int] = {}
    counts_by_severity = dict.fromkeys(SEVERITIES, 0)
    for problem in problems:
        counts_by_code[problem.code] = counts_by_code.get(problem.code, 0) + problem.count
        counts_by_severity[problem.severity] += 1
    ctx.power["modules_w"] = round(ctx.power["modules_w"], 3)
    ctx.power["cable_ends_w"] = round(ctx.power["cable_ends_w"], 3)
    return ValidationReport(
        problems=problems,
        links_checked=int(ctx.valid.sum()),
        nodes_checked=fabric.node_count,
        rules_run=[code for code, info in RULES.items() if info.scope in ctx.scopes],
        counts_by_code=counts_by_code,
        counts_by_severity=counts_by_severity,
        elapsed_s=time.perf_counter() - start,
        power=ctx.power,
    )


def _run(ctx: Context, stage: str, *args) -> None:
    """Run the checks of a whole-fabric stage, or ``check(ctx, *args)`` for each."""
    for check in checks(stage):
        ctx.out.allowed = check.reports
        try:
            check.run(ctx, *args)
        finally:
            ctx.out.allowed = None


def _link_groups(ctx: Context, progress: Callable[[int], None]) -> None:
    """Group checks once per link group; their findings and the chunk checks per chunk."""
    links = np.flatnonzero(ctx.valid)
    if not links.size:
        return
    group_checks, chunk_checks = checks("group"), checks("chunk")
    order, counts = row_groups(ctx.group_columns(links))
    step = max(1, math.ceil(ctx.fabric.link_count / PROGRESS_STEPS))
    done = 0
    start = 0
    for count in counts:
        members = links[order[start : start + count]]
        start += count
        group = ctx.group(members)
        findings = _findings(ctx, group, group_checks)
        chunk_runs = [c for c in chunk_checks if c.media is None or group.kind in c.media]
        for chunk in chunks(members, step):
            for code, message, suggestion, severity in findings:
                ctx.out.add(code, message, severity=severity, links=chunk, suggestion=suggestion)
            for check in chunk_runs:
                ctx.out.allowed = check.reports
                try:
                    check.run(ctx, group, chunk)
                finally:
                    ctx.out.allowed = None
            done += chunk.size
            progress(done)  # chunks hold at most a tenth of the links


def _findings(ctx: Context, group: LinkGroup, group_checks: list[Check]) -> list[Finding]:
    out: list[Finding] = []
    for check in group_checks:
        if check.media is not None and group.kind not in check.media:
            continue
        for finding in check.run(ctx, group):
            if finding.code not in check.reports:
                raise ValueError(f"{check.name} reported {finding.code!r}, not declared")
            out.append(finding)
    return out


__all__ = ["PROGRESS_STEPS", "validate_fabric"]
