"""SONiC platform port tables: the lanes, alias and front-panel index of every port, per switch
model, as the vendor publishes them in SONiC (issue 38.4).

SONiC's YANG model refuses a ``PORT`` entry without ``lanes`` (``sonic-port.yang``: "mandatory
for all devices except for chassis devices"). The lanes are the ASIC's SerDes numbers, which
no formula gives (Arista's 7060X6-64PE starts its first cage at lane 17, NVIDIA's SN5600 at 0):
they come from the platform's ``platform.json`` in sonic-buildimage
(``device/<vendor>/<platform>/platform.json``), which lists per front-panel port its base
name, ``index``, ``lanes`` and ``breakout_modes`` (mode -> the aliases of its ports). Cage
*c* of the catalog is the file's *c*-th port in name order (``Ethernet0``, ``Ethernet8``,
...): the front-panel ``index`` is not a cage number on every platform (the SN6810-LD's
co-packaged ports share one index per eight).

The tables are data files next to this module (``sonic_platforms/<catalog slug>.json``), each
with the file's path, the sonic-buildimage commit and git blob it was read from, its URL and
grade (``datasheet``: vendor platform code), and the ``interfaces`` of that file verbatim
(index, lanes, breakout modes). A model without a file has no published table here: its
ports get no ``lanes`` and the export marks the file (:mod:`.sonic`).

Breaking a port out follows SONiC's own rule (``BreakoutCfg.get_config`` in
``src/sonic-config-engine/portconfig.py``): the base port's lanes are split evenly in port
order, port *i* is named ``Ethernet<base + i x lanes per port>``, takes the *i*-th alias of
the breakout mode and the front-panel index of its first lane; ``subport`` is 0 for an
unsplit port, else *i* + 1; ``fec`` is ``rs`` when a lane runs 50G or faster.

Examples
--------
>>> table = platform_ports("SN5600")
>>> port = table.port(cage=3, index=1, per_cage=2, speed_gbps=400)
>>> port.name, port.alias, port.lanes, port.index, port.subport, port.mode
('Ethernet20', 'etp3b', '20,21,22,23', '3', '2', '2x400G[200G,100G,50G,40G,25G,10G]')
>>> platform_ports("DCS-7060X6-64PE").port(1, 0, 1, 800).lanes
'17,18,19,20,21,22,23,24'
>>> platform_ports("QFX5240-64OD") is None
True

Nothing here imports Django.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

TABLES = Path(__file__).with_name("sonic_platforms")
#: ``<n>x<speed>G[<other speeds>]`` (a mode of one kind of port; the mixed ``a+b`` modes
#: are not used by the planner, which splits a cage evenly).
MODE = re.compile(r"^(\d+)x(\d+)G(?:\[([0-9G,]+)\])?$")


@dataclass(frozen=True)
class SonicPort:
    """One logical port as SONiC's platform table makes it (see the module docstring)."""

    name: str
    alias: str
    lanes: str
    index: str
    subport: str
    mode: str
    fec: str | None
    #: the cage's base port (``BREAKOUT_CFG``'s key)
    parent: str


def _speeds(mode: str) -> tuple[int, set[int]] | None:
    """(ports, speeds in Gb/s) of a breakout mode key, None for a mixed or unknown form."""
    match = MODE.match(mode)
    if not match:
        return None
    ports, default, others = match.groups()
    speeds = {int(default)}
    speeds |= {int(s.rstrip("G")) for s in (others or "").split(",") if s}
    return int(ports), speeds


@dataclass(frozen=True)
class PlatformPorts:
    """One platform file's port table and where it was read."""

    model: str
    platform: str
    path: str
    commit: str
    url: str
    grade: str
    interfaces: dict
    #: cage (from 1) -> its port name in ``interfaces``: the platform's ports in name order
    cages: dict

    @property
    def vendor(self) -> str:
        """The sonic-buildimage ``device/`` folder (``mellanox``, ``arista``)."""
        return self.path.split("/")[1]

    @property
    def source(self) -> str:
        return f"{self.url} ({self.grade}: SONiC platform file {self.platform})"

    def base_port(self, cage: int) -> tuple[str, dict] | None:
        """The platform's port of cage ``cage`` (its ``cage``-th port by name), or None."""
        name = self.cages.get(cage)
        return None if name is None else (name, self.interfaces[name])

    def mode(self, cage: int, per_cage: int, speed_gbps: int) -> str | None:
        """The breakout mode key of ``cage`` split ``per_cage`` ways at ``speed_gbps``
        (its default speed preferred, then one it lists), or None when it has none."""
        found = self.base_port(cage)
        if found is None:
            return None
        fits = []
        for key in found[1]["breakout_modes"]:
            parsed = _speeds(key)
            if parsed and parsed[0] == per_cage and speed_gbps in parsed[1]:
                default = MODE.match(key).group(2)
                fits.append((int(default) != speed_gbps, key))
        return min(fits)[1] if fits else None

    def port(self, cage: int, index: int, per_cage: int, speed_gbps: int) -> SonicPort | None:
        """Port ``index`` (from 0) of ``cage`` (from 1) split ``per_cage`` ways, or None when
        the table has no such cage, its lanes do not split evenly or no mode fits."""
        found = self.base_port(cage)
        mode = self.mode(cage, per_cage, speed_gbps)
        if found is None or mode is None:
            return None
        name, entry = found
        lanes, indexes = entry["lanes"].split(","), entry["index"].split(",")
        if len(lanes) % per_cage or not 0 <= index < per_cage:
            return None
        width = len(lanes) // per_cage
        first = index * width
        aliases = entry["breakout_modes"][mode]
        return SonicPort(
            name=f"Ethernet{int(name.removeprefix('Ethernet')) + first}",
            alias=aliases[index],
            lanes=",".join(lanes[first : first + width]),
            index=indexes[first],
            subport="0" if per_cage == 1 else str(index + 1),
            mode=mode,
            fec="rs" if speed_gbps // width >= 50 else None,
            parent=name,
        )


def _load(path: Path) -> PlatformPorts:
    data = json.loads(path.read_text())
    fields = ("model", "platform", "path", "commit", "url", "grade", "interfaces")
    names = sorted(data["interfaces"], key=lambda name: int(name.removeprefix("Ethernet")))
    cages = dict(enumerate(names, start=1))
    return PlatformPorts(**{key: data[key] for key in fields}, cages=cages)


@cache
def platform_tables() -> dict[str, PlatformPorts]:
    """Every table, by catalog slug."""
    tables = (_load(path) for path in sorted(TABLES.glob("*.json")))
    return {table.model: table for table in tables}


def platform_ports(model: str) -> PlatformPorts | None:
    """The port table of catalog model ``model``, or None when none is published here."""
    return platform_tables().get(model)


__all__ = ["PlatformPorts", "SonicPort", "platform_ports", "platform_tables"]
