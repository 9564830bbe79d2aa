"""The figures an optical budget needs: fibre attenuation, connector and splice losses, and the
channel insertion-loss limit of each PHY, as the budget reads them.

The catalog is the only authority: a transceiver's own ``phy``, ``channel_il_max_db`` and
``rated_with_patch_panels`` (:class:`~planner.domain.catalog.CatalogFacts` ``parts``), and the
catalog's optics table ``facts.optics`` (:class:`inventory.library.optics.OpticsTable`, the seed's
``optics.yaml``: fibre grades, connector types, splices and the channel limit per PHY, each
figure with its source and grade). This module only reshapes that table for the budget
(:func:`tables_for`); it holds no figures of its own.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from inventory.library.optics import OpticsTable, seed_optics

# A fibre part that states no grade: multimode is taken as OM4 (NVIDIA's multimode optics are
# rated on OM4 and its MPO fibres sold for them), single-mode as OS2 (every seed single-mode
# fibre that states a grade is OS2). Inferred; the budget says "assumed" where it applies.
ASSUMED_GRADE = {"mmf": "OM4", "smf": "OS2"}


@dataclass(frozen=True)
class Limit:
    """One channel insertion-loss limit: dB, where it comes from, and the figure's grade
    (``catalog`` for a transceiver's own figure; else the optics table's grade)."""

    db: float
    source: str
    grade: str


@dataclass(frozen=True)
class Tables:
    """The budget's reference figures, from the catalog's optics table.

    Attributes
    ----------
    fiber_grades : dict
        ``{grade: {"family", "wavelength_nm", "attenuation_db_per_km": {typical, worst}}}``.
    connector_types : dict
        ``{"mpo" | "lc": {"mated_pair_db": {typical, worst}}}`` (one MPO figure for every MPO
        connection: the MPO-12's).
    splices : dict
        ``{"mmf" | "smf": {"splice_db": {typical, worst}}}`` (worst = typical where the table
        gives one planning figure).
    phy_limits : dict
        ``{phy: {grade: Limit}}``.
    """

    fiber_grades: dict
    connector_types: dict
    splices: dict
    phy_limits: dict


_TABLES: dict[int, tuple[OpticsTable, Tables]] = {}


def tables_for(facts=None) -> Tables:
    """The reference figures of ``facts`` (a :class:`~planner.domain.catalog.CatalogFacts`):
    its optics table ``facts.optics``, the seed's when ``facts`` is None. Built once per table.

    >>> tables_for(None).fiber_grades["OM4"]["attenuation_db_per_km"]["worst"]
    3.5
    >>> tables_for(None).phy_limits["400GBASE-SR8"]["OM4"].db
    1.9
    """
    optics = getattr(facts, "optics", None) or seed_optics()
    cached = _TABLES.get(id(optics))
    if cached is None or cached[0] is not optics:
        cached = (optics, _tables(optics))
        _TABLES[id(optics)] = cached
    return cached[1]


def _tables(optics: OpticsTable) -> Tables:
    connectors = optics.connectors
    mpo = connectors.get("mpo12") or connectors.get("mpo16") or {}
    connector_types = {
        family: {"mated_pair_db": dict(row["mated_pair_db"])}
        for family, row in (("mpo", mpo), ("lc", connectors.get("lc") or {}))
        if row.get("mated_pair_db")
    }
    splices = {}
    for family, row in optics.splices.items():
        losses = dict(row.get("loss_db") or {})
        if losses.get("worst") is None:
            losses["worst"] = losses.get("typical")
        splices[family] = {"splice_db": losses}
    phy_limits = {}
    for phy in optics.phys:
        phy_limits[phy] = {
            grade: Limit(db, *optics.figure_source(f"phys.{phy}.channel_il_max_db.{grade}"))
            for grade, db in optics.channel_il_max_db(phy).items()
        }
    return Tables(dict(optics.fiber_grades), connector_types, splices, phy_limits)


def _finite(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def connector_family(connector: str | None) -> str | None:
    """``"mpo"`` or ``"lc"`` for a connector name (``mpo12-apc``, ``lc-duplex``), else None.

    >>> connector_family("mpo12-apc"), connector_family("lc-duplex"), connector_family("rj45")
    ('mpo', 'lc', None)
    """
    name = (connector or "").lower()
    if name.startswith(("mpo", "mtp")):
        return "mpo"
    if name.startswith("lc"):
        return "lc"
    return None


_LANES = re.compile(r"(\d+)$")


def phy_of(part: dict) -> str | None:
    """The IEEE/MSA PHY of one port of a transceiver record: ``part["phy"]`` when the catalog
    states it, else from its ``pmd``, speed and lane rate (inferred naming; a twin-port
    ``2x`` PMD runs that PHY on each port).

    >>> phy_of({"pmd": "2xSR4", "speed_gbps": 800, "lane_rate_gbps": 100})
    '400GBASE-SR4'
    >>> phy_of({"pmd": "2xDR4", "speed_gbps": 1600, "lane_rate_gbps": 200})
    '800GBASE-DR4'
    >>> phy_of({"pmd": "DR8", "speed_gbps": 1600}), phy_of({"pmd": "SR8", "speed_gbps": 400})
    ('1.6TBASE-DR8', '400GBASE-SR8')
    """
    stated = part.get("phy")
    if isinstance(stated, str) and stated:
        return stated.split("x", 1)[1] if re.match(r"^\d+x", stated) else stated
    pmd = part.get("pmd")
    speed = part.get("speed_gbps")
    if not isinstance(pmd, str) or not _finite(speed):
        return None
    twin = 1
    if re.match(r"^\d+x", pmd):
        count, pmd = pmd.split("x", 1)
        twin = int(count)
    lanes = _LANES.search(pmd)
    if not lanes or pmd.startswith(("CWDM", "1000BASE")):
        return None
    port_gbps = speed / twin
    name = f"{port_gbps / 1000:g}T" if port_gbps >= 1000 else f"{port_gbps:g}G"
    return f"{name}BASE-{pmd}"


def channel_limits(part: dict, tables: Tables | None = None) -> dict[str, Limit]:
    """``{fibre grade: Limit}`` of a transceiver: the catalog's ``channel_il_max_db`` of the
    part when stated, else its PHY's row of the optics table; ``{}`` when unknown.

    >>> {g: limit.db for g, limit in channel_limits({"pmd": "DR8", "speed_gbps": 800}).items()}
    {'OS2': 3.0, 'OS1a': 3.0}
    >>> channel_limits({"channel_il_max_db": {"OS2": 2.5}})["OS2"].grade
    'catalog'
    """
    stated = part.get("channel_il_max_db")
    if isinstance(stated, dict):
        limits = {k: float(v) for k, v in stated.items() if _finite(v) and v > 0}
        if limits:
            return {grade: Limit(db, "catalog", "catalog") for grade, db in limits.items()}
    tables = tables or tables_for(None)
    return dict(tables.phy_limits.get(phy_of(part) or "") or {})


def rated_with_patch_panels(part: dict) -> int:
    """Patch panels a part's rated reach already assumes (the catalog's figure, else 0)."""
    value = part.get("rated_with_patch_panels")
    return int(value) if _finite(value) else 0


__all__ = [
    "ASSUMED_GRADE",
    "Limit",
    "Tables",
    "channel_limits",
    "connector_family",
    "phy_of",
    "rated_with_patch_panels",
    "tables_for",
]
