"""The cluster's other networks on the canvas: storage, converged, in-band and out-of-band
(OOB) layers drawn beside the compute fabric of a view (issue 18).

A fabric whose spec has a ``networks`` block has concrete devices and links for them
(:func:`planner.domain.networks.elements.cluster_elements`, a ``ClusterElements`` stored with
the fabric and read with :func:`~planner.domain.networks.elements.network_elements`). Each view
of :mod:`.views` adds them as layers, in one of three levels, the finest that keeps the view
within :data:`~planner.domain.canvas.common.MAX_ELEMENTS` (the overview, aggregated by
purpose, starts at level 1):

- level 0: every switch, storage array, UFM appliance and management node of a network is
  a node; a link between two nodes drawn one by one is an edge (parallel links of the same
  two devices, such as a leaf's uplinks to one spine, one bundle), links that reach an
  aggregate of the compute view are bundled;
- level 1: one node per network and role ("Storage: 8 leaves"), links bundled;
- level 2: the layers are left out (``notes`` says so).

The OOB network is always drawn aggregated: its switches (one node each at level 0, one node
at level 1) and, per OOB switch, one node for the management ports it serves (BMCs, switch
management ports, PDUs, ...) joined by one bundle that carries their count, rather than one
Cat5e edge per port. Its uplinks into the in-band cores are drawn as links.

Elements (see :mod:`planner.domain.canvas` for the compute ones, which get ``network``
"compute" and, when other layers reach them, ``layers``):

- **network device**: data ``id`` ``net:<name>``, ``label``/``name``, ``kind``
  "network-device", ``network`` (storage, converged, inband, oob, management), ``role``,
  ``model``, ``rack``, ``ru``, ``links`` (every link of the device, of every network),
  ``links_by_network``, ``layers`` (the layers that show it: its own network and the networks
  of its drawn links); classes "network-device <layer>".
- **network aggregate**: data ``id`` ``netagg:<layer>:<role>`` or ``netagg:oob:managed:<OOB
  switch name | all>``, ``label``, ``kind`` "network-aggregate", ``network``, ``role``
  ("managed" for OOB managed ports), ``count``, ``models`` {model: n}, ``managed`` {what:
  ports} and ``racks`` (OOB managed ports), ``layers``; classes "network-aggregate <layer>".
- **network link**: data ``id`` ``netlink:<index in ClusterElements.links>``, ``source``,
  ``target``, ``kind`` "network-link", ``network``, ``group``, ``a_port``/``b_port`` (text:
  "1", "2/1", "bmc"), ``speed_gbps``, ``cable_kind``, ``cable``, ``a_part``/``b_part``
  (transceivers), ``length_m``; classes "network-link <network>".
- **network bundle**: data ``id`` ``netbundle:<network>:<source>|<target>``, ``source``,
  ``target``, ``kind`` "network-bundle", ``network``, ``links``, ``bandwidth_gbps``,
  ``groups`` {group: links}, ``label`` ("254 × 400G"); classes "network-bundle <network>".

Nothing here imports Django.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from planner.domain.canvas.common import MAX_ELEMENTS, rack_name
from planner.domain.canvas.elements import View
from planner.domain.fabric import Fabric

LAYERS = ("compute", "storage", "converged", "inband", "oob")  # the control's order
LAYER_LABELS = {
    "compute": "Compute",
    "storage": "Storage",
    "converged": "Converged",
    "inband": "In-band",
    "oob": "OOB",
}
UPLINK_GROUP = "uplinks"  # the OOB link group drawn as links (the rest are managed ports)
LEVEL_NOTES = [
    "",
    "The other networks are shown as one node per network and role",
    "The other networks are left out (the overview shows them)",
]

# Rows of a network's band, top (nearest the servers) to bottom; other roles go below.
ROLE_ROWS = {"leaf": 0, "storage-leaf": 0, "switch": 0, "spine": 1, "core": 2}
SWITCH_ROLES = frozenset(ROLE_ROWS)  # a network's own switches: drawn even without links
ENDPOINT_ROW = 3
MANAGED_ROW = 0.5  # right under the OOB switches
BAND_TOP_GAP = 260.0  # below the lowest compute node
ROW_DY = 150.0
GAP = {"network-device": 70.0, "network-aggregate": 180.0}

PLURAL = {
    "leaf": "leaves",
    "storage-leaf": "storage leaves",
    "spine": "spines",
    "core": "cores",
    "switch": "switches",
    "storage-array": "storage arrays",
    "management-node": "management nodes",
    "ufm": "UFM appliances",
    "pdu": "PDUs",
    "node": "nodes",
    "nvlink-tray": "NVLink switch trays",
    "nfs-storage": "NFS storage",
    "customer-core": "customer cores",
}


SINGULAR = {
    "ufm": "UFM appliance",
    "pdu": "PDU",
    "nfs-storage": "NFS storage",
    "nvlink-tray": "NVLink switch tray",
}


def _plural(role: str, count: int) -> str:
    if count == 1:
        return SINGULAR.get(role, role.replace("-", " "))
    return PLURAL.get(role, f"{role.replace('-', ' ')}s")


def _speed_text(speed: float) -> str:
    """``400G``, ``1G``, ``1.6T``, ``2.5G``."""
    if speed >= 1000 and speed % 100 == 0:
        return f"{speed / 1000:g}T"
    return f"{speed:g}G"


@dataclass
class LayerElements:
    """The network layers of one view, before placing: nodes, edges and the layers that
    reach each compute element."""

    level: int
    nodes: list[dict] = field(default_factory=list)
    edges: list[dict] = field(default_factory=list)
    compute_layers: dict[str, set[str]] = field(default_factory=dict)

    def size(self) -> int:
        return len(self.nodes) + len(self.edges)


EMPTY = LayerElements(level=0)


class NetworkLayers:
    """The cluster's devices and links indexed once per request, drawn into views.

    Parameters
    ----------
    fabric : Fabric
        The compute fabric (its node names and racks).
    cluster
        A ``ClusterElements`` (``devices``, ``links``); empty when the spec has no networks.
    """

    def __init__(self, fabric: Fabric, cluster):
        self.fabric = fabric
        self.index = {name: i for i, name in enumerate(fabric.node_name)}
        devices = {}
        self._cluster_devices = {device.name: device for device in cluster.devices}
        for device in cluster.devices:
            if device.name not in self.index:  # compute devices stay the fabric's nodes
                devices[device.name] = device
        self.devices = devices
        self.links = tuple(cluster.links)
        self.managed = [self._is_managed(link) for link in self.links]
        total: Counter = Counter()
        by_network: dict[str, Counter] = defaultdict(Counter)
        drawn_networks: dict[str, set[str]] = defaultdict(set)
        for link, managed in zip(self.links, self.managed, strict=True):
            for end in (link.a_device, link.b_device):
                total[end] += 1
                by_network[end][link.network] += 1
                if not managed:
                    drawn_networks[end].add(link.network)
        self.link_totals = total
        self.links_by_network = by_network
        self.drawn_networks = drawn_networks
        # devices drawn as nodes: every device of a layer, and any other with a drawn link
        self.drawn: dict[str, str] = {}  # name -> the layer whose band holds it
        for name, device in devices.items():
            if device.network in LAYERS and device.role in SWITCH_ROLES:
                self.drawn[name] = device.network
            elif drawn_networks.get(name):
                self.drawn[name] = min(drawn_networks[name], key=LAYERS.index)
        present = {d.network for d in devices.values()} | {link.network for link in self.links}
        self.present = tuple(name for name in LAYERS[1:] if name in present)

    def _is_managed(self, link) -> bool:
        """A management port patched to an OOB switch (drawn aggregated): an OOB link, not
        an uplink, with one end an OOB switch and the other not (the UFM back-to-back cable
        joins two appliances directly and is drawn)."""
        if link.network != "oob" or link.group == UPLINK_GROUP:
            return False
        ends = [self._cluster_devices.get(name) for name in (link.a_device, link.b_device)]
        oob = [d is not None and d.network == "oob" and d.role in SWITCH_ROLES for d in ends]
        return oob[0] != oob[1]

    def _oob_end(self, link) -> tuple[str, str]:
        """(the OOB switch, the managed device) of a managed-port link."""
        a = self.devices.get(link.a_device)
        if a is not None and a.network == "oob" and a.role in SWITCH_ROLES:
            return link.a_device, link.b_device
        return link.b_device, link.a_device

    def any(self) -> bool:
        """Whether there is anything to draw."""
        return bool(self.present)

    def summary(self) -> list[dict]:
        """The layers present, compute first: see :func:`layer_summary`."""
        out = layer_summary(self.fabric, None)
        for name in self.present:
            entry = {
                "id": name,
                "label": LAYER_LABELS[name],
                "devices": sum(1 for d in self.devices.values() if d.network == name),
                "links": sum(1 for link in self.links if link.network == name),
            }
            if name == "oob":
                entry["managed_ports"] = sum(
                    1 for link, m in zip(self.links, self.managed, strict=True) if m
                )
            out.append(entry)
        return out

    # --- building a view's layers -----------------------------------------------------------

    def _compute_end(self, view: View, name: str) -> tuple[str, bool] | None:
        """(element id, drawn one by one) of a compute device in ``view``, or None."""
        node = self.index.get(name)
        if node is None:
            return None
        shown = int(view.disp[node])
        if shown < 0:
            return None
        entry = view.entries[shown]
        return view.entry_id(entry), entry["type"] == "node"

    def build(self, view: View, level: int) -> LayerElements:
        """The layers for ``view`` at ``level`` (0: devices one by one, 1: one node per
        network and role; 2: nothing).

        Long because: it builds every layer of the view at the given level in one pass over the
        network elements; each layer is a short loop.
        """
        out = LayerElements(level=level)
        if level >= 2 or not self.any():
            return out
        nodes: dict[str, dict] = {}
        ends: dict[str, tuple[str, bool]] = {}
        for name, layer in self.drawn.items():
            device = self.devices[name]
            if level == 0:
                element_id = f"net:{name}"
                nodes[element_id] = self._device_node(device, layer, element_id)
                ends[name] = (element_id, True)
            else:
                element_id = f"netagg:{layer}:{device.role}"
                node = nodes.get(element_id)
                if node is None:
                    node = nodes[element_id] = self._aggregate_node(layer, device.role, element_id)
                node["data"]["count"] += 1
                node["data"]["models"][device.model] = (
                    node["data"]["models"].get(device.model, 0) + 1
                )
                node["data"]["layers"].update(self.drawn_networks.get(name, ()))
                ends[name] = (element_id, False)
        pairs: dict[tuple, list[tuple]] = defaultdict(list)
        bundles: dict[tuple[str, str, str], dict] = {}
        for index, (link, managed) in enumerate(zip(self.links, self.managed, strict=True)):
            if managed:
                switch, served = self._oob_end(link)
                source = ends.get(switch)
                if source is None:
                    continue
                key = switch if level == 0 else "all"
                managed_id = f"netagg:oob:managed:{key}"
                node = nodes.get(managed_id)
                if node is None:
                    node = nodes[managed_id] = self._managed_node(managed_id, key, level)
                data = node["data"]
                data["count"] += 1
                data["managed"][link.group] = data["managed"].get(link.group, 0) + 1
                rack = self._rack_of(served)
                if rack:
                    data["racks"].add(rack)
                self._bundle(bundles, link, source[0], managed_id)
                continue
            a = ends.get(link.a_device) or self._compute_end(view, link.a_device)
            b = ends.get(link.b_device) or self._compute_end(view, link.b_device)
            if a is None or b is None or a[0] == b[0]:
                continue
            for (element_id, _), end in ((a, link.a_device), (b, link.b_device)):
                if end in self.index:
                    out.compute_layers.setdefault(element_id, set()).add(link.network)
            if a[1] and b[1]:
                key = (link.network, *sorted((a[0], b[0])))
                pairs[key].append((index, link, a[0], b[0]))
            else:
                self._bundle(bundles, link, a[0], b[0])
        out.nodes = list(nodes.values())
        for node in out.nodes:
            data = node["data"]
            data["layers"] = sorted(data["layers"], key=LAYERS.index)
            if "racks" in data:
                data["racks"] = sorted(data["racks"])
                data["label"] = self._managed_label(data)
            elif data["kind"] == "network-aggregate":
                role = (
                    "switch"
                    if data["network"] == "oob" and data["role"] == "leaf"
                    else data["role"]
                )
                data["label"] = (
                    f"{LAYER_LABELS[data['network']]}: {data['count']:,} "
                    f"{_plural(role, data['count'])}"
                )
        singles = []
        for parallel in pairs.values():  # parallel links of two devices: one bundle
            if len(parallel) == 1:
                singles.append(self._link_edge(*parallel[0]))
                continue
            _, _, source, target = parallel[0]
            for _, link, _, _ in parallel:
                self._bundle(bundles, link, source, target)
        out.edges = singles + [self._bundle_edge(b) for b in bundles.values()]
        return out

    def _rack_of(self, name: str) -> str:
        device = self.devices.get(name)
        if device is not None:
            return device.rack or ""
        node = self.index.get(name)
        return (rack_name(self.fabric, node) or "") if node is not None else ""

    def _device_node(self, device, layer: str, element_id: str) -> dict:
        name = device.name
        data = {
            "id": element_id,
            "label": name,
            "name": name,
            "kind": "network-device",
            "network": device.network,
            "layer": layer,
            "role": device.role,
            "model": device.model,
            "rack": device.rack or None,
            "ru": device.ru,
            "links": int(self.link_totals.get(name, 0)),
            "links_by_network": dict(sorted(self.links_by_network.get(name, {}).items())),
            "layers": {layer, *self.drawn_networks.get(name, ())},
        }
        return {"data": data, "classes": f"network-device {layer}", "_row": self._row(device.role)}

    def _aggregate_node(self, layer: str, role: str, element_id: str) -> dict:
        data = {
            "id": element_id,
            "label": "",
            "kind": "network-aggregate",
            "network": layer,
            "layer": layer,
            "role": role,
            "count": 0,
            "models": {},
            "layers": {layer},
        }
        return {"data": data, "classes": f"network-aggregate {layer}", "_row": self._row(role)}

    def _managed_node(self, element_id: str, switch: str, level: int) -> dict:
        data = {
            "id": element_id,
            "label": "",
            "kind": "network-aggregate",
            "network": "oob",
            "layer": "oob",
            "role": "managed",
            "switch": switch if level == 0 else None,
            "count": 0,
            "models": {},
            "managed": {},
            "racks": set(),
            "layers": {"oob"},
        }
        return {"data": data, "classes": "network-aggregate oob managed", "_row": MANAGED_ROW}

    @staticmethod
    def _managed_label(data: dict) -> str:
        racks = data["racks"]
        where = ""
        if len(racks) == 1:
            where = f" · rack {racks[0]}"
        elif racks:
            where = f" · {len(racks):,} racks"
        return f"{data['count']:,} managed ports{where}"

    @staticmethod
    def _row(role: str) -> int:
        return ROLE_ROWS.get(role, ENDPOINT_ROW)

    @staticmethod
    def _link_edge(index: int, link, source: str, target: str) -> dict:
        return {
            "data": {
                "id": f"netlink:{index}",
                "source": source,
                "target": target,
                "kind": "network-link",
                "network": link.network,
                "group": link.group,
                "a_port": link.a_port,
                "b_port": link.b_port,
                "speed_gbps": link.speed_gbps,
                "cable_kind": link.cable_kind,
                "cable": link.cable_part or None,
                "a_part": link.a_transceiver or None,
                "b_part": link.b_transceiver or None,
                "length_m": link.run_length_m,
            },
            "classes": f"network-link {link.network}",
        }

    @staticmethod
    def _bundle(bundles: dict, link, source: str, target: str) -> None:
        key = (link.network, source, target)
        bundle = bundles.get(key)
        if bundle is None:
            bundle = bundles[key] = {
                "network": link.network,
                "source": source,
                "target": target,
                "links": 0,
                "bandwidth": 0.0,
                "speeds": set(),
                "groups": {},
            }
        bundle["links"] += 1
        bundle["bandwidth"] += float(link.speed_gbps or 0)
        bundle["speeds"].add(float(link.speed_gbps or 0))
        bundle["groups"][link.group] = bundle["groups"].get(link.group, 0) + 1

    @staticmethod
    def _bundle_edge(bundle: dict) -> dict:
        count = bundle["links"]
        speeds = bundle["speeds"]
        label = (
            f"{count:,} × {_speed_text(next(iter(speeds)))}"
            if len(speeds) == 1 and next(iter(speeds)) > 0
            else f"{count:,} links"
        )
        network, source, target = bundle["network"], bundle["source"], bundle["target"]
        return {
            "data": {
                "id": f"netbundle:{network}:{source}|{target}",
                "source": source,
                "target": target,
                "kind": "network-bundle",
                "network": network,
                "links": count,
                "bandwidth_gbps": round(bundle["bandwidth"], 3),
                "groups": bundle["groups"],
                "label": label,
            },
            "classes": f"network-bundle {network}",
        }


def layer_summary(fabric: Fabric, layers: NetworkLayers | None) -> list[dict]:
    """The layers a design has, compute first: ``[{id, label, devices, links}]`` (OOB also
    ``managed_ports``), counted over the whole design (not the view).

    Examples
    --------
    >>> from planner.domain.fabric import FabricBuilder
    >>> layer_summary(FabricBuilder().build({}), None)
    [{'id': 'compute', 'label': 'Compute', 'devices': 0, 'links': 0}]
    """
    if layers is not None:
        return layers.summary()
    return [
        {
            "id": "compute",
            "label": LAYER_LABELS["compute"],
            "devices": int(fabric.node_count),
            "links": int(fabric.link_count),
        }
    ]


def fitting_layers(
    layers: NetworkLayers | None, view: View, finest: int = 0
) -> LayerElements | None:
    """The finest level of ``layers`` (from ``finest``: the overview starts at 1) that keeps
    ``view`` within :data:`MAX_ELEMENTS`, or None when not even level 1 fits (the caller
    aggregates the compute view further, or leaves the layers out)."""
    if layers is None or not layers.any():
        return EMPTY
    room = MAX_ELEMENTS - view.size()
    for level in range(finest, 2):
        built = layers.build(view, level)
        if built.size() <= room:
            return built
    return None


def omitted() -> LayerElements:
    """No layers, because they do not fit (level 2)."""
    return LayerElements(level=2)


def level_note(layers: NetworkLayers | None, built: LayerElements, finest: int = 0) -> str | None:
    """What ``notes`` says about the layers' level, or None at the view's finest."""
    if layers is None or not layers.any() or built.level <= finest:
        return None
    return f"{LEVEL_NOTES[built.level]} to stay within {MAX_ELEMENTS:,} elements."


def merge(elements: dict, built: LayerElements) -> dict:
    """``elements`` (a rendered compute view) with the layers added below it: compute
    elements get ``network`` "compute" (and ``layers`` where other networks reach them),
    network nodes are placed in one band per network under the lowest compute node."""
    for node in elements["nodes"]:
        data = node["data"]
        data["network"] = "compute"
        reached = built.compute_layers.get(data["id"])
        if reached:
            data["layers"] = ["compute", *sorted(reached, key=LAYERS.index)]
    by_id = {node["data"]["id"]: node["data"] for node in elements["nodes"]}
    for data in list(by_id.values()):  # a compound shows while anything inside it shows
        reached = data.get("layers")
        parent = by_id.get(data.get("parent"))
        while reached and parent is not None:
            parent["layers"] = sorted(
                {*(parent.get("layers") or ["compute"]), *reached}, key=LAYERS.index
            )
            parent = by_id.get(parent.get("parent"))
    for edge in elements["edges"]:
        edge["data"]["network"] = "compute"
    if built.nodes:
        _place(built.nodes, elements["nodes"])
    nodes = [{k: v for k, v in node.items() if not k.startswith("_")} for node in built.nodes]
    return {"nodes": elements["nodes"] + nodes, "edges": elements["edges"] + built.edges}


def _place(nodes: list[dict], compute_nodes: list[dict]) -> None:
    """Bands under the compute drawing, side by side (storage, converged, in-band, OOB from
    the left), each as wide as its widest row needs or its share of the compute drawing's
    width, whichever is more; rows by role, top to bottom."""
    xs = [n["position"]["x"] for n in compute_nodes if "position" in n]
    ys = [n["position"]["y"] for n in compute_nodes if "position" in n]
    left, right = (min(xs), max(xs)) if xs else (0.0, 0.0)
    top = (max(ys) if ys else 0.0) + BAND_TOP_GAP
    by_band: dict[str, dict[int, list[dict]]] = defaultdict(lambda: defaultdict(list))
    for node in nodes:
        by_band[node["data"]["layer"]][node["_row"]].append(node)
    bands = [(layer, by_band[layer]) for layer in LAYERS if layer in by_band]
    gaps = {
        layer: max(GAP[m["data"]["kind"]] for members in rows.values() for m in members)
        for layer, rows in bands
    }
    natural = {
        layer: gaps[layer] * max(len(members) for members in rows.values()) for layer, rows in bands
    }
    total = sum(natural.values())
    span = max(right - left, total)
    x0 = (left + right) / 2 - span / 2
    for layer, rows in bands:
        share = span * natural[layer] / total
        placed: dict[str, float] = {}
        y = top
        for row in sorted(rows):
            members = rows[row]
            step = share / len(members)
            for i, member in enumerate(members):
                x = x0 + (i + 0.5) * step
                switch = member["data"].get("switch")
                if switch and f"net:{switch}" in placed:  # managed ports under their switch
                    x = placed[f"net:{switch}"]
                placed[member["data"]["id"]] = x
                member["position"] = {"x": round(x, 1), "y": round(y, 1)}
            y += ROW_DY
        x0 += share


def layer_counts(elements: dict) -> dict[str, dict[str, int]]:
    """Per layer: ``nodes`` shown by that layer alone and ``edges`` of that network, i.e.
    what switching the layer off (the others on) hides."""
    out: dict[str, dict[str, int]] = {}
    for node in elements["nodes"]:
        data = node["data"]
        layers = data.get("layers") or [data.get("network", "compute")]
        if len(layers) == 1:
            out.setdefault(layers[0], {"nodes": 0, "edges": 0})["nodes"] += 1
    for edge in elements["edges"]:
        network = edge["data"].get("network", "compute")
        out.setdefault(network, {"nodes": 0, "edges": 0})["edges"] += 1
    return out
