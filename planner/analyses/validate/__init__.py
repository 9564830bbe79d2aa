"""Validate a built fabric: link compatibility (catalog-facts rules 1-26) and fabric checks.

:func:`validate_fabric` takes a :class:`~planner.domain.fabric.Fabric` (topology, layout and
media columns) and the :class:`~planner.domain.catalog.CatalogFacts` it was built from, and
returns a :class:`ValidationReport`. Problems are grouped: one :class:`Problem` per code and
distinct message (the message names the parts and devices), listing every affected element
(``link:<i>``, ``node:<name>``; at most :data:`MAX_IDS` ids, ``count`` has the total), so a
300,000-link fabric gives a readable list.

Link rules run once per *link group*: links with the same tier, speed, end models and roles,
ports per cage and parts (as in :mod:`planner.domain.media`). Fit is decided by
:mod:`inventory.library.compat` (the single authority: ``plug_fits_cage``,
``optics_interoperate``, ``fiber_fits_optic``); the checks map its findings to stable codes
and rule numbers (:mod:`planner.analyses.rules_catalog`) and add what needs the whole link
or fabric. Honesty about facts: a check whose facts are unknown is a ``warning`` ("cannot be
verified: <fact> unknown for <part>"), never an error.

The package, one module per rule family; each registers its checks in :mod:`.registry`
(keyed by the codes of the rule catalog), and :mod:`.runner` runs whatever is registered:

================  =====================================================================
``media``         media and lengths present, parts in the catalog
``cages``         plugs in cages (rules 1-5, 13, 14, 19; 17, 21, 22 per plug)
``optics``        module pairs and fibers (6, 9, 10, 23, 24), splitters (7)
``speeds``        breakouts and module speeds (21), host speeds and lanes (22), XDR (15)
``hosts``         protocols (17), NIC limits (18), LPO hosts (25), host FEC (26)
``reach``         reach (11, 12, 16), cables shorter than their run
``loss``          optical loss budget: worst-case channel loss against the PHY's limit
``cabling``       structured cabling: polarity, MPO format and polish end to end
``cables``        cable heads and legs (21), links per cable
``modules``       one part per module, twin-port fibers (8)
``power``         power known (20), power totals
``wiring``        dangling links, roles, ports, rails
``balance``       oversubscription, ECMP balance, single points of failure
``reachability``  servers' ports linked, GPUs connected per plane
``spof``          single points of failure by domain: power feed, switch, rack
``networks``      the cluster's other networks: reach, speeds and cages, leaf pairs, wiring
``storage_read``  storage read rate per node against the spec's ask (cluster networks)
``transport``     RoCE PFC headroom, priorities, ECN, MTU, AR, multiplane; IB routing
================  =====================================================================

Core: :mod:`.report` (problems, collector), :mod:`.context` (link groups, shared columns),
:mod:`.parts` (part readings), :mod:`.suggest` (parts that would fit), :mod:`.registry`.
"""

from planner.analyses.validate import (  # noqa: F401  (each registers its checks)
    balance,
    cables,
    cabling,
    cages,
    hosts,
    loss,
    media,
    modules,
    networks,
    optics,
    power,
    reach,
    reachability,
    speeds,
    spof,
    storage_read,
    transport,
    wiring,
)
from planner.analyses.validate.report import MAX_IDS, Problem, ValidationReport
from planner.analyses.validate.runner import validate_fabric

__all__ = ["MAX_IDS", "Problem", "ValidationReport", "validate_fabric"]
