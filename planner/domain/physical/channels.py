"""What lies between a link's two transceivers: its optical channel.

An IEEE 802.3 optical channel starts and ends at the MDIs (the transceivers' receptacles), so
the two connectors plugged into the modules are not counted: a point-to-point fibre has no
mated pair of its own. Every patch panel, cassette or trunk between the two modules adds
mated pairs (and a splice where a trunk is spliced) (next-wave.md §1.4, "count mated pairs
from the cabling plan", inferred from the TIA FOTC channel definitions).

:class:`Channels` holds one entry per fabric link, as NumPy columns; the loss budget
(:mod:`planner.domain.physical.budget`) reads only these columns, so a structured cabling
plan (patch panels, trunks, cassettes: :mod:`planner.domain.physical.structured`) plugs in by
returning the same dataclass with its own counts;
:func:`planner.domain.physical.cabling.channels_for` picks the one a design asks for.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from planner.domain.fabric import Fabric


@dataclass(frozen=True)
class Segment:
    """One piece of a link's channel, for messages and the cabling plan.

    Attributes
    ----------
    kind : str
        ``"fibre"`` (the whole point-to-point run), ``"patch cord"``, ``"panel"``,
        ``"trunk"``, ``"cassette"``, ...
    label : str
        What the piece is, in words (``"fibre 12.4 m"``, a panel and port, a trunk position).
    length_m : float
        Fibre length of the piece (0 for a panel or cassette).
    mated_pairs : int
        Mated connector pairs the piece adds to the channel.
    """

    kind: str
    label: str
    length_m: float = 0.0
    mated_pairs: int = 0


@dataclass(frozen=True)
class Channels:
    """The optical channel of every link of a fabric (``len == fabric.link_count``).

    Attributes
    ----------
    fiber_m : numpy.ndarray of float32
        Fibre length end to end, metres (NaN: unknown). Point to point: the fibre ordered for
        the link when it is at least the run (its slack is fibre too), else the run.
    mated_pairs : numpy.ndarray of int16
        Mated connector pairs between the two MDIs (0 point to point).
    mpo_pairs : numpy.ndarray of int16
        Of ``mated_pairs``, the MPO (array) connections; the rest are single-fibre (LC).
    splices : numpy.ndarray of int16
        Splices along the channel.
    kind : str
        ``"point-to-point"`` or the cabling that made them (``"structured"``).
    """

    fiber_m: np.ndarray
    mated_pairs: np.ndarray
    mpo_pairs: np.ndarray
    splices: np.ndarray
    kind: str = "point-to-point"

    @property
    def link_count(self) -> int:
        return int(self.fiber_m.size)

    @property
    def lc_pairs(self) -> np.ndarray:
        """Single-fibre (LC) mated pairs: ``mated_pairs - mpo_pairs``."""
        return self.mated_pairs - self.mpo_pairs

    def segments(self, link: int) -> list[Segment]:
        """The pieces of ``link``'s channel. Point to point: one fibre; a structured plan
        overrides this with its patch cords, panels and trunks."""
        length = float(self.fiber_m[link])
        label = "fibre, length unknown" if np.isnan(length) else f"fibre {length:g} m"
        out = [Segment("fibre", label, 0.0 if np.isnan(length) else length)]
        pairs = int(self.mated_pairs[link])
        if pairs:
            mpo = int(self.mpo_pairs[link])
            out.append(Segment("connections", f"{pairs} mated pairs ({mpo} MPO)", 0.0, pairs))
        return out


def point_to_point_channels(fabric: Fabric) -> Channels:
    """Every link cabled point to point: one fibre from module to module, no mated pair.

    Parameters
    ----------
    fabric : Fabric
        A fabric; its layout columns (``link_length_m``, ``link_cable_length_m``) give the
        lengths (NaN where there is no layout).

    Returns
    -------
    Channels
        ``mated_pairs``, ``mpo_pairs`` and ``splices`` all 0.

    Examples
    --------
    >>> from planner.domain.fabric import Fabric
    >>> import numpy as np
    >>> f = Fabric(link_a=np.zeros(2, np.int32), link_length_m=np.array([3.0, 40.0]),
    ...            link_cable_length_m=np.array([5.0, 30.0]))
    >>> point_to_point_channels(f).fiber_m.tolist()
    [5.0, 40.0]
    """
    count = fabric.link_count
    if fabric.link_length_m is None:
        fiber = np.full(count, np.nan, dtype=np.float32)
    else:
        fiber = np.asarray(fabric.link_length_m, dtype=np.float32).copy()
        ordered = fabric.link_cable_length_m
        if ordered is not None:
            ordered = np.asarray(ordered, dtype=np.float32)
            longer = ordered > fiber  # NaN compares False: the run stays
            fiber[longer] = ordered[longer]
    zeros = np.zeros(count, dtype=np.int16)
    return Channels(fiber_m=fiber, mated_pairs=zeros, mpo_pairs=zeros.copy(), splices=zeros.copy())


__all__ = ["Channels", "Segment", "point_to_point_channels"]
