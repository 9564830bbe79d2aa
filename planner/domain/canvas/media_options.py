"""Every compatible media choice for a link between the data ports of two device models
(:func:`link_options`), as the canvas link dialog and the wizard offer them.
"""

from __future__ import annotations

import math

import numpy as np

from inventory.library.facts import legs_of
from planner.domain.canvas.common import speed_text
from planner.domain.canvas.port_speeds import common_speed, ports_at, speed_list, supports
from planner.domain.catalog import CatalogFacts
from planner.domain.fabric import ROLE, TIER, Fabric
from planner.domain.media import (
    TOLERANCE_M,
    Candidate,
    LinkGroup,
    MediaCatalog,
    PriceOf,
    cable_candidates,
    optic_candidates,
    rank_candidates,
)
from planner.domain.spec_model import MediaChoice


class LinkOptions(list):
    """The media choices for one link (a list of option dicts, best first), with
    ``refusal`` (``[{code, message}]``, why there are none), ``speed_gbps``, ``a``, ``b``
    (model slugs, lower tier first), ``b_ports_per_cage`` (the b end's ports per cage at that
    speed: the ports one breakout head takes) and ``notes``."""

    def __init__(self, *args):
        super().__init__(*args)
        self.refusal: list[dict] = []
        self.notes: list[str] = []
        self.speed_gbps: int | None = None
        self.a: str | None = None
        self.b: str | None = None
        self.b_ports_per_cage: int | None = None

    def as_dict(self) -> dict:
        return {
            "a": self.a,
            "b": self.b,
            "speed_gbps": self.speed_gbps,
            "b_ports_per_cage": self.b_ports_per_cage,
            "options": list(self),
            "refusal": self.refusal,
            "notes": self.notes,
        }


def _option(candidate: Candidate, catalog: MediaCatalog) -> dict:
    parts = catalog.facts.parts
    if candidate.kind == "cable":
        kind = (parts[candidate.cable].get("cable_type") or "cable").upper()
    else:
        kind = (parts[candidate.cable].get("fiber_type") or "fiber").upper()
    key = candidate.sort_key
    part = parts[candidate.cable]
    legs = legs_of(part) or 1
    return {
        "a_part": candidate.a,
        "b_part": candidate.b,
        "cable": candidate.cable,
        "kind": kind,
        "reach_m": candidate.reach_m if math.isfinite(candidate.reach_m) else None,
        "price": None if key[0] else round(key[2], 2),
        "power_w": None if key[3] else round(key[4], 2),
        "lengths_m": list(candidate.lengths),
        "label": candidate.label,
        "legs": legs,
        "leg_speed_gbps": part.get("leg_speed_gbps") if legs > 1 else None,
    }


