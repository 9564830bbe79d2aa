"""Choosing among a link group's candidates: the auto policy.

Auto policy (deterministic): links that share a module or a cable must use one candidate, so
each connected set of such links takes the first candidate, in this order, that reaches its
longest link:

1. lowest price per link (a-end module + b-end module + cable; a module or cable shared by n
   links counts 1/n); candidates with an unpriced part come after every fully priced one;
2. lowest power per link (unknown power last);
3. fewest distinct parts;
4. shortest reach that still covers the run (no paying for reach or cable length not used:
   a 1.5 m DAC before a 2 m one, an SR optic before a DR at equal price and power);
5. slug order.
"""

from __future__ import annotations

import numpy as np

from inventory.library.facts import legs_of
from planner.domain.fabric import FabricError
from planner.domain.media.candidates import Candidate
from planner.domain.media.catalog import MediaCatalog
from planner.domain.media.groups import LinkGroup
from planner.domain.media.lengths import TOLERANCE_M


def rank_candidates(
    candidates: list[Candidate], group: LinkGroup, catalog: MediaCatalog
) -> list[Candidate]:
    """``candidates`` in auto-policy order (rules 1-5 of this module's docstring)."""
    a_share, b_share = group.a.ports_per_cage, group.b.ports_per_cage
    for cand in candidates:
        if cand.kind == "cable":
            part = catalog.facts.parts[cand.cable]
            legs = legs_of(part) or 1
            prices = [(catalog.price(cand.cable), cand.b_group)]
            watts = [
                (part.get("power_end_a_w"), cand.b_group),
                (
                    None if part.get("power_end_b_w") is None else part["power_end_b_w"] * legs,
                    cand.b_group,
                ),
            ]
            count = 1
        else:
            parts = catalog.facts.parts
            prices = [
                (catalog.price(cand.a), a_share),
                (catalog.price(cand.b), b_share),
                (catalog.price(cand.cable), cand.b_group),
            ]
            watts = [
                (_power(parts[cand.a]), a_share),
                (_power(parts[cand.b]), b_share),
            ]
            count = len({cand.a, cand.b, cand.cable})
        unpriced = sum(1 for price, _ in prices if price is None)
        price = sum(price / share for price, share in prices if price is not None)
        power_known = all(w is not None for w, _ in watts)
        power = sum(w / share for w, share in watts if w is not None)
        cand.sort_key = (
            unpriced > 0,
            unpriced,
            round(price, 6),
            not power_known,
            round(power, 6),
            count,
            round(cand.reach_m, 3),
            (cand.a or "", cand.b or "", cand.cable),
        )
    return sorted(candidates, key=lambda c: c.sort_key)


def _power(part: dict) -> float | None:
    value = part.get("power_max_w")
    if value is None:
        value = part.get("power_typical_w")
    return value


def _components(group: LinkGroup, a_size: int, b_size: int) -> np.ndarray:
    """Connected sets of links that share a cage at either end."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    a_ids = np.unique(group.keys("a", a_size), return_inverse=True)[1]
    b_ids = np.unique(group.keys("b", b_size), return_inverse=True)[1]
    na = int(a_ids.max()) + 1
    size = na + int(b_ids.max()) + 1
    graph = coo_matrix(
        (np.ones(a_ids.size, dtype=np.int8), (a_ids, na + b_ids)), shape=(size, size)
    ).tocsr()
    _, labels = connected_components(graph, directed=False)
    return labels[a_ids]


def choose_candidates(
    group: LinkGroup, ranked: list[Candidate], lengths: np.ndarray, label: str
) -> np.ndarray:
    """Per link of ``group``: the index in ``ranked`` of its candidate, the first that reaches
    the longest link of its connected set (links sharing a module or a cable take one
    candidate; candidates share cage sizes within a group).

    Raises
    ------
    FabricError
        Some link is longer than every candidate reaches (``field`` is ``media.<tier>``).
    """
    reach = np.array([c.reach_m for c in ranked], dtype=np.float64)
    best = np.maximum.accumulate(reach)
    if lengths.max() <= reach[0] + TOLERANCE_M:
        chosen = np.zeros(group.size, dtype=np.int64)
    else:
        too_long = lengths > best[-1] + TOLERANCE_M
        if too_long.any():
            first = int(np.flatnonzero(too_long)[0])
            longest = ranked[int(np.argmax(reach))]
            raise FabricError(
                f"{group.describe(first, float(lengths[first]))}: no {label} reach "
                f"{float(lengths[first]):g} m; the longest is "
                f"{longest.reach_m:g} m ({longest.label}"
                f"{'; ' + longest.limit_note if longest.limit_note else ''}); "
                f"{int(too_long.sum()) - 1} other "
                "link(s) are too long as well",
                field=f"media.{group.tier}",
            )
        # Links sharing a module or a cable take one candidate: the first that reaches the
        # longest link of their connected set (candidates share cage sizes within a group).
        labels = _components(group, group.a.ports_per_cage, group.b.ports_per_cage)
        longest = np.zeros(int(labels.max()) + 1)
        np.maximum.at(longest, labels, lengths)
        per_set = np.searchsorted(best, longest - TOLERANCE_M, side="left")
        chosen = per_set[labels]
    return chosen
