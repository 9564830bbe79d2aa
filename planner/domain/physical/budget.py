"""The optical loss budget of every link: computed channel loss against the optic's limit.

Per link (the FOA calculator's rule, next-wave.md §1.4)::

    loss = fibre_km x attenuation(grade, wavelength)
         + MPO mated pairs x MPO loss + LC mated pairs x LC loss
         + splices x splice loss

in a typical and a worst case, compared with the channel insertion-loss limit of the optic's
IEEE/MSA PHY on that fibre grade; ``margin_db = limit_db - loss_worst_db``. Pass when the
worst case fits; reach (rules 11-12) is checked separately by the validator.

Scope: links with a transceiver at each end and a fibre part between them. Cable assemblies
(DAC, ACC, AEC and AOC: an AOC is a fixed assembly whose only figure is its reach) and
fabric-manager links are out of scope.

Patch panels and NVIDIA's ratings: NVIDIA rates some optics' reach with patch panels already
in the link (the MMA4Z00-NS400's 50 m on OM4 "assumes two optical patch panels"). The budget
does not subtract those panels: it counts the panels, mated pairs and splices the design
really has (:mod:`planner.domain.physical.channels`; none point to point) and compares their
loss with the PHY's channel limit; NVIDIA's 50 m stays the reach limit. A channel with more
mated pairs than the rating assumes is named in :attr:`LinkTerms.rated_with_patch_panels`
so messages can say the vendor's reach no longer covers it.

Vectorized: terms are worked out once per distinct (a-end, b-end, fibre) part combination,
then every link's loss is a few NumPy operations (300,000 links in tens of milliseconds).
:func:`link_loss_db` is the scalar reference the tests compare with.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from planner.domain.fabric import TIER_NAMES, Fabric
from planner.domain.names import link_name, scheme_of
from planner.domain.physical.cabling import channels_for
from planner.domain.physical.channels import Channels
from planner.domain.physical.optics_tables import (
    ASSUMED_GRADE,
    Tables,
    channel_limits,
    phy_of,
    rated_with_patch_panels,
    tables_for,
)

#: Default warning threshold: a margin under this many dB is reported (issue 19).
DEFAULT_MARGIN_MIN_DB = 1.0
#: Margin histogram bin edges, dB (the first and last bins are open).
MARGIN_BINS_DB = (0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0)
CASES = ("typical", "worst")


@dataclass(frozen=True)
class LinkTerms:
    """The per-kind figures of a link's budget (one per (a-end, b-end, fibre) combination).

    Attributes
    ----------
    a, b, fiber : str
        Part slugs: a-end module, b-end module, fibre.
    phy : str or None
        The PHY whose limit applies (the stricter end's).
    grade : str or None
        Fibre grade (``OM4``, ``OS2``, ...); ``grade_assumed`` when the fibre does not state it.
    limit_db : float
        Channel insertion-loss limit, dB; NaN when unknown (``why_unknown`` says why).
    limit_source : str
        Where the limit comes from: ``catalog`` (the part's own figure), else the URL of the
        optics table's source for its PHY.
    limit_grade : str
        The figure's grade (``catalog``, else the optics table's: ``datasheet``,
        ``secondary``, ``inferred``, ``estimate``).
    attenuation_db_per_km, mpo_pair_db, lc_pair_db, splice_db : tuple of float
        (typical, worst) figures.
    rated_with_patch_panels : int
        Patch panels the vendor's reach rating of either module already assumes.
    """

    a: str
    b: str
    fiber: str
    phy: str | None
    grade: str | None
    grade_assumed: bool
    limit_db: float
    limit_source: str
    limit_grade: str
    attenuation_db_per_km: tuple[float, float]
    mpo_pair_db: tuple[float, float]
    lc_pair_db: tuple[float, float]
    splice_db: tuple[float, float]
    rated_with_patch_panels: int = 0
    why_unknown: str = ""

    @property
    def known(self) -> bool:
        return math.isfinite(self.limit_db) and math.isfinite(self.attenuation_db_per_km[1])

    @property
    def label(self) -> str:
        grade = f"{self.grade}{' (assumed)' if self.grade_assumed else ''}"
        return f"{self.phy or 'PHY unknown'} on {grade}"

    def fixed_loss_db(self, mpo_pairs: int, lc_pairs: int, splices: int, case: str) -> float:
        """Loss of the connections and splices alone (no fibre), dB."""
        i = CASES.index(case)
        return (
            mpo_pairs * self.mpo_pair_db[i]
            + lc_pairs * self.lc_pair_db[i]
            + (splices * self.splice_db[i])
        )

    def budget_reach_m(self, mpo_pairs: int = 0, lc_pairs: int = 0, splices: int = 0) -> float:
        """The longest fibre whose worst-case loss fits the limit with these connections
        (``inf`` when the limit is unknown, negative when the connections alone exceed it).

        >>> t = link_terms(_NS400, _NS400, _OM4_FIBER)
        >>> round(t.budget_reach_m(), 1), round(t.budget_reach_m(mpo_pairs=3), 1)
        (542.9, -100.0)
        """
        if not self.known:
            return math.inf
        room = self.limit_db - self.fixed_loss_db(mpo_pairs, lc_pairs, splices, "worst")
        attenuation = self.attenuation_db_per_km[1]
        return math.inf if attenuation <= 0 else room / attenuation * 1000.0


_NAN2 = (math.nan, math.nan)


def link_terms(a: dict, b: dict, fiber: dict, tables: Tables | None = None) -> LinkTerms:
    """The budget figures of a link built from transceiver records ``a`` and ``b`` over the
    fibre record ``fiber`` (catalog part dicts).

    The fibre grade is the fibre's ``fiber_grade``, else the one grade both modules list,
    else :data:`~planner.domain.physical.optics_tables.ASSUMED_GRADE` of the fibre type. The
    limit is the smaller of the two modules' limits on that grade (a module with no known
    limit leaves the other's). Connector losses follow each connection's own type (MPO or
    LC; the channel says how many of each).
    """
    tables = tables or tables_for(None)
    family = fiber.get("fiber_type") or a.get("media") or b.get("media")
    grade = fiber.get("fiber_grade")
    assumed = False
    if not grade:
        listed = [set(p.get("fiber_grades") or ()) for p in (a, b)]
        common = set.intersection(*listed) if all(listed) else set().union(*listed)
        grade = next(iter(common)) if len(common) == 1 else ASSUMED_GRADE.get(family or "")
        assumed = grade is not None
    limits, phy, source, figure, why = [], None, "", "", ""
    for part in (a, b):
        limit = channel_limits(part, tables).get(grade or "")
        if limit is not None and (not limits or limit.db < min(limits)):
            phy, source, figure = phy_of(part), limit.source, limit.grade
        if limit is not None:
            limits.append(limit.db)
    if not limits:
        names = sorted({phy_of(p) or p.get("pmd") or p.get("slug") or "?" for p in (a, b)})
        why = f"channel limit unknown for {' / '.join(names)} on {grade or 'an unknown grade'}"
        phy = phy_of(a) or phy_of(b)
    row = tables.fiber_grades.get(grade or "")
    attenuation = _pair((row or {}).get("attenuation_db_per_km"))
    if row is None and not why:
        why = f"attenuation unknown for fibre grade {grade or '(none)'}"
    splice = _pair((tables.splices.get(family or "") or {}).get("splice_db"))
    return LinkTerms(
        a=a.get("slug", "?"),
        b=b.get("slug", "?"),
        fiber=fiber.get("slug", "?"),
        phy=phy,
        grade=grade,
        grade_assumed=assumed,
        limit_db=min(limits) if limits else math.nan,
        limit_source=source,
        limit_grade=figure,
        attenuation_db_per_km=attenuation,
        mpo_pair_db=_pair(tables.connector_types["mpo"]["mated_pair_db"]),
        lc_pair_db=_pair(tables.connector_types["lc"]["mated_pair_db"]),
        splice_db=splice if math.isfinite(splice[0]) else (0.0, 0.0),
        rated_with_patch_panels=max(rated_with_patch_panels(a), rated_with_patch_panels(b)),
        why_unknown=why,
    )


def _pair(figure) -> tuple[float, float]:
    if not isinstance(figure, dict):
        return _NAN2
    return (float(figure["typical"]), float(figure["worst"]))


def link_loss_db(
    terms: LinkTerms, fiber_m: float, mpo_pairs: int, lc_pairs: int, splices: int, case: str
) -> float:
    """One link's channel loss, dB: the scalar reference of :func:`compute_budgets`.

    Examples
    --------
    Fluke's worked example (next-wave.md §1.3): 150 m of OM4 at 3.0 dB/km is 0.45 dB.

    >>> t = link_terms(_NS400, _NS400, _OM4_FIBER)
    >>> round(link_loss_db(t, 150.0, 0, 0, 0, "typical"), 3)
    0.45
    """
    i = CASES.index(case)
    return fiber_m / 1000.0 * terms.attenuation_db_per_km[i] + terms.fixed_loss_db(
        mpo_pairs, lc_pairs, splices, case
    )


@dataclass(frozen=True)
class Budgets:
    """The budget of every in-scope link of a fabric.

    Attributes
    ----------
    links : numpy.ndarray of int64
        In-scope link indices (two modules and a fibre), ascending.
    kind : numpy.ndarray of int32
        Per in-scope link, its index into ``terms``.
    terms : list of LinkTerms
        One per distinct part combination.
    loss_typical_db, loss_worst_db, limit_db, margin_db : numpy.ndarray of float32
        Per in-scope link; ``limit_db`` and ``margin_db`` NaN where the limit is unknown, the
        losses NaN where the length is.
    channels : Channels
        The channels the losses were computed from (all links).
    out_of_scope : int
        Links left out: cable assemblies (DAC/ACC/AEC/AOC), manager links, links without parts.
    """

    links: np.ndarray
    kind: np.ndarray
    terms: list[LinkTerms]
    loss_typical_db: np.ndarray
    loss_worst_db: np.ndarray
    limit_db: np.ndarray
    margin_db: np.ndarray
    channels: Channels
    out_of_scope: int

    @property
    def known(self) -> np.ndarray:
        """Links with a known limit and length."""
        return np.isfinite(self.margin_db)

    def failing(self) -> np.ndarray:
        """Positions (into ``links``) whose worst-case loss exceeds the limit."""
        return np.flatnonzero(self.margin_db < 0)

    def low(self, margin_min_db: float = DEFAULT_MARGIN_MIN_DB) -> np.ndarray:
        """Positions whose margin is under ``margin_min_db`` but not negative."""
        return np.flatnonzero((self.margin_db >= 0) & (self.margin_db < margin_min_db))

    def histogram(self, edges=MARGIN_BINS_DB) -> list[dict]:
        """Counts of links by margin: ``[{"low_db", "high_db", "count"}]``, open at both ends
        (``None``); links with an unknown margin are left out."""
        margin = self.margin_db[self.known]
        inner = np.asarray(edges, dtype=np.float64)
        counts = np.bincount(np.searchsorted(inner, margin, side="right"), minlength=inner.size + 1)
        bounds = [None, *inner.tolist(), None]
        return [
            {"low_db": bounds[i], "high_db": bounds[i + 1], "count": int(counts[i])}
            for i in range(inner.size + 1)
        ]

    def worst(self, count: int = 10) -> np.ndarray:
        """Positions of the ``count`` links with the least margin (known margins only)."""
        known = np.flatnonzero(self.known)
        if known.size <= count:
            return known[np.argsort(self.margin_db[known], kind="stable")]
        part = np.argpartition(self.margin_db[known], count)[:count]
        chosen = known[part]
        return chosen[np.argsort(self.margin_db[chosen], kind="stable")]


def in_scope(fabric: Fabric, facts) -> np.ndarray:
    """Links with a module at each end and a fibre part (category ``fiber``) between them."""
    if fabric.link_a_part is None or fabric.link_cable_part is None:
        return np.zeros(0, dtype=np.int64)
    fiber_parts = np.array(
        [(facts.parts.get(slug) or {}).get("category") == "fiber" for slug in fabric.parts]
        + [False],
        dtype=bool,
    )
    module_parts = np.array(
        [(facts.parts.get(slug) or {}).get("category") == "transceiver" for slug in fabric.parts]
        + [False],
        dtype=bool,
    )
    a, b, c = fabric.link_a_part, fabric.link_b_part, fabric.link_cable_part
    # index -1 (none) reads the appended False
    mask = module_parts[a] & module_parts[b] & fiber_parts[c]
    return np.flatnonzero(mask)


def compute_budgets(
    fabric: Fabric, facts, channels: Channels | None = None, tables: Tables | None = None
) -> Budgets:
    """The loss budget of every in-scope link of ``fabric``.

    Parameters
    ----------
    fabric : Fabric
        A fabric with media (``link_*_part``) and layout (lengths).
    facts : CatalogFacts
        The catalog the fabric was built from (``facts.parts`` by slug).
    channels : Channels, optional
        Default :func:`~planner.domain.physical.cabling.channels_for` the fabric.
    tables : Tables, optional
        Default :func:`~planner.domain.physical.optics_tables.tables_for` ``facts``.

    Returns
    -------
    Budgets
    """
    channels = channels if channels is not None else channels_for(fabric, facts=facts)
    tables = tables or tables_for(facts)
    links = in_scope(fabric, facts)
    empty = np.zeros(0, dtype=np.float32)
    if not links.size:
        return Budgets(
            links, np.zeros(0, np.int32), [], empty, empty, empty, empty, channels,
            fabric.link_count,
        )  # fmt: skip
    width = np.int64(len(fabric.parts) + 1)
    key = (
        fabric.link_a_part[links].astype(np.int64) * width + fabric.link_b_part[links]
    ) * width + fabric.link_cable_part[links]
    values, kind = np.unique(key, return_inverse=True)
    terms = []
    for value in values.tolist():
        ab, c = divmod(value, int(width))
        a, b = divmod(ab, int(width))
        parts = [facts.parts[fabric.parts[i]] for i in (a, b, c)]
        terms.append(link_terms(*parts, tables))
    columns = np.array(
        [
            (
                t.limit_db if t.known else math.nan,
                *t.attenuation_db_per_km,
                *t.mpo_pair_db,
                *t.lc_pair_db,
                *t.splice_db,
            )
            for t in terms
        ],
        dtype=np.float32,
    )[kind]
    km = channels.fiber_m[links].astype(np.float32) / np.float32(1000.0)
    mpo = channels.mpo_pairs[links].astype(np.float32)
    lc = (channels.mated_pairs[links] - channels.mpo_pairs[links]).astype(np.float32)
    splices = channels.splices[links].astype(np.float32)
    losses = [
        km * columns[:, 1 + i] + mpo * columns[:, 3 + i] + lc * columns[:, 5 + i]
        + splices * columns[:, 7 + i]
        for i in range(2)
    ]  # fmt: skip
    limit = columns[:, 0]
    return Budgets(
        links=links,
        kind=kind.astype(np.int32),
        terms=terms,
        loss_typical_db=losses[0],
        loss_worst_db=losses[1],
        limit_db=limit,
        margin_db=limit - losses[1],
        channels=channels,
        out_of_scope=int(fabric.link_count - links.size),
    )


def budget_report(
    fabric: Fabric,
    budgets: Budgets,
    *,
    margin_min_db: float = DEFAULT_MARGIN_MIN_DB,
    count: int = 10,
) -> dict:
    """What the design page shows of a fabric's budgets (plain JSON values).

    Returns
    -------
    dict
        ``links_budgeted``, ``links_known``, ``out_of_scope``, ``over_limit`` (worst case over
        the limit), ``under_threshold`` (margin under ``margin_min_db``, not negative),
        ``threshold_db``, ``margin_min_db`` (the smallest margin, None when none is known),
        ``cabling`` (``point-to-point`` or ``structured``), ``histogram`` (``[{label, low_db,
        high_db, count}]``) and ``worst`` (the ``count`` links with the least margin: ``ends``
        as :mod:`planner.domain.names` names the link, each end's device, port from 1 and port
        name, tier, parts, PHY, grade, fibre, connections, losses, limit, margin).
    """
    known = budgets.known
    margin = budgets.margin_db
    bins = []
    for row in budgets.histogram():
        low, high = row["low_db"], row["high_db"]
        label = (
            f"< {high:g} dB"
            if low is None
            else f"≥ {low:g} dB"
            if high is None
            else (f"{low:g}–{high:g} dB")
        )
        bins.append({"label": label, **row})
    worst = []
    names = fabric.node_name
    ch = budgets.channels
    for position in budgets.worst(count).tolist():
        link = int(budgets.links[position])
        t = budgets.terms[int(budgets.kind[position])]
        a, a_port = int(fabric.link_a[link]), int(fabric.link_a_port[link])
        b, b_port = int(fabric.link_b[link]), int(fabric.link_b_port[link])
        worst.append(
            {
                "link": link,
                "ends": link_name(fabric, link),
                "a": names[a],
                "a_port": a_port + 1,
                "a_port_name": scheme_of(fabric, a).name(a_port),
                "b": names[b],
                "b_port": b_port + 1,
                "b_port_name": scheme_of(fabric, b).name(b_port),
                "tier": TIER_NAMES[int(fabric.link_tier[link])],
                "parts": f"{t.b} + {t.a} over {t.fiber}",
                "phy": t.phy,
                "grade": t.grade,
                "grade_assumed": t.grade_assumed,
                "fiber_m": round(float(ch.fiber_m[link]), 2),
                "mated_pairs": int(ch.mated_pairs[link]),
                "mpo_pairs": int(ch.mpo_pairs[link]),
                "splices": int(ch.splices[link]),
                "loss_typical_db": round(float(budgets.loss_typical_db[position]), 3),
                "loss_worst_db": round(float(budgets.loss_worst_db[position]), 3),
                "limit_db": round(float(budgets.limit_db[position]), 3),
                "margin_db": round(float(margin[position]), 3),
            }
        )
    return {
        "links_budgeted": int(budgets.links.size),
        "links_known": int(known.sum()),
        "out_of_scope": int(budgets.out_of_scope),
        "over_limit": int(budgets.failing().size),
        "under_threshold": int(budgets.low(margin_min_db).size),
        "threshold_db": float(margin_min_db),
        "margin_min_db": round(float(margin[known].min()), 3) if known.any() else None,
        "cabling": ch.kind,
        "histogram": bins,
        "worst": worst,
    }


# Doctest records (the shape of catalog part dicts).
_NS400 = {
    "slug": "MMA4Z00-NS400",
    "pmd": "SR4",
    "speed_gbps": 400,
    "media": "mmf",
    "fiber_grades": ["OM4"],
}
_OM4_FIBER = {"slug": "om4-mpo", "fiber_type": "mmf", "fiber_grade": "OM4"}

__all__ = [
    "CASES",
    "DEFAULT_MARGIN_MIN_DB",
    "MARGIN_BINS_DB",
    "Budgets",
    "LinkTerms",
    "budget_report",
    "compute_budgets",
    "in_scope",
    "link_loss_db",
    "link_terms",
]
