"""Small readings of catalog part records that several rule families share.

Examples
--------
>>> port_speed_gbps({"speed_gbps": 800, "ports_per_module": 2})
400
>>> or_list(["a", "b", "c"])
'a, b or c'
"""

from __future__ import annotations

SHORT_TOP = {"ihs": "finned", "rhs": "flat-top"}


def num(value) -> float | None:
    """``value`` as a float if it is a number (not a bool), else None."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return None


def port_speed_gbps(part: dict) -> int | None:
    """Speed of one port of a module (its speed over its ports per module)."""
    if part.get("port_speed_gbps"):
        return int(part["port_speed_gbps"])
    if part.get("speed_gbps"):
        return int(part["speed_gbps"]) // int(part.get("ports_per_module") or 1)
    return None


def power_w(part: dict) -> float | None:
    """Maximum power of a module, else its typical power."""
    value = num(part.get("power_max_w"))
    return value if value is not None else num(part.get("power_typical_w"))


def connector_code(first: str, second: str) -> str:
    """Same connector family with another polish is rule 10, another family rule 24.

    Examples
    --------
    >>> connector_code("lc-upc", "lc-apc"), connector_code("lc-upc", "mpo12-apc")
    ('polish-mismatch', 'connector-mismatch')
    """
    fam1, _, pol1 = first.partition("-")
    fam2, _, pol2 = second.partition("-")
    return "polish-mismatch" if fam1 == fam2 and pol1 != pol2 else "connector-mismatch"


def ieee_reach_m(part: dict, grade: str | None) -> float | None:
    """Rule 12: IEEE reach class of a PMD, for optics that state no reach.

    Examples
    --------
    >>> ieee_reach_m({"pmd": "SR8", "speed_gbps": 400}, "OM3")
    70.0
    """
    pmd = (part.get("pmd") or "").upper()
    speed = part.get("speed_gbps")
    if pmd == "VR8":
        return 50.0
    if pmd == "SR8":
        if speed == 400:
            return 70.0 if grade == "OM3" else 100.0
        return 100.0
    if pmd == "DR8":
        return 500.0
    if pmd == "DR8-2":
        return 2000.0
    return None


def lanes_per_connector(part: dict) -> int | None:
    """Lanes of a module per connector (or port), if they divide evenly."""
    lanes = part.get("lanes")
    if not lanes:
        return None
    per = part.get("connector_count") or part.get("ports_per_module") or 1
    return int(lanes) // int(per) if int(lanes) % int(per) == 0 else None


def describe_part(part: dict) -> str:
    """A part's kind in a few words (``finned twin-port OSFP 2xDR4``)."""
    bits = [
        SHORT_TOP.get(part.get("top") or "", ""),
        "twin-port" if (part.get("ports_per_module") or 1) == 2 else "",
        part.get("form_factor") or part.get("end_a_form_factor") or "",
        part.get("pmd") or (part.get("cable_type") or "").upper(),
    ]
    return " ".join(bit for bit in bits if bit)


def or_list(names: list[str]) -> str:
    """``a, b or c``."""
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " or " + names[-1]


__all__ = [
    "connector_code",
    "describe_part",
    "ieee_reach_m",
    "lanes_per_connector",
    "num",
    "or_list",
    "port_speed_gbps",
    "power_w",
]
