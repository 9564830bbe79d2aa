"""The as-built check of the cluster's other networks (storage, converged, in-band, out-of-band,
management): the cables a file reports on their ports against the networks' links.

The compute fabric's check (:mod:`.cabling`) knows its nodes' logical ports; the networks'
links (:class:`~planner.domain.networks.elements.ClusterElements`) join devices by the port
names the cabling plan and the NetBox bundle write (``stor1``, ``mgmt``, ``1/2``, ``48``). A
file row belongs to the networks when one of its ends is a network link's end (a server's
``stor1``) or a device only the networks have (a storage leaf, an OOB switch, the NFS
storage); every other row is the compute fabric's. Each network is checked by its own links
(:meth:`NetworkLinks.check`): a reported cable joining a network link's two ends is in place;
one joining the two devices of a link not in place on other ports is ``swapped-ports``;
anything else ``unexpected``; the links left are ``missing``. Findings have the compute
check's shape (``kind, label, a, b, expected, found, action, rows, links``) plus ``network``;
``links`` is empty (the canvas draws the compute fabric).

Devices are found by name (case-insensitive, a domain dropped) or by the location the
cabling plan's labels write (``MGMT-05.U01``), as the compute check finds its nodes; ports by
their name as written (case-insensitive).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from planner.domain.asbuilt.names import FabricNames
from planner.domain.fabric import Fabric
from planner.domain.names import ARROW, end_text
from planner.domain.outputs.cabling_ends import FabricEnds
from planner.domain.outputs.exports import _NetworkEnds

__all__ = ["NetworkLinks"]

KINDS = ("missing", "unexpected", "swapped-ports")


def _key(device: str, port: str) -> tuple[str, str]:
    return device.lower(), port.strip().lower()


@dataclass
class NetworkLinks:
    """The networks' links of one design, with what resolving a file's names needs."""

    links: list  # NetworkLink
    labels: list[str]
    devices: dict[str, object]  # lower-case name -> NetworkDevice (the networks' own)
    locations: dict[str, str] = field(default_factory=dict)  # lower-case location -> name
    ends: dict[tuple[str, str], int] = field(default_factory=dict)  # (device, port) -> link

    @classmethod
    def of(cls, elements, fabric: Fabric) -> NetworkLinks | None:
        """The networks' links of ``elements`` (None when there are none)."""
        if elements is None or not elements.links:
            return None
        places = _NetworkEnds(fabric, FabricEnds(fabric), elements, None)
        compute = set(fabric.node_name)
        devices = {d.name.lower(): d for d in elements.devices if d.name not in compute}
        locations = {}
        for device in devices.values():
            location = places.location(device.name)
            if location != device.name:
                locations[location.lower()] = device.name
        links = list(elements.links)
        ends = {}
        for index, link in enumerate(links):
            ends[_key(link.a_device, link.a_port)] = index
            ends[_key(link.b_device, link.b_port)] = index
        labels = [places.label(link) for link in links]
        return cls(links, labels, devices, locations, ends)

    # --- names ------------------------------------------------------------------------------

    def device(self, names: FabricNames, text: str) -> str | None:
        """The design's name of a device as a file writes it, or None."""
        raw = (text or "").strip().strip('"')
        lowered = raw.lower()
        if lowered in self.devices:
            return self.devices[lowered].name
        if lowered in self.locations:
            return self.locations[lowered]
        node = names.device(raw)
        if node is not None:
            return names.fabric.node_name[node]
        head = lowered.split(".", 1)[0]
        return self.devices[head].name if head in self.devices else None

    def claims(self, names: FabricNames, row) -> bool:
        """Whether a file row is a cable of the networks (see the module docstring)."""
        for device, port in ((row.a_device, row.a_port), (row.b_device, row.b_port)):
            name = self.device(names, device)
            if name is None:
                continue
            if name.lower() in self.devices or _key(name, port) in self.ends:
                return True
        return False

    # --- the check ----------------------------------------------------------------------------

    def check(self, names: FabricNames, rows: Sequence, *, whole_fabric: bool) -> tuple:
        """``(findings, per-network summary)`` of the network rows of a file.

        Long because: one pass resolves the rows, matches the links, then names what is left
        (swapped, unexpected, missing) in the compute check's finding shape.
        """
        found: dict[frozenset, list[int]] = {}
        foreign: dict[frozenset, tuple] = {}
        reporters: set[str] = set()
        for row in rows:
            a = self.device(names, row.a_device)
            b = self.device(names, row.b_device)
            if getattr(row, "reporter", ""):
                reporters.add((self.device(names, row.reporter) or "").lower())
            ends = [
                (name or device, port.strip())
                for name, device, port in (
                    (a, row.a_device, row.a_port),
                    (b, row.b_device, row.b_port),
                )
            ]
            pair = frozenset(_key(*end) for end in ends)
            found.setdefault(pair, []).append(row.row)
            foreign[pair] = tuple(ends)
        in_scope = [
            i
            for i, link in enumerate(self.links)
            if whole_fabric or {link.a_device.lower(), link.b_device.lower()} & reporters
        ]
        design = {
            frozenset((_key(x.a_device, x.a_port), _key(x.b_device, x.b_port))): i
            for i, x in enumerate(self.links)
        }
        matched = {design[pair] for pair in found if pair in design}
        findings: list[dict] = []
        explained: set[int] = set()
        for pair, file_rows in found.items():
            if pair in design:
                continue
            ends = foreign[pair]
            findings.append(self._leftover(ends, file_rows, matched, explained))
        for i in in_scope:
            if i in matched or i in explained:
                continue
            link = self.links[i]
            a, b = (link.a_device, link.a_port), (link.b_device, link.b_port)
            findings.append(
                self._finding(
                    "missing",
                    i,
                    a,
                    b,
                    expected=self._ends_text(a, b),
                    found="no cable reported",
                    action=f"pull a cable {self.labels[i].replace('/', ' to ')}",
                    rows=(),
                )
            )
        summary = {}
        for network in dict.fromkeys(link.network for link in self.links):
            mine = [i for i in in_scope if self.links[i].network == network]
            kinds = Counter(f["kind"] for f in findings if f["network"] == network)
            summary[network] = {
                "links_in_design": sum(1 for link in self.links if link.network == network),
                "links_checked": len(mine),
                "links_in_place": sum(1 for i in mine if i in matched),
                "counts": {kind: kinds.get(kind, 0) for kind in KINDS},
            }
        return findings, summary

    def _leftover(self, ends, rows, matched: set[int], explained: set[int]) -> dict:
        """A reported cable that is no network link: swapped or unexpected."""
        (a_dev, a_port), (b_dev, b_port) = ends
        on_ports = []
        for here, there in (((a_dev, a_port), (b_dev, b_port)), ((b_dev, b_port), (a_dev, a_port))):
            link = self.ends.get(_key(*here))
            if link is not None and link not in matched and link not in explained:
                on_ports.append((here, there, link))
        for here, there, link in on_ports:
            other = self._other(link, here)
            if other[0].lower() == there[0].lower():
                explained.add(link)
                return self._finding(
                    "swapped-ports",
                    link,
                    here,
                    there,
                    expected=self._ends_text(here, other),
                    found=self._ends_text(here, there),
                    action=f"move the cable at {end_text(*there)} to {end_text(*other)}",
                    rows=rows,
                )
        links = [link for _, _, link in on_ports]
        explained.update(links)
        index = links[0] if links else None
        expected = "; ".join(
            self._ends_text(here, self._other(link, here)) for here, _, link in on_ports
        )
        return self._finding(
            "unexpected",
            index,
            (a_dev, a_port),
            (b_dev, b_port),
            expected=expected or "no link between these ports",
            found=self._ends_text((a_dev, a_port), (b_dev, b_port)),
            action=f"remove the cable {self._ends_text((a_dev, a_port), (b_dev, b_port))}",
            rows=rows,
        )

    def _other(self, link: int, here: tuple[str, str]) -> tuple[str, str]:
        item = self.links[link]
        a, b = (item.a_device, item.a_port), (item.b_device, item.b_port)
        return b if _key(*a) == _key(*here) else a

    @staticmethod
    def _ends_text(a: tuple[str, str], b: tuple[str, str]) -> str:
        return f"{end_text(*a)} {ARROW} {end_text(*b)}"

    def _end(self, device: str, port: str) -> dict:
        own = self.devices.get(device.lower())
        rack = (own.rack or "") if own is not None else ""
        ru = str(own.ru) if own is not None and own.rack and own.ru else ""
        return {
            "device": device,
            "port": port,
            "end": end_text(device, port),
            "role": own.role if own is not None else "",
            "label": "",
            "rack": rack,
            "ru": ru,
        }

    def _finding(self, kind, link, a, b, *, expected, found, action, rows) -> dict:
        network = self.links[link].network if link is not None else self._network_of(a, b)
        return {
            "kind": kind,
            "label": self.labels[link] if link is not None else f"{end_text(*a)}/{end_text(*b)}",
            "a": self._end(*a),
            "b": self._end(*b),
            "expected": expected,
            "found": found,
            "action": action,
            "rows": list(rows),
            "links": [],
            "network": network,
        }

    def _network_of(self, a, b) -> str:
        for device, _port in (a, b):
            own = self.devices.get(device.lower())
            if own is not None:
                return own.network
        return ""
