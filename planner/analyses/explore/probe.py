"""Media probes: whether the catalog has parts for a candidate's server-leaf and leaf-spine
links at all, settled once per (server, planes, leaf, spine) on a one-SU fabric.

Cages, transceivers, cables and reach cannot be settled by arithmetic on port counts: the
media choice (:func:`planner.domain.media.assign_media`) decides them. A probe builds the
smallest fabric of the pair (:data:`PROBE_SERVERS` servers, or one rack-scale system, in one
SU, two tiers, 1:1; as ``tests/bench_matrix.py`` builds its cells) through
:func:`planner.domain.pipeline.build_fabric`. When its server-leaf or leaf-spine link finds no
part, or the server's NIC cannot run the plane speed, every candidate with the same pair is
pruned with the build's own reason: the probe's links are the shortest of any size (one SU),
so a larger fabric's longer runs cannot find a part the probe's did not. Any other outcome of
the probe prunes nothing (the candidate's own build decides). Pure (no Django).
"""

from __future__ import annotations

from planner.domain.catalog import CatalogFacts, CatalogLookupError
from planner.domain.fabric import FabricError
from planner.domain.pipeline import build_fabric
from planner.domain.spec import SpecError, parse_spec

#: Servers in a probe's one SU: divisible by 2 and 3, as the generator matrix uses.
PROBE_SERVERS = 6
#: A media refusal names its link's tier first (planner.domain.media.assign).
TIER_REFUSALS = {"server-leaf link": "server-leaf", "leaf-spine link": "leaf-spine"}


def probe_document(server, planes: int, leaf: str, spine: str) -> dict:
    """The one-SU spec of a probe."""
    doc = {
        "name": f"probe {server.slug} {leaf} {spine}",
        "topology": "rail-optimized",
        "server": server.slug,
        "planes": planes,
        "tiers": 2,
        "oversubscription": 1,
        "switches": {"leaf": leaf, "spine": spine},
    }
    if server.is_rack_system:
        doc.update(racks=1, servers_per_su=1)
    else:
        doc.update(servers=PROBE_SERVERS, servers_per_su=PROBE_SERVERS)
    return doc


class MediaProbes:
    """Probe results by (server, planes, leaf, spine), each built once."""

    def __init__(self, facts: CatalogFacts, price_of=None):
        self.facts = facts
        self.price_of = price_of
        self.results: dict[tuple, tuple[str, str, str] | None] = {}

    def refusal(self, server, planes: int, leaf: str, spine: str | None, tiers: int):
        """``(field, reason)`` when the pair finds no media for a tier the candidate has
        (or the NIC cannot run the speed), else None."""
        key = (server.slug, planes, leaf, spine or leaf)
        if key not in self.results:
            self.results[key] = self._probe(server, planes, leaf, spine or leaf)
        found = self.results[key]
        if found is None:
            return None
        field_name, reason, tier = found
        if tier == "leaf-spine" and tiers < 2:
            return None
        return field_name, reason

    def _probe(self, server, planes: int, leaf: str, spine: str):
        try:
            build_fabric(
                parse_spec(probe_document(server, planes, leaf, spine)),
                self.facts,
                price_of=self.price_of,
            )
        except FabricError as exc:
            message = str(exc)
            for prefix, tier in TIER_REFUSALS.items():
                if message.startswith(prefix):
                    role = "leaf" if tier == "server-leaf" else "spine"
                    return f"switches.{role}", f"media ({tier}): {_general(message)}", tier
            if exc.field == "planes":
                return "planes", message, "server-leaf"
            return None
        except (CatalogLookupError, SpecError):
            return None
        return None


def _general(message: str) -> str:
    """The refusal without the probe's link names and length (``server-leaf link gpu00001
    port 1 -> leaf-su001-r1 port 1 (8.6 m): no transceiver ...`` -> ``no transceiver ...``)."""
    head, sep, rest = message.partition("): ")
    return rest if sep and head.startswith(tuple(TIER_REFUSALS)) else message
