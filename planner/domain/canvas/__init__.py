"""What the design canvas draws, and topologies drawn or edited by hand.

Views (:func:`overview_elements`, :func:`detail_elements`) are Cytoscape.js element JSON::

    {"view": "overview" | "detail", "scope": ..., "elements": {"nodes": [...], "edges": [...]},
     "scopes": [...] (overview only), "notes": [...], "counts": {...}}

Every node is ``{"data": {...}, "position": {"x", "y"}, "classes": "..."}`` (compound group
nodes have no position: their children decide it); every edge ``{"data": {...}, "classes"}``.

- **device** (one fabric node): data ``id`` ``node:<name>``, ``label``, ``kind`` "device",
  ``role`` (server, manager, leaf, spine, core), ``model``, ``plane``, ``su``, ``pod``,
  ``rail`` (1-based or null), ``rack`` (name), ``ru``, ``ports``, ``ports_used``, ``parent``
  (compound id or null); classes = the role. A rack-scale server (GB200/GB300-NVL72, one
  node per rack) also has ``name`` (its device name), ``label`` "GB300-NVL72 rack 3 · 18
  trays · 72 GPUs", ``compute_trays``, ``gpus`` and ``trays`` [{``tray``, ``gpus``,
  ``nics``: [{``rail``, ``plane``, ``port``, ``peer``, ``peer_port``}]}] (all 1-based; see
  :func:`.racks.rack_trays`); an aggregate of them is labelled "8 GB300-NVL72 racks · ...".
- **aggregate** (a bucket of nodes of one role): data ``id``
  ``agg:<plane>:<role>:<bucket>`` (plane 1-based, ``all`` for servers, which every plane
  shares; bucket ``su3``, ``pod2``, ``group5``, ``all``, ``rack-<name>``), ``label``,
  ``kind`` "aggregate", ``role``, ``count``, ``models`` {slug: n}, ``plane``, ``su``,
  ``pod``, ``group`` (the bucket's, 1-based, others null), ``scope`` (the scope to drill
  into, e.g. ``su:3``, ``pod:2``, ``core``; null if none), ``parent``; classes
  "aggregate <role>".
- **group** (compound): data ``id`` ``group:su:<N>``, ``group:rack:<rack name>``,
  ``group:rail:<n>``; ``label``, ``kind`` "group", ``parent``; classes "group".
- **link** edge: data ``id`` ``link:<i>``, ``source``/``target`` (the lower/upper end),
  ``kind`` "link", ``tier``, ``a_port``/``b_port`` (1-based), ``speed_gbps``, ``length_m``,
  ``a_part``, ``b_part``, ``cable`` (slugs or null); classes "link <tier>".
- **bundle** edge (every link between two displayed elements, one of them an aggregate): data
  ``id`` ``bundle:<source id>|<target id>``, ``source``, ``target``, ``kind`` "bundle",
  ``tier``, ``links`` (count), ``bandwidth_gbps``, ``label`` ("256 × 400G"); classes
  "bundle <tier>".

A fabric whose spec has a ``networks`` block (storage, converged, in-band, OOB) gets them as
layers of every view (:mod:`.networks`): elements of kinds ``network-device``,
``network-aggregate``, ``network-link`` and ``network-bundle``; every element says its
``network`` (compute elements "compute"), and ``layers`` where more than one layer shows it (a
server that storage reaches); views add ``networks`` (the layers present, compute first) and
``counts["layers"]``.

Every view may be filtered to one plane (``plane``, :func:`parse_plane`): that plane's
switches and links, and every server; views say ``plane`` (1-based or null) and ``planes``.

Positions are preset in tiers (servers at the bottom, then leaves, spines, cores; x spread by
bucket or node order; servers stacked in their rack's column). No view holds more than
:data:`MAX_ELEMENTS` nodes + edges: a view aggregates further until it fits and says so in
``notes``.

Hand-drawn or hand-edited topologies are *edit documents*::

    {"nodes": [{"name", "model", "role", "x"?, "y"?, "plane"?, "su"?, "rail"?, "group"?,
                "rack"?, "ru"?}],
     "links": [{"a", "a_port", "b", "b_port", "speed_gbps"?, "a_part"?, "b_part"?,
                "cable"?, "length_m"?}]}

Roles: server, leaf, spine, core (and manager, a fabric-manager endpoint of a generated
fabric). Ports are 1-based logical ports at the link's speed (default: the highest speed both
models run). ``plane``, ``su``, ``rail``, ``group`` (1-based) keep a generated fabric's
structure through an edit (``group`` = pod of a leaf, core group of a spine or core).
:func:`validate_edit` checks a document with the same rule functions as media selection
(:mod:`planner.domain.media`, :mod:`inventory.library.compat`); :func:`fabric_from_edit`
turns a valid one into a :class:`~planner.domain.fabric.Fabric`; :func:`edit_document` is
the reverse. Element ids in problems: ``node:<name>`` and ``link:<index in the document>``.
An edit may also be sent as a *patch* of its base revision's document, naming only the
nodes and links it removed, set, changed or added (:mod:`.edit_patch`: :func:`apply_patch`
makes the whole document, checked as any other); :func:`view_changes` says what it changed in
the whole-fabric view, so that the canvas redraws only that.

Modules: :mod:`.views` (overview and detail views, aggregated to fit the element budget) on
:mod:`.elements` (building Cytoscape elements) and :mod:`.networks` (the other networks'
layers); :mod:`.edit_documents` (validate, build and
write edit documents) on :mod:`.edit_parse` (nodes and links) and :mod:`.edit_media` (parts
and media); :mod:`.edit_patch` (patches of a document) and :mod:`.view_changes` (what one
changed in a view); :mod:`.media_options` (media choices between two device models);
:mod:`.port_speeds` (the port speeds a model runs); :mod:`.racks` (the trays of rack-scale
systems); :mod:`.common` (limits, errors, ids).
What a hand edit keeps of its base revision is :mod:`planner.domain.edits`.
"""

from planner.domain.canvas.common import MAX_ELEMENTS, CanvasError, EditError, violation_dict
from planner.domain.canvas.edit_documents import edit_document, fabric_from_edit, validate_edit
from planner.domain.canvas.edit_patch import apply_patch, patch_problems
from planner.domain.canvas.media_options import link_options
from planner.domain.canvas.racks import rack_trays
from planner.domain.canvas.view_changes import view_changes
from planner.domain.canvas.views import detail_elements, overview_elements, parse_plane

__all__ = [
    "MAX_ELEMENTS",
    "CanvasError",
    "EditError",
    "apply_patch",
    "detail_elements",
    "edit_document",
    "fabric_from_edit",
    "link_options",
    "overview_elements",
    "parse_plane",
    "patch_problems",
    "rack_trays",
    "validate_edit",
    "view_changes",
    "violation_dict",
]
