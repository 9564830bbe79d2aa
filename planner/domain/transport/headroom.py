"""Switch-side PFC headroom as the switch vendor publishes it (issue 36.5).

NVIDIA publishes the lossless headroom of its Spectrum switches per platform in SONiC: each
platform's ``pg_profile_lookup.ini`` (sonic-net/sonic-buildimage, ``device/mellanox/<platform>/
<SKU>/``) lists, per port speed and cable length, the priority group's ``size``, ``xon`` and
``xoff`` in bytes. The headroom a lossless port reserves is ``xon + xoff`` (equal to ``size``
in the default ``ACS-*`` SKUs, whose headroom is static; in a shared-headroom-pool SKU such as
``Mellanox-SN5610N-C224O8`` ``size`` is ``xon`` alone and ``xoff`` comes from the shared pool,
so ``xon + xoff`` is the port's worst case).

SONiC's traditional buffer model takes one of the listed cable lengths per port (5, 40 or 300 m
on the ``ACS-*`` tables) and looks its profile up by ``<speed>_<length>``; a run is therefore
given the row of the shortest listed length that covers it (inferred: the length an operator
sets for the run). A run longer than the longest row, or a speed with no row, has no vendor
figure (``nan``).

The ConnectX (mlx5) formula (:func:`planner.domain.transport.settings.pfc_xoff_bytes`) is the
NIC's; it is used on NIC ports only. A switch with no table here has no published headroom in
the planner: the check says so instead of putting a NIC formula on a switch.

The SONiC export (:mod:`planner.domain.outputs.config.sonic`) puts these platforms on SONiC's
dynamic buffer model (``buffer_model: dynamic``, ``BUFFER_PG`` profile ``NULL``): the switch then
computes the headroom from the exact cable length, and these tables (the traditional model's
figures) are what the planner checks and writes as ``pfc_xoff_b``. Arista's 7060X6 platforms
run the traditional model with no table here: the default SKU's ``pg_profile_lookup.ini``
(``device/arista/x86_64-arista_7060x6_64pe/Arista-7060X6-64PE``, a link to
``device/common/profiles/th5/gen/BALANCED``) lists no lossless row.

Tables (all read at sonic-buildimage commit ``086b03bd70f9``, 2026-08-23):

- ``SN5600`` and ``SN5400``: ``x86_64-nvidia_sn5600-r0/ACS-SN5600`` (the SN5400's ``ACS-SN5400``
  file is a link to it);
- ``SN4600C``: ``x86_64-mlnx_msn4700-r0/ACS-MSN4700`` (``ACS-MSN4600C`` links to it);
- ``SN2201``: ``x86_64-nvidia_sn2201-r0/ACS-SN2201``;
- ``SN5610``: ``x86_64-nvidia_sn5610n-r0/Mellanox-SN5610N-C224O8`` (SONiC names the SN5610's
  platform SN5610N; it has no ``ACS-*`` SKU);
- ``SN5640``: ``x86_64-nvidia_sn5640-r0/Mellanox-SN5640-C512S2`` (no ``ACS-*`` SKU; the
  C448O16 SKU's table is the same);
- ``SN6600-LD``: ``x86_64-nvidia_sn6600_ld-r0/ACS-SN6600_LD``.

Examples
--------
>>> import numpy as np
>>> table = VENDOR_HEADROOM["SN5600"]
>>> table.headroom_bytes(np.array([400, 400, 400]), np.array([3.0, 30.0, 301.0])).tolist()
[250880.0, 303104.0, nan]
>>> int(table.xoff_bytes(np.array([800]), np.array([40.0]))[0])
362496
>>> headroom_table("QFX5240-64OD") is None
True

Nothing here imports Django.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SONIC_COMMIT = "086b03bd70f9e211aaaf5f6aefe0790b508d2a94"
SONIC_TREE = f"https://github.com/sonic-net/sonic-buildimage/blob/{SONIC_COMMIT}/device/mellanox/"


@dataclass(frozen=True)
class HeadroomTable:
    """One platform's ``pg_profile_lookup.ini``: rows of (speed Mb/s, cable m, size, xon, xoff
    bytes), and where it was read (``source``: URL, provenance)."""

    platform: str
    source: str
    rows: tuple[tuple[int, int, int, int, int], ...]

    @property
    def lengths_m(self) -> tuple[int, ...]:
        return tuple(sorted({row[1] for row in self.rows}))

    def _lookup(self, speed_gbps, length_m, column: int) -> np.ndarray:
        speed_mbps = np.rint(np.asarray(speed_gbps, dtype=float) * 1000).astype(np.int64)
        length = np.asarray(length_m, dtype=float)
        out = np.full(speed_mbps.shape, np.nan)
        lengths = np.asarray(self.lengths_m, dtype=float)
        # the shortest listed cable length covering the run (nan past the longest)
        index = np.searchsorted(lengths, np.nan_to_num(length, nan=np.inf), side="left")
        covered = np.isfinite(length) & (index < lengths.size)
        listed = {(row[0], row[1]): row for row in self.rows}
        for i in np.flatnonzero(covered):
            row = listed.get((int(speed_mbps.flat[i]), int(lengths[index.flat[i]])))
            if row is not None:
                out.flat[i] = row[column] if column else row[3] + row[4]
        return out

    def headroom_bytes(self, speed_gbps, length_m) -> np.ndarray:
        """Headroom one lossless priority group reserves (``xon + xoff``), bytes; nan unlisted."""
        return self._lookup(speed_gbps, length_m, 0)

    def xoff_bytes(self, speed_gbps, length_m) -> np.ndarray:
        """The table's ``xoff`` (what a day-0 config sets as the PG's xoff), bytes."""
        return self._lookup(speed_gbps, length_m, 4)


def _table(path: str, rows) -> HeadroomTable:
    url = f"{SONIC_TREE}{path}/pg_profile_lookup.ini"
    return HeadroomTable(path, f"{url} (primary: NVIDIA's SONiC platform file)", tuple(rows))


_SN5600 = _table(
    "x86_64-nvidia_sn5600-r0/ACS-SN5600",
    (
        (10000, 5, 64512, 19456, 45056),
        (25000, 5, 67584, 19456, 48128),
        (40000, 5, 75776, 19456, 57344),
        (50000, 5, 82944, 19456, 63488),
        (100000, 5, 133120, 19456, 113664),
        (200000, 5, 150528, 19456, 131072),
        (400000, 5, 250880, 19456, 231424),
        (800000, 5, 304128, 38912, 257024),
        (10000, 40, 65536, 19456, 46080),
        (25000, 40, 71680, 19456, 52224),
        (40000, 40, 81920, 19456, 62464),
        (50000, 40, 89088, 19456, 69632),
        (100000, 40, 146432, 19456, 126976),
        (200000, 40, 177152, 19456, 157696),
        (400000, 40, 303104, 19456, 283648),
        (800000, 40, 410624, 38912, 362496),
        (10000, 300, 75776, 19456, 56320),
        (25000, 300, 96256, 19456, 76800),
        (40000, 300, 120832, 19456, 101376),
        (50000, 300, 138240, 19456, 118784),
        (100000, 300, 244736, 19456, 225280),
        (200000, 300, 374784, 19456, 355328),
        (400000, 300, 697344, 19456, 677888),
        (800000, 300, 1198080, 38912, 1150976),
    ),
)
_MSN4700 = _table(
    "x86_64-mlnx_msn4700-r0/ACS-MSN4700",
    (
        (10000, 5, 52224, 19456, 32768),
        (25000, 5, 52224, 19456, 32768),
        (40000, 5, 53248, 19456, 33792),
        (50000, 5, 53248, 19456, 33792),
        (100000, 5, 53248, 19456, 33792),
        (200000, 5, 55296, 19456, 35840),
        (400000, 5, 86016, 37888, 38912),
        (10000, 40, 53248, 19456, 33792),
        (25000, 40, 55296, 19456, 35840),
        (40000, 40, 57344, 19456, 37888),
        (50000, 40, 58368, 19456, 38912),
        (100000, 40, 63488, 19456, 44032),
        (200000, 40, 74752, 19456, 55296),
        (400000, 40, 124928, 37888, 77824),
        (10000, 300, 60416, 19456, 40960),
        (25000, 300, 73728, 19456, 54272),
        (40000, 300, 86016, 19456, 66560),
        (50000, 300, 95232, 19456, 75776),
        (100000, 300, 137216, 19456, 117760),
        (200000, 300, 223232, 19456, 203776),
        (400000, 300, 420864, 37888, 373760),
    ),
)
_SN2201 = _table(
    "x86_64-nvidia_sn2201-r0/ACS-SN2201",
    (
        (100, 5, 49152, 19456, 29696),
        (1000, 5, 49152, 19456, 29696),
        (10000, 5, 49152, 19456, 29696),
        (25000, 5, 49152, 19456, 29696),
        (40000, 5, 49152, 19456, 29696),
        (50000, 5, 49152, 19456, 29696),
        (100000, 5, 50176, 19456, 30720),
        (100, 40, 49152, 19456, 29696),
        (1000, 40, 49152, 19456, 29696),
        (10000, 40, 49152, 19456, 29696),
        (25000, 40, 51200, 19456, 31744),
        (40000, 40, 52224, 19456, 32768),
        (50000, 40, 53248, 19456, 33792),
        (100000, 40, 58368, 19456, 38912),
        (100, 300, 56320, 19456, 29696),
        (1000, 300, 56320, 19456, 29696),
        (10000, 300, 56320, 19456, 36864),
        (25000, 300, 67584, 19456, 48128),
        (40000, 300, 78848, 19456, 59392),
        (50000, 300, 86016, 19456, 66560),
        (100000, 300, 123904, 19456, 104448),
    ),
)
_SN5610N = _table(
    "x86_64-nvidia_sn5610n-r0/Mellanox-SN5610N-C224O8",
    (
        (10000, 5, 19456, 19456, 20480),
        (25000, 5, 19456, 19456, 21504),
        (40000, 5, 19456, 19456, 24576),
        (50000, 5, 19456, 19456, 26624),
        (100000, 5, 19456, 19456, 44032),
        (200000, 5, 19456, 19456, 50176),
        (400000, 5, 19456, 19456, 86016),
        (800000, 5, 38912, 38912, 95232),
        (10000, 40, 19456, 19456, 20480),
        (25000, 40, 19456, 19456, 22528),
        (40000, 40, 19456, 19456, 25600),
        (50000, 40, 19456, 19456, 28672),
        (100000, 40, 19456, 19456, 49152),
        (200000, 40, 19456, 19456, 60416),
        (400000, 40, 19456, 19456, 104448),
        (800000, 40, 38912, 38912, 132096),
        (10000, 250, 19456, 19456, 14336),
        (25000, 250, 19456, 19456, 20480),
        (40000, 250, 19456, 19456, 28672),
        (50000, 250, 19456, 19456, 33792),
        (100000, 250, 19456, 19456, 68608),
        (200000, 250, 19456, 19456, 107520),
        (400000, 250, 19456, 19456, 208896),
        (800000, 250, 38912, 38912, 349184),
        (10000, 1000, 19456, 19456, 24576),
        (25000, 1000, 19456, 19456, 46080),
        (40000, 1000, 19456, 19456, 68608),
        (50000, 1000, 19456, 19456, 83968),
        (100000, 1000, 19456, 19456, 168960),
        (200000, 1000, 19456, 19456, 308224),
        (400000, 1000, 19456, 19456, 610304),
        (800000, 1000, 38912, 38912, 1153024),
    ),
)

_SN6600_LD = _table(
    "x86_64-nvidia_sn6600_ld-r0/ACS-SN6600_LD",
    (
        (10000, 5, 63488, 43008, 20480),
        (25000, 5, 64512, 43008, 21504),
        (100000, 5, 87040, 43008, 44032),
        (200000, 5, 91136, 43008, 48128),
        (400000, 5, 124928, 43008, 81920),
        (800000, 5, 190464, 43008, 147456),
        (100000, 40, 91136, 43008, 48128),
        (200000, 40, 101376, 43008, 58368),
        (400000, 40, 144384, 43008, 101376),
        (800000, 40, 229376, 43008, 186368),
        (100000, 300, 128000, 43008, 84992),
        (200000, 300, 173056, 43008, 130048),
        (400000, 300, 287744, 43008, 244736),
        (800000, 300, 516096, 43008, 473088),
    ),
)
_SN5640 = _table(
    "x86_64-nvidia_sn5640-r0/Mellanox-SN5640-C512S2",
    (
        (10000, 5, 19456, 19456, 20480),
        (25000, 5, 19456, 19456, 21504),
        (50000, 5, 19456, 19456, 26624),
        (100000, 5, 19456, 19456, 44032),
        (200000, 5, 19456, 19456, 50176),
        (400000, 5, 19456, 19456, 86016),
        (10000, 30, 19456, 19456, 20480),
        (25000, 30, 19456, 19456, 22528),
        (50000, 30, 19456, 19456, 27648),
        (100000, 30, 19456, 19456, 48128),
        (200000, 30, 19456, 19456, 57344),
        (400000, 30, 19456, 19456, 99328),
        (10000, 40, 19456, 19456, 20480),
        (25000, 40, 19456, 19456, 22528),
        (50000, 40, 19456, 19456, 28672),
        (100000, 40, 19456, 19456, 49152),
        (200000, 40, 19456, 19456, 60416),
        (400000, 40, 19456, 19456, 104448),
        (10000, 250, 19456, 19456, 23552),
        (25000, 250, 19456, 19456, 29696),
        (50000, 250, 19456, 19456, 43008),
        (100000, 250, 19456, 19456, 76800),
        (200000, 250, 19456, 19456, 116736),
        (400000, 250, 19456, 19456, 217088),
        (10000, 300, 19456, 19456, 23552),
        (25000, 300, 19456, 19456, 30720),
        (50000, 300, 19456, 19456, 46080),
        (100000, 300, 19456, 19456, 83968),
        (200000, 300, 19456, 19456, 130048),
        (400000, 300, 19456, 19456, 243712),
        (10000, 1000, 19456, 19456, 33792),
        (25000, 1000, 19456, 19456, 54272),
        (50000, 1000, 19456, 19456, 93184),
        (100000, 1000, 19456, 19456, 177152),
        (200000, 1000, 19456, 19456, 317440),
        (400000, 1000, 19456, 19456, 619520),
    ),
)

#: Catalog switch slug -> the vendor's headroom table.
VENDOR_HEADROOM: dict[str, HeadroomTable] = {
    "SN5600": _SN5600,
    "SN5400": _SN5600,
    "SN4600C": _MSN4700,
    "SN2201": _SN2201,
    "SN5610": _SN5610N,
    "SN5640": _SN5640,
    "SN6600-LD": _SN6600_LD,
}


def headroom_table(slug: str) -> HeadroomTable | None:
    """The vendor headroom table of switch model ``slug``, or None when none is known."""
    return VENDOR_HEADROOM.get(slug)


__all__ = ["VENDOR_HEADROOM", "HeadroomTable", "headroom_table"]
