"""The physical layer of a fabric: each link's optical channel and its loss budget.

Pure (no Django). Modules:

- :mod:`.channels`: what lies between a link's two transceivers (:class:`Channels`: fibre
  length, mated connector pairs, of which MPO, splices), point to point
  (:func:`point_to_point_channels`);
- :mod:`.structured`: patch panels, trunks and cassettes of a structured tier, and their
  channels;
- :mod:`.cabling`: the channels a design's cabling asks for (:func:`~.cabling.channels_for`);
- :mod:`.optics_tables`: fibre attenuation, connector and splice losses and the IEEE/MSA
  channel insertion-loss limits per PHY, reshaped for the budget from the catalog's optics
  table (the seed's ``optics.yaml``; no figures of its own);
- :mod:`.budget`: every link's loss, typical and worst case, against its optic's channel
  limit (:func:`compute_budgets`), vectorized with NumPy.
"""

from planner.domain.physical.channels import Channels, Segment, point_to_point_channels

__all__ = ["Channels", "Segment", "point_to_point_channels"]
