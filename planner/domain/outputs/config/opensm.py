"""InfiniBand subnet-manager rendering of the day-0 intent: an ``opensm.conf`` fragment.

InfiniBand switches take their forwarding from the subnet manager (flow control is
credit-based: there is no PFC or ECN to set per port), so the design's settings become a few
``opensm.conf`` options of the fabric's subnet manager (UFM keeps the file at
``/opt/ufm/files/conf/opensm/opensm.conf``):

- ``routing_engine <engine>[,<fallback>...]``: opensm's option (``opensm(8)``,
  https://manpages.ubuntu.com/manpages/noble/man8/opensm.8.html): a comma-separated list
  "tried if earlier routing engines fail", then min-hop. NVIDIA's default is ``ar_updn``, the
  adaptive-routing engine for fat trees, and adaptive routing is on by default with it
  (InfiniBand Cluster Bring-up, "Adaptive Routing",
  https://docs.nvidia.com/networking/display/ibclusterbringupprocedure/adaptive+routing).
  The NVIDIA-only engines (``ar_updn``, ``ar_ftree``, ``pqft``, ``dfp``) are not in upstream
  OpenSM (3.3.23 answers "cannot find or setup routing engine 'ar_updn'" and would route
  min-hop), so each is followed by the upstream engines that route the same kind of fabric
  (:data:`UPSTREAM_FALLBACK`: ``ar_updn,updn``), and ``ftree``, which refuses a fat tree
  with a missing link, by ``updn``. A design without adaptive routing that still names an
  adaptive engine gets its fallback alone and a comment saying so.
- ``shield_mode``: SHIELD (fast link fault recovery) is on by default, ``shield_mode 0``
  turns it off (same guide, "SHIELD",
  https://docs.nvidia.com/networking/display/ibclusterbringupprocedure/shield). Upstream
  OpenSM has no such option ("Unrecognized token"), so the setting is written commented
  out, for NVIDIA's OpenSM (UFM) only. On, the fragment leaves the default and says so.

Every option written is one of :data:`UPSTREAM_OPTIONS`, the options ``opensm
--create-config`` of Debian's OpenSM 3.3.23 writes (an interop test checks them against the
real file where ``opensm`` is installed).
- SHARP is enabled in UFM / the SHARP aggregation manager, not in ``opensm.conf``: a comment
  says whether the design counts on it.

The fragment ends with the switch list (names, models, linked ports) as comments, so the
fabric it was made for can be recognised.
"""

from __future__ import annotations

from collections.abc import Iterator

from planner.domain.outputs.config.intent import FabricIntent, SwitchIntent
from planner.domain.outputs.config.text import safe_comment, safe_token

#: Routing engines of upstream OpenSM 3.3.23 (``opensm --create-config``: "Supported
#: engines: minhop, updn, dnup, file, ftree, lash, dor, torus-2QoS, nue, dfsssp, sssp").
UPSTREAM_ENGINES = (
    "minhop",
    "updn",
    "dnup",
    "file",
    "ftree",
    "lash",
    "dor",
    "torus-2QoS",
    "nue",
    "dfsssp",
    "sssp",
)
#: NVIDIA-only engines (UFM / MLNX_OFED OpenSM) and the upstream engines that route the same
#: topology without NVIDIA's extensions, tried in order after them.
UPSTREAM_FALLBACK = {
    "ar_updn": ("updn",),
    "ar_ftree": ("ftree", "updn"),
    "pqft": ("ftree", "updn"),
    "dfp": ("updn",),
}
#: A routing engine with adaptive routing and the same routing without it.
WITHOUT_AR = {"ar_updn": "updn", "ar_ftree": "ftree"}
#: The options this fragment sets, each an option of upstream OpenSM 3.3.23.
UPSTREAM_OPTIONS = ("routing_engine",)


def engine_list(engine: str) -> str:
    """The ``routing_engine`` value for ``engine``: NVIDIA's engine first, then upstream
    engines that upstream OpenSM can set up.

    >>> engine_list("ar_updn")
    'ar_updn,updn'
    >>> engine_list("ftree")
    'ftree,updn'
    >>> engine_list("minhop")
    'minhop'
    """
    if engine == "ftree":
        return "ftree,updn"
    return ",".join((engine, *UPSTREAM_FALLBACK.get(engine, ())))


def opensm_chunks(header: FabricIntent, switches: Iterator[SwitchIntent]) -> Iterator[str]:
    """The ``opensm.conf`` fragment (text chunks)."""
    ib = header.settings.infiniband
    yield "# Fabric Planner day-0 configuration: InfiniBand subnet manager (opensm.conf).\n"
    yield f"# Design: {header.design}, revision {header.revision or '-'}.\n"
    yield "# Merge these options into the subnet manager's opensm.conf and restart it.\n"
    for note in header.notes:
        yield f"# Note: {safe_comment(note)}\n"
    engine = safe_token(ib.routing_engine)
    if not ib.adaptive_routing and engine in WITHOUT_AR:
        yield (
            f"# Adaptive routing off: {engine} is the adaptive-routing engine, so the same "
            f"routing without it ({WITHOUT_AR[engine]}) is used.\n"
        )
        engine = WITHOUT_AR[engine]
    elif ib.adaptive_routing and not engine.startswith("ar_"):
        yield f"# Adaptive routing is asked for, but {engine} is not an adaptive-routing engine.\n"
    else:
        yield f"# Adaptive routing {'on' if ib.adaptive_routing else 'off'}.\n"
    engines = engine_list(engine)
    if engines != engine:
        yield (
            "# Engines are tried in order: upstream OpenSM, which lacks NVIDIA's engines "
            "(ar_*, pqft, dfp), routes with the next one it sets up.\n"
        )
    yield f"routing_engine {engines}\n"
    if ib.shield:
        yield "# SHIELD (fast link fault recovery): on, the opensm default (shield_mode).\n"
    else:
        yield "# SHIELD (fast link fault recovery): off. NVIDIA's OpenSM (UFM) only, as upstream\n"
        yield "# OpenSM has no such option: uncomment it there.\n"
        yield "# shield_mode 0\n"
    sharp = "counted on: enable it in UFM" if ib.sharp else "not counted on"
    yield f"# SHARP in-network reduction: {sharp}.\n"
    yield "#\n# Switches of this fabric (name, model, role, linked ports):\n"
    for switch in switches:
        ports = len(switch.interfaces)
        yield f"#   {switch.name}  {switch.model}  {switch.role}  {ports} ports\n"


__all__ = [
    "UPSTREAM_ENGINES",
    "UPSTREAM_FALLBACK",
    "UPSTREAM_OPTIONS",
    "WITHOUT_AR",
    "engine_list",
    "opensm_chunks",
]
