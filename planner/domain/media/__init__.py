"""Choose the modules, cables and fibers of every link.

:func:`assign_media` fills a fabric's media columns. Links are grouped by tier and by (a-end
model and cage group, b-end model and cage group, speed); each group has few distinct
situations, so candidates are evaluated once per group with the compatibility rules of
:mod:`inventory.library.compat` (parts adapted by :mod:`inventory.library.facts`, link-end
cages by :mod:`planner.domain.part_facts`), then applied to the links' lengths with NumPy.
Media ``auto`` picks, per connected set of links, the cheapest compatible candidate that
reaches, then the lowest power.

Modules (each imports only those listed before it):

- :mod:`.lengths`: ordered lengths, listed or by our rounding policy (:func:`policy_length_m`,
  :func:`order_lengths`), and the orderable part number of each length sold
  (:func:`sold_lengths`, :func:`order_length_m`, :func:`part_number_at`);
- :mod:`.catalog`: the catalog's media parts and prices (:class:`MediaCatalog`);
- :mod:`.groups`: link groups, their ends and cage keys (:class:`LinkGroup`);
- :mod:`.candidates`: optics and cable candidates per group, and why there are none;
- :mod:`.choice`: the auto policy, ranking and choosing per connected set of links;
- :mod:`.assign`: filling the fabric's columns, fabric-manager links, shared cages.
"""

from planner.domain.media.assign import (
    UFM_LEAF_CABLE,
    UFM_SIDE_TRANSCEIVER,
    assign_media,
    dense_ids,
)
from planner.domain.media.candidates import (
    Candidate,
    Rejections,
    cable_candidates,
    end_reason,
    module_options,
    optic_candidates,
)
from planner.domain.media.catalog import MediaCatalog, PriceOf
from planner.domain.media.choice import rank_candidates
from planner.domain.media.groups import LinkGroup
from planner.domain.media.lengths import (
    POLICY_TEXT,
    TOLERANCE_M,
    order_length_m,
    order_lengths,
    order_lengths_of,
    part_number_at,
    policy_length_m,
    sold_lengths,
)

__all__ = [
    "POLICY_TEXT",
    "TOLERANCE_M",
    "UFM_LEAF_CABLE",
    "UFM_SIDE_TRANSCEIVER",
    "Candidate",
    "LinkGroup",
    "MediaCatalog",
    "PriceOf",
    "Rejections",
    "assign_media",
    "cable_candidates",
    "dense_ids",
    "end_reason",
    "module_options",
    "optic_candidates",
    "order_length_m",
    "order_lengths",
    "order_lengths_of",
    "part_number_at",
    "policy_length_m",
    "rank_candidates",
    "sold_lengths",
]
