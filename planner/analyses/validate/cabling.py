"""Structured cabling: polarity, MPO format and end-face polish consistent end to end.

A tier cabled through patch panels (``cabling.<tier>: patch-panel``;
:mod:`planner.domain.physical.structured`) carries each link over a patch cord, a trunk and a
patch cord. For parallel optics (MPO) the Tx lanes must reach the Rx lanes: TIA-568's
methods do it with an odd number of Type-B (reversing) components in the path (Method B:
Type-B trunk and Type-B cords at both ends; Method A: Type-A trunk, one Type-B cord), so an
even count, or a Type-C (pair-flipped) component, is an error (``cabling-polarity``; inferred
from the TIA-568 connectivity methods as NVIDIA's requirements name them, Type-B per
TIA-568: https://docs.nvidia.com/networking/display/intrcnctcabreqndr400eth). The trunk's MPO
format must be the optic's (MPO-12 against MPO-16: ``cabling-connector-mismatch``; duplex-LC
optics use MPO-12 cassettes or harnesses) and its polish the optic's and the cords' (APC
against UPC never mate: ``cabling-polish-mismatch``). A fact the catalog lacks (a cord's
polarity) is a warning, never an error.
"""

from __future__ import annotations

import numpy as np

from planner.analyses.validate.context import Context
from planner.analyses.validate.registry import register
from planner.domain.fabric import TIER
from planner.domain.physical.structured import plan_structured, tier_options

CODES = ("cabling-polarity", "cabling-connector-mismatch", "cabling-polish-mismatch")


def _polish(connector: str) -> str:
    return connector.rsplit("-", 1)[-1] if connector.startswith("mpo") else ""


@register(stage="fabric", order=900, codes=CODES)
def structured_cabling(ctx: Context) -> None:
    """Each patch-panel tier's links: polarity, MPO format and polish (module docstring).

    Long because: one loop over the patch-panel tiers with a check per rule (polarity, MPO format,
    polish), each a few lines.
    """
    fabric = ctx.fabric
    cabling = fabric.settings.cabling
    if not cabling or fabric.link_a_part is None:
        return
    plan = plan_structured(fabric, cabling, ctx.facts)
    if not plan.structured.any():
        return
    parts = ctx.facts.parts
    for tier, code in TIER.items():
        options = tier_options(cabling, tier)
        links = np.flatnonzero(plan.structured & (fabric.link_tier == code))
        if not links.size:
            continue
        trunk = f"cabling.{tier}"
        combos = np.stack([fabric.link_a_part[links], fabric.link_cable_part[links]], axis=1)
        unique, inverse = np.unique(combos, axis=0, return_inverse=True)
        for index, (module, cord) in enumerate(unique.tolist()):
            mine = links[inverse.ravel() == index]
            module_slug, cord_slug = fabric.parts[module], fabric.parts[cord]
            connector = str((parts.get(module_slug) or {}).get("connector") or "")
            cord_record = parts.get(cord_slug) or {}
            if connector.startswith("mpo"):
                fmt = connector.split("-")[0]
                if fmt != options["mpo"]:
                    ctx.out.add(
                        "cabling-connector-mismatch",
                        f"{tier}: {module_slug} has {fmt.upper()} connectors but the trunks are "
                        f"{options['mpo'].upper()} ({trunk}.mpo)",
                        links=mine,
                        suggestion=f"set {trunk}.mpo: {fmt}",
                    )
                polarity = str(cord_record.get("polarity") or "")
                if "type-c" in (polarity, options["polarity"]):
                    ctx.out.add(
                        "cabling-polarity",
                        f"{tier}: a Type-C (pair-flipped) component on parallel optics "
                        f"({module_slug}): lanes reach the wrong receivers",
                        links=mine,
                        suggestion=f"set {trunk}.polarity: type-b with Type-B cords",
                    )
                elif not polarity:
                    ctx.out.add(
                        "cabling-polarity",
                        f"{tier}: cannot be verified: polarity unknown for the patch cord "
                        f"{cord_slug}",
                        severity="warning",
                        links=mine,
                    )
                else:
                    flips = 2 * (polarity == "type-b") + (options["polarity"] == "type-b")
                    if flips % 2 == 0:
                        ctx.out.add(
                            "cabling-polarity",
                            f"{tier}: {options['polarity']} trunk with {polarity} cords "
                            f"({cord_slug}) at both ends: Tx reaches Tx on {module_slug}",
                            links=mine,
                            suggestion=f"use a type-b trunk ({trunk}.polarity) with Type-B "
                            "cords (TIA-568 Method B)",
                        )
            elif connector.startswith("lc") and options["mpo"] != "mpo12":
                ctx.out.add(
                    "cabling-connector-mismatch",
                    f"{tier}: duplex-LC optics ({module_slug}) go through MPO-12 cassettes or "
                    f"harnesses, not {options['mpo'].upper()} trunks ({trunk}.mpo)",
                    links=mine,
                    suggestion=f"set {trunk}.mpo: mpo12",
                )
            polishes = {
                "trunk": options["polish"],
                module_slug: _polish(connector),
                cord_slug: _polish(str(cord_record.get("connector_a") or "")),
            }
            known = {name: p for name, p in polishes.items() if p}
            if len(set(known.values())) > 1:
                ctx.out.add(
                    "cabling-polish-mismatch",
                    f"{tier}: APC and UPC in one channel ("
                    + ", ".join(f"{n} {p.upper()}" for n, p in known.items())
                    + f"; {trunk}.polish)",
                    links=mine,
                    suggestion=f"set {trunk}.polish to the optics' polish",
                )
