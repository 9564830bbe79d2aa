"""Speeds as people type them: "800G", "800 Gb/s", "1.6T", "400" (plain numbers are Gb/s)."""

from __future__ import annotations

import re

#: What a speed looks like, for forms and the OpenAPI schema (case-insensitive in use).
SPEED_PATTERN = (
    r"^\s*\d{1,6}(\.\d{1,3})?\s*([GgTt]([Bb]([Ii][Tt])?(/[Ss]|[Pp][Ss])?|[Bb][Ee])?)?\s*$"
)
SPEED_HELP = 'A speed in Gb/s, units allowed: "800", "800G", "800 Gb/s", "1.6T", "1.6 Tb/s".'

_SPEED = re.compile(SPEED_PATTERN)


def parse_speed_gbps(text: str) -> int:
    """The speed ``text`` names, in whole Gb/s.

    Parameters
    ----------
    text : str
        A number of Gb/s, or a number with a unit: G, Gb/s, Gbps, GbE, T, Tb/s, Tbps.

    Raises
    ------
    ValueError
        If ``text`` is not a speed, or not a whole number of Gb/s.

    Examples
    --------
    >>> [parse_speed_gbps(t) for t in ["400", "800G", "800 Gb/s", "1.6T", "1.6 Tbps", "100GbE"]]
    [400, 800, 800, 1600, 1600, 100]
    >>> parse_speed_gbps("fast")
    Traceback (most recent call last):
    ...
    ValueError: "fast" is not a speed; type one like 800G, 800 Gb/s, 1.6T or 400.
    """
    match = _SPEED.match(text or "")
    if not match:
        raise ValueError(f'"{text}" is not a speed; type one like 800G, 800 Gb/s, 1.6T or 400.')
    number = match.group(0).strip()
    digits = re.match(r"[\d.]+", number).group(0)
    unit = (match.group(2) or "g")[0].lower()
    # Whole thousandths of a Tb/s are whole Gb/s; count in integers so 1.6T is exactly 1600.
    whole, _, fraction = digits.partition(".")
    scale = 1000 if unit == "t" else 1
    thousandths = int(whole) * 1000 + int((fraction + "000")[:3])
    if (thousandths * scale) % 1000:
        raise ValueError(f'"{text}" is not a whole number of Gb/s.')
    return thousandths * scale // 1000