def link_options(
    a_model: str,
    b_model: str,
    *,
    facts: CatalogFacts,
    speed_gbps: int | None = None,
    length_m: float | None = None,
    price_of: PriceOf = None,
) -> LinkOptions:
    """Every compatible media choice for a link between the data ports of two device models.

    ``a_model`` is the lower-tier end (a server, or the leaf of a leaf-spine link); a switch
    given first with a server second is swapped (noted). The speed defaults to the highest
    both models run. Options ``{a_part, b_part, cable, kind (MMF, SMF, DAC, ACC, AEC, AOC),
    reach_m, price, power_w, lengths_m, label, legs, leg_speed_gbps}`` (``legs`` > 1: a 1:N
    breakout cable or splitter whose legs may land on different devices) are sorted by the
    media auto policy (price per link, then power, then fewest parts, then slug;
    :mod:`planner.domain.media`); a cable
    assembly has no ``a_part``/``b_part``. With ``length_m``, options that do not reach it are
    left out. When none remain, ``refusal`` says why.

    Long because: it refuses what cannot be joined (device categories, protocols, speed),
    then ranks every candidate cable and optics pair and says what is missing, each check a
    few lines with its reason.
    """
    result = LinkOptions()
    result.a, result.b = a_model, b_model
    devices = [facts.devices.get(a_model), facts.devices.get(b_model)]
    for slug, model in zip((a_model, b_model), devices, strict=True):
        if model is None:
            result.refusal.append(
                {"code": "unknown-model", "message": f"No device model {slug!r} in the catalog."}
            )
    if result.refusal:
        return result
    low, high = devices
    if low.category == "switch" and high.category == "server":
        low, high = high, low
        result.a, result.b = low.slug, high.slug
        result.notes.append("a is the lower-tier end: the server is a, the switch b.")
    if low.category == "server" and high.category == "server":
        result.refusal.append(
            {
                "code": "tier-order",
                "message": "Two servers are not linked directly: link each to a leaf.",
            }
        )
        return result
    shared = set(low.protocols) & set(high.protocols)
    if low.category == "switch" and low.protocols and high.protocols and not shared:
        result.refusal.append(
            {
                "code": "protocol-mismatch",
                "message": f"{low.slug} speaks {', '.join(low.protocols)}; {high.slug} "
                f"speaks {', '.join(high.protocols)} (rule 17).",
            }
        )
        return result
    speed = speed_gbps or common_speed(low, high)
    if speed is None:
        result.refusal.append(
            {
                "code": "no-common-speed",
                "message": f"{low.slug} runs {speed_list(low)}; {high.slug} runs "
                f"{speed_list(high)}: they share no port speed.",
            }
        )
        return result
    for model in (low, high):
        if not supports(model, speed) or not ports_at(model, speed)[0]:
            result.refusal.append(
                {
                    "code": "speed-unsupported",
                    "message": f"{model.slug} cannot run {speed_text(speed)} ports (it runs "
                    f"{speed_list(model)}).",
                }
            )
    if result.refusal:
        return result
    result.speed_gbps = speed
    result.b_ports_per_cage = int(ports_at(high, speed)[1])
    tier = "server-leaf" if low.category == "server" else "leaf-spine"
    fabric = Fabric(
        models=[low.slug, high.slug],
        node_name=["a", "b"],
        node_role=np.array(
            [ROLE["server" if low.category == "server" else "leaf"], ROLE["spine"]], dtype=np.int8
        ),
        node_model=np.array([0, 1], dtype=np.int16),
        node_plane=np.zeros(2, dtype=np.int16),
        node_su=np.full(2, -1, dtype=np.int32),
        node_rail=np.full(2, -1, dtype=np.int16),
        node_group=np.full(2, -1, dtype=np.int32),
        node_ports=np.array([ports_at(low, speed)[0], ports_at(high, speed)[0]], dtype=np.int32),
        node_ports_per_cage=np.array(
            [ports_at(low, speed)[1], ports_at(high, speed)[1]], dtype=np.int16
        ),
        link_a=np.array([0], dtype=np.int32),
        link_a_port=np.array([0], dtype=np.int32),
        link_b=np.array([1], dtype=np.int32),
        link_b_port=np.array([0], dtype=np.int32),
        link_tier=np.array([TIER[tier]], dtype=np.int8),
        link_plane=np.zeros(1, dtype=np.int16),
        link_speed_gbps=np.array([speed], dtype=np.int32),
    )
    group = LinkGroup(fabric, tier, np.array([0]), facts)
    catalog = MediaCatalog(facts, price_of)
    choice = MediaChoice()
    optics, optics_reason = optic_candidates(group, catalog, choice, {})
    cables, cables_reason = cable_candidates(group, catalog, choice, {})
    ranked = rank_candidates(optics + cables, group, catalog)
    too_short = []
    for candidate in ranked:
        if length_m is not None and candidate.reach_m + TOLERANCE_M < length_m:
            too_short.append(candidate)
            continue
        result.append(_option(candidate, catalog))
    if result:
        return result
    if too_short:
        best = max(too_short, key=lambda c: c.reach_m)
        result.refusal.append(
            {
                "code": "out-of-reach",
                "message": f"Nothing reaches {length_m:g} m at {speed_text(speed)}; the longest "
                f"is {best.reach_m:g} m ({best.label}).",
            }
        )
        return result
    for code, reason in (("no-optics", optics_reason), ("no-cable", cables_reason)):
        if reason:
            result.refusal.append({"code": code, "message": reason[0].upper() + reason[1:]})
    return result
