"""The figures an optical budget needs: fibre attenuation, connector and splice losses, and the
channel insertion-loss limit of each PHY.

The catalog is the authority (:class:`~planner.domain.catalog.CatalogFacts`: a transceiver's
``phy``, ``channel_il_max_db`` and ``rated_with_patch_panels``; ``facts.optics`` for fibre
grades, connector types and splices). Until it holds a figure, the ONE fallback table of this
module gives it, each with its source (next-wave.md §1.1 and §1.3, read 2026):

- TIA FOTC, IEEE 802.3 application pages (primary):
  https://www.tiafotc.org/ieee-802-3-ethernet-standards-update/ (400GBASE-SR8, -SR4.2,
  800GBASE-DR8, 400GBASE-LR8);
- FOA loss-budget calculator (primary): https://www.thefoa.org/tech/ref/Loss_Budget/Loss_Budget.htm;
- Fluke Networks, "Cable Testing 101: But the Standard Says 0.75 dB!" (2024-11-26), read via a
  copy at https://googmn.com/?p=11501 (secondary);
- https://wavesplitter.jp/index.php/blog/800g-fr8nobo-chang-gou-cheng (secondary, 400GBASE-DR4);
- https://www.china-tscom.com/introduction-of-the-fiber-loss-budget-standard.html (secondary,
  400GBASE-SR on OM4);
- Edgecore ET7502-FR4 datasheet, Tx avg min - Rx avg min (inferred: 4.0 dB for 400GBASE-FR4);
- https://blog.viavisolutions.com/?p=15658 (secondary: 200G-per-lane DR PHYs "expected" at
  3 dB like DR8; 802.3dj was a draft; marked estimate).

Each figure here has ``grade`` ``primary``, ``secondary``, ``inferred`` or ``estimate``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

# Fibre grades at the wavelength their optics use: attenuation per km, typical and worst case.
FIBER_GRADES: dict[str, dict] = {
    "OM3": {
        "family": "mmf",
        "wavelength_nm": 850,
        "attenuation_db_per_km": {"typical": 3.0, "worst": 3.5},
        "source": "FOA loss-budget calculator (typical 3 dB/km); TIA cabled max 3.5 dB/km as "
        "commonly quoted (FOA page); next-wave.md §1.3",
        "grade": "primary",
    },
    "OM4": {
        "family": "mmf",
        "wavelength_nm": 850,
        "attenuation_db_per_km": {"typical": 3.0, "worst": 3.5},
        "source": "FOA (typical 3 dB/km; Fluke's example uses 3.0 dB/km for OM4); TIA 3.5 dB/km",
        "grade": "primary",
    },
    "OM5": {
        "family": "mmf",
        "wavelength_nm": 850,
        "attenuation_db_per_km": {"typical": 3.0, "worst": 3.5},
        "source": "FOA / TIA 850 nm multimode figures (OM5 at 850 nm as OM4: inferred)",
        "grade": "inferred",
    },
    "OS2": {
        "family": "smf",
        "wavelength_nm": 1310,
        "attenuation_db_per_km": {"typical": 0.4, "worst": 0.4},
        "source": "TIA FOTC 800GBASE-DR8 page (OS2 0.4 dB/km in the IEEE model); FOA 0.4 dB/km",
        "grade": "primary",
    },
    "OS1a": {
        "family": "smf",
        "wavelength_nm": 1310,
        "attenuation_db_per_km": {"typical": 0.4, "worst": 1.0},
        "source": "TIA FOTC 800GBASE-DR8 page (OS1a 1.0 dB/km); FOA 0.4 dB/km typical",
        "grade": "primary",
    },
}

# Mated connector pairs, typical and worst case (TIA's 0.75 dB per mated pair for both).
CONNECTOR_TYPES: dict[str, dict] = {
    "mpo": {
        "mated_pair_db": {"typical": 0.5, "worst": 0.75},
        "source": "worst: TIA 0.75 dB per mated pair (Fluke 2024-11-26); typical: 'a loss "
        "margin of 0.5 dB for MTP connections' (pcdreams, secondary); the FOA calculator "
        "defaults MPO arrays to 0.75 dB",
        "grade": "secondary",
    },
    "lc": {
        "mated_pair_db": {"typical": 0.5, "worst": 0.75},
        "source": "worst: TIA 0.75 dB (Fluke 2024-11-26); typical: FOA calculator default "
        "0.5 dB per single-fibre connection (MM and SM)",
        "grade": "primary",
    },
}

# Splices per fibre family. FOA gives one figure each (SM 0.15, MM 0.3 dB); worst case here
# is the larger FOA figure, 0.3 dB, for both (inferred).
SPLICES: dict[str, dict] = {
    "mmf": {"splice_db": {"typical": 0.3, "worst": 0.3}, "source": "FOA", "grade": "primary"},
    "smf": {
        "splice_db": {"typical": 0.15, "worst": 0.3},
        "source": "FOA (typical 0.15 dB); worst 0.3 dB = FOA's MM figure (inferred)",
        "grade": "inferred",
    },
}

# Channel insertion-loss limit (dB, fibre + every connection and splice between the MDIs) per
# PHY and fibre grade. A PHY absent here (or a grade absent under it) is unknown.
CHANNEL_IL_MAX_DB: dict[str, dict] = {
    "400GBASE-SR8": {
        "limits": {"OM3": 1.8, "OM4": 1.9, "OM5": 1.9},
        "source": "TIA FOTC 400GBASE-SR8 (IEEE 802.3cm cl. 138)",
        "grade": "primary",
    },
    "400GBASE-SR4.2": {
        "limits": {"OM3": 1.7, "OM4": 1.8, "OM5": 2.0},
        "source": "TIA FOTC 400GBASE-SR4.2 (IEEE 802.3cm cl. 150)",
        "grade": "primary",
    },
    "400GBASE-SR4": {
        "limits": {"OM4": 1.9},
        "source": "china-tscom loss-budget table: 400GBASE-SR on OM4 (100 m), 1.9 dB of which "
        "1.5 dB connections (secondary; 802.3db's own figure not found, OM3 unknown)",
        "grade": "secondary",
    },
    "400GBASE-DR4": {
        "limits": {"OS2": 3.0, "OS1a": 3.0},
        "source": "800G-MSA comparison table (wavesplitter.jp, secondary); equals Edgecore "
        "ET7502-DR4 Tx avg min - Rx avg min (3.0 dB)",
        "grade": "secondary",
    },
    "800GBASE-DR8": {
        "limits": {"OS2": 3.0, "OS1a": 3.0},
        "source": "TIA FOTC 800GBASE-DR8 (IEEE 802.3df)",
        "grade": "primary",
    },
    "400GBASE-FR4": {
        "limits": {"OS2": 4.0, "OS1a": 4.0},
        "source": "Edgecore ET7502-FR4 datasheet: Tx avg min -3.3 dBm - Rx avg min -7.3 dBm",
        "grade": "inferred",
    },
    "400GBASE-LR8": {
        "limits": {"OS2": 6.3, "OS1a": 6.3},
        "source": "TIA FOTC 400GBASE-LR8 (IEEE 802.3bs cl. 122)",
        "grade": "primary",
    },
    "800GBASE-DR4": {
        "limits": {"OS2": 3.0, "OS1a": 3.0},
        "source": "VIAVI on 802.3dj (draft): 200G-per-lane DR expected at 3 dB like DR8",
        "grade": "estimate",
    },
    "1.6TBASE-DR8": {
        "limits": {"OS2": 3.0, "OS1a": 3.0},
        "source": "VIAVI on 802.3dj (draft): 200G-per-lane DR expected at 3 dB like DR8",
        "grade": "estimate",
    },
}

# NVIDIA optics whose reach "assumes two optical patch panels in the link"
# (https://docs.nvidia.com/networking/display/MMA4Z00NS400T, primary).
RATED_WITH_PATCH_PANELS: dict[str, int] = {"MMA4Z00-NS400": 2, "MMA4Z00-NS400-T": 2}

# A fibre part that states no grade: multimode is taken as OM4 (NVIDIA's multimode optics are
# rated on OM4 and its MPO fibres sold for them), single-mode as OS2 (every seed single-mode
# fibre that states a grade is OS2). Inferred; the budget says "assumed" where it applies.
ASSUMED_GRADE = {"mmf": "OM4", "smf": "OS2"}


@dataclass(frozen=True)
class Tables:
    """The budget's reference figures: the catalog's where it has them, else the fallback."""

    fiber_grades: dict
    connector_types: dict
    splices: dict
    source: str  # "catalog", "fallback" or "catalog+fallback"


def tables_for(facts=None) -> Tables:
    """The reference figures for ``facts`` (a :class:`~planner.domain.catalog.CatalogFacts`):
    the catalog's optics table (``facts.optics``: ``fiber_grades``, ``connectors``,
    ``splices``, as :class:`inventory.library.optics.OpticsTable` or a dict of those keys)
    entry by entry over this module's fallback table. A catalog splice without a worst case
    uses its typical figure (the catalog's convention: one planning figure).

    >>> tables_for(None).fiber_grades["OM4"]["attenuation_db_per_km"]["worst"]
    3.5
    """
    optics = getattr(facts, "optics", None)

    def section(*names):
        for name in names:
            value = optics.get(name) if isinstance(optics, dict) else getattr(optics, name, None)
            if value:
                return value
        return {}

    grades = {**FIBER_GRADES, **_valid(section("fiber_grades"), "attenuation_db_per_km")}
    connectors = dict(CONNECTOR_TYPES)
    # The catalog keys connector types by size (mpo12, mpo16, lc); one MPO figure is used for
    # every MPO connection, the MPO-12's when present.
    for name, row in sorted(
        _valid(section("connectors", "connector_types"), "mated_pair_db").items()
    ):
        family = connector_family(name)
        if family and (
            family not in connectors
            or connectors[family] is CONNECTOR_TYPES[family]
            or name == "mpo12"
        ):
            connectors[family] = row
    splices = dict(SPLICES)
    for family, row in (section("splices") or {}).items():
        losses = dict((row or {}).get("loss_db") or (row or {}).get("splice_db") or {})
        if losses.get("worst") is None:
            losses["worst"] = losses.get("typical")
        if _valid({family: {"splice_db": losses}}, "splice_db"):
            splices[family] = {"splice_db": losses, "source": "catalog"}
    used = bool(section("fiber_grades") or section("connectors", "connector_types"))
    return Tables(grades, connectors, splices, "catalog" if used else "fallback")


def _valid(rows, key: str) -> dict:
    """Rows that carry ``key`` with finite, non-negative typical and worst figures."""
    out = {}
    for name, row in (rows or {}).items():
        figure = (row or {}).get(key) if isinstance(row, dict) else None
        if not isinstance(figure, dict):
            continue
        values = [figure.get("typical"), figure.get("worst")]
        if all(_finite(v) and v >= 0 for v in values):
            out[name] = row
    return out


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


def channel_limits(part: dict) -> tuple[dict, str, str]:
    """``({grade: dB}, source, grade of the figure)`` of a transceiver's channel limit: the
    catalog's ``channel_il_max_db`` when stated, else the fallback row of its PHY; ``{}``
    when unknown.

    >>> channel_limits({"pmd": "DR8", "speed_gbps": 800})[0]
    {'OS2': 3.0, 'OS1a': 3.0}
    """
    stated = part.get("channel_il_max_db")
    if isinstance(stated, dict):
        limits = {k: float(v) for k, v in stated.items() if _finite(v) and v > 0}
        if limits:
            return limits, "catalog", "catalog"
    row = CHANNEL_IL_MAX_DB.get(phy_of(part) or "")
    if row is None:
        return {}, "", ""
    return dict(row["limits"]), row["source"], row["grade"]


def rated_with_patch_panels(part: dict) -> int:
    """Patch panels a part's rated reach already assumes (catalog, else NVIDIA's statement)."""
    value = part.get("rated_with_patch_panels")
    if _finite(value):
        return int(value)
    return RATED_WITH_PATCH_PANELS.get(part.get("slug") or "", 0)


__all__ = [
    "ASSUMED_GRADE",
    "CHANNEL_IL_MAX_DB",
    "CONNECTOR_TYPES",
    "FIBER_GRADES",
    "RATED_WITH_PATCH_PANELS",
    "SPLICES",
    "Tables",
    "channel_limits",
    "connector_family",
    "phy_of",
    "rated_with_patch_panels",
    "tables_for",
]
