"""InfiniBand subnet-manager rendering of the day-0 intent: an ``opensm.conf`` fragment.

InfiniBand switches take their forwarding from the subnet manager (flow control is
credit-based: there is no PFC or ECN to set per port), so the design's settings become a few
``opensm.conf`` options of the fabric's subnet manager (UFM keeps the file at
``/opt/ufm/files/conf/opensm/opensm.conf``):

- ``routing_engine <engine>``: opensm's option (``opensm(8)``,
  https://manpages.ubuntu.com/manpages/noble/man8/opensm.8.html); NVIDIA's default is
  ``ar_updn``, the adaptive-routing engine for fat trees, and adaptive routing is on by
  default with it (InfiniBand Cluster Bring-up, "Adaptive Routing",
  https://docs.nvidia.com/networking/display/ibclusterbringupprocedure/adaptive+routing).
  A design without adaptive routing that still names ``ar_updn`` gets ``updn`` (the same
  up/down routing without AR) and a comment saying so.
- ``shield_mode``: SHIELD (fast link fault recovery) is on by default, ``shield_mode 0``
  turns it off (same guide, "SHIELD",
  https://docs.nvidia.com/networking/display/ibclusterbringupprocedure/shield). On, the
  fragment leaves the default and says so.
- SHARP is enabled in UFM / the SHARP aggregation manager, not in ``opensm.conf``: a comment
  says whether the design counts on it.

The fragment ends with the switch list (names, models, linked ports) as comments, so the
fabric it was made for can be recognised.
"""

from __future__ import annotations

from collections.abc import Iterator

from planner.domain.outputs.config.intent import FabricIntent, SwitchIntent
from planner.domain.outputs.config.text import safe_comment, safe_token

#: A routing engine with adaptive routing and the same routing without it.
WITHOUT_AR = {"ar_updn": "updn"}


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
    yield f"routing_engine {engine}\n"
    if ib.shield:
        yield "# SHIELD (fast link fault recovery): on, the opensm default (shield_mode).\n"
    else:
        yield "# SHIELD (fast link fault recovery): off.\n"
        yield "shield_mode 0\n"
    sharp = "counted on: enable it in UFM" if ib.sharp else "not counted on"
    yield f"# SHARP in-network reduction: {sharp}.\n"
    yield "#\n# Switches of this fabric (name, model, role, linked ports):\n"
    for switch in switches:
        ports = len(switch.interfaces)
        yield f"#   {switch.name}  {switch.model}  {switch.role}  {ports} ports\n"


__all__ = ["WITHOUT_AR", "opensm_chunks"]
