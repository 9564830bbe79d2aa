"""NetBox interface types read as our cages: form factor, speed and top, or why a type is refused.

Split from :mod:`inventory.library.netbox` (reading a devicetype-library YAML file into a
catalog part): ``InterfaceTypeChoices`` values (netbox-community/netbox,
``dcim/choices.py``) mapped to our form-factor vocabulary."""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["CAGE_TYPES", "CageType", "map_interface_type"]


@dataclass(frozen=True)
class CageType:
    """What a NetBox interface type says about the cage: form factor, speed, stated top."""

    form_factor: str
    speed_gbps: int
    top: str | None = None  # only when the type states it (``-rhs``)


#: NetBox interface types (``InterfaceTypeChoices`` values) that name a pluggable cage of our
#: form-factor vocabulary. NetBox has no ``800gbase-x-osfp-rhs``: an 800G flat-top OSFP is
#: entered as ``800gbase-x-osfp``.
CAGE_TYPES: dict[str, CageType] = {
    "25gbase-x-sfp28": CageType("SFP28", 25),
    "50gbase-x-sfp56": CageType("SFP56", 50),
    "100gbase-x-qsfp28": CageType("QSFP28", 100),
    "100gbase-x-qsfpdd": CageType("QSFP-DD", 100),
    "200gbase-x-qsfp56": CageType("QSFP56", 200),
    "200gbase-x-qsfpdd": CageType("QSFP-DD", 200),
    "400gbase-x-qsfp112": CageType("QSFP112", 400),
    "400gbase-x-qsfpdd": CageType("QSFP-DD", 400),
    "400gbase-x-osfp": CageType("OSFP", 400),
    "400gbase-x-osfp-rhs": CageType("OSFP", 400, "rhs"),
    "800gbase-x-qsfpdd": CageType("QSFP-DD800", 800),
    "800gbase-x-osfp": CageType("OSFP", 800),
    "1.6tbase-x-osfp1600": CageType("OSFP224", 1600),
    "1.6tbase-x-osfp1600-rhs": CageType("OSFP224", 1600, "rhs"),
}


#: Why some real NetBox types are refused (the generic reason covers the rest).
UNMAPPED_REASONS = {
    "10gbase-x-sfpp": "SFP+ is not in our form-factor vocabulary",
    "1000base-x-sfp": "SFP is not in our form-factor vocabulary",
    "40gbase-x-qsfpp": "QSFP+ is not in our form-factor vocabulary",
    "50gbase-x-sfp28": "NetBox's value says SFP28 but its label says QSFP28 (50GE): ambiguous",
    "100gbase-x-sfp112": "SFP112 is not in our form-factor vocabulary",
    "1.6tbase-x-qsfpdd1600": "QSFP-DD1600 is not in our form-factor vocabulary",
    "virtual": "a logical interface, not a cage",
    "bridge": "a logical interface, not a cage",
    "lag": "a link aggregation group, not a cage",
    "other": "NetBox type 'other' does not say which cage",
}


OSFP_FAMILY = {"OSFP", "OSFP224"}


BASE_T = re.compile(r"^(?P<speed>\d+(?:\.\d+)?)(?P<giga>g?)base-tx?$")


MGMT_NAME = re.compile(r"^(?:mgmt|management|oob)[\d/]*$|^eth\d+$", re.IGNORECASE)


TWIN_PORT = re.compile(r"^(?P<cage>.+?)[./](?P<port>\d+)$")


def map_interface_type(netbox_type: str) -> CageType | None:
    """The cage a NetBox interface type names, or ``None`` if it names none we know.

    Parameters
    ----------
    netbox_type : str
        A NetBox interface type value, e.g. ``800gbase-x-osfp``.

    Returns
    -------
    CageType or None
        Form factor of our vocabulary, speed and the top when the type states it.

    Examples
    --------
    >>> map_interface_type("800gbase-x-qsfpdd")
    CageType(form_factor='QSFP-DD800', speed_gbps=800, top=None)
    >>> map_interface_type("400gbase-x-osfp-rhs").top
    'rhs'
    >>> map_interface_type("10gbase-x-sfpp") is None
    True
    """
    return CAGE_TYPES.get(netbox_type.strip().lower())


def _base_t_speed(netbox_type: str) -> int | float | None:
    """Speed in Gb/s of a BASE-T type (``1000base-t`` -> 1), else ``None``."""
    match = BASE_T.match(netbox_type)
    if not match:
        return None
    speed = float(match["speed"]) / (1 if match["giga"] else 1000)
    return int(speed) if speed.is_integer() else speed
