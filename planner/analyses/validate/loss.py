"""Optical loss budget: every optical link's computed channel loss against its optic's limit.

:func:`planner.domain.physical.budget.compute_budgets` gives each link with two modules and a
fibre its loss (fibre, mated MPO/LC pairs, splices; typical and worst case) and the channel
insertion-loss limit of its PHY on that fibre grade, in one NumPy pass over the fabric. Here:

- ``optical-loss-exceeded`` (error): the worst-case loss is over the limit;
- ``optical-margin-low`` (warning): the margin (limit - worst-case loss) is under the design's
  ``optical_margin_min_db`` (default 1 dB);
- ``optical-limit-unknown`` (info): the budget cannot be computed (no limit for the PHY on
  that grade, no attenuation for the grade, or no length).

One problem per code and part combination; the message gives the combination, its PHY and
limit, and the worst link with its segments. Cable assemblies (DAC, ACC, AEC, AOC) are out of
scope (their reach is checked by rules 11 and 16).
"""

from __future__ import annotations

import numpy as np

from planner.analyses.validate.context import Context
from planner.analyses.validate.registry import register
from planner.analyses.validate.report import describe_link
from planner.domain.physical.budget import DEFAULT_MARGIN_MIN_DB, Budgets, compute_budgets


def margin_min_db(fabric) -> float:
    """The design's warning threshold (``fabric.settings.optical_margin_min_db``, default 1)."""
    value = fabric.settings.optical_margin_min_db
    if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
        return float(value)
    return DEFAULT_MARGIN_MIN_DB


@register(
    stage="links",
    order=300,
    codes=("optical-loss-exceeded", "optical-margin-low", "optical-limit-unknown"),
)
def optical_budget(ctx: Context) -> None:
    """Worst-case channel loss over the limit (error) or with a margin under the threshold."""
    fabric = ctx.fabric
    if not ctx.has_media or fabric.link_length_m is None:
        return
    budgets = compute_budgets(fabric, ctx.facts)
    ctx.memo["optical_budgets"] = budgets
    if not budgets.links.size:
        return
    valid = ctx.valid[budgets.links]
    threshold = margin_min_db(fabric)
    margin = budgets.margin_db
    unknown = valid & ~np.isfinite(margin)
    over = valid & (margin < 0)
    low = valid & (margin >= 0) & (margin < threshold)
    for code, mask in (
        ("optical-loss-exceeded", over),
        ("optical-margin-low", low),
        ("optical-limit-unknown", unknown),
    ):
        if not mask.any():
            continue
        positions = np.flatnonzero(mask)
        kinds = budgets.kind[positions]
        for kind in np.unique(kinds).tolist():
            chosen = positions[kinds == kind]
            ctx.out.add(
                code,
                _message(code, budgets, kind, chosen, threshold, fabric),
                links=budgets.links[chosen],
                suggestion=_suggestion(code, budgets.terms[kind]),
            )


def _message(code: str, b: Budgets, kind: int, chosen: np.ndarray, threshold: float, fabric) -> str:
    t = b.terms[kind]
    parts = f"{t.b} + {t.a} over {t.fiber}"
    if code == "optical-limit-unknown":
        why = t.why_unknown or "link length unknown"
        return f"optical budget not computed for {parts}: {why}"
    worst = int(chosen[np.argmin(b.margin_db[chosen])])
    link = int(b.links[worst])
    detail = _worst_link(b, worst, fabric)
    limit = float(b.limit_db[worst])
    loss = float(b.loss_worst_db[worst])
    typical = float(b.loss_typical_db[worst])
    head = (
        f"worst-case loss {loss:.2f} dB over the {limit:g} dB channel limit"
        if code == "optical-loss-exceeded"
        else f"margin {limit - loss:.2f} dB under {threshold:g} dB "
        f"(worst-case loss {loss:.2f} dB of the {limit:g} dB channel limit)"
    )
    text = (
        f"{head} of {t.label} ({parts}; typical {typical:.2f} dB; limit figure: {t.limit_grade}); "
        f"worst link {describe_link(fabric, link)}: {detail}"
    )
    pairs = int(b.channels.mated_pairs[link])
    if t.rated_with_patch_panels and pairs > t.rated_with_patch_panels:
        text += (
            f"; the vendor's reach assumes {t.rated_with_patch_panels} patch panels, "
            f"this channel has {pairs} mated pairs"
        )
    return text


def _worst_link(b: Budgets, position: int, fabric) -> str:
    """The worst link's segments and what each term costs (worst case)."""
    t = b.terms[int(b.kind[position])]
    link = int(b.links[position])
    ch = b.channels
    fiber_m = float(ch.fiber_m[link])
    mpo = int(ch.mpo_pairs[link])
    lc = int(ch.mated_pairs[link]) - mpo
    splices = int(ch.splices[link])
    terms = [f"fibre {fiber_m:g} m x {t.attenuation_db_per_km[1]:g} dB/km"]
    if mpo:
        terms.append(f"{mpo} mated MPO pair(s) x {t.mpo_pair_db[1]:g} dB")
    if lc:
        terms.append(f"{lc} mated LC pair(s) x {t.lc_pair_db[1]:g} dB")
    if splices:
        terms.append(f"{splices} splice(s) x {t.splice_db[1]:g} dB")
    segments = " -> ".join(s.label for s in ch.segments(link))
    return f"{' + '.join(terms)} (segments: {segments})"


def _suggestion(code: str, t) -> str:
    if code == "optical-limit-unknown":
        return "add the PHY's channel insertion-loss limit to the transceiver in the catalog"
    return (
        "fewer mated pairs on this run (fewer patch panels, point to point), low-loss "
        "connectors, a shorter run, or an optic with a larger channel budget"
    )
