"""What changed between two fabrics, device by device and link by link, in words.

A link is known by its two ends (device name and port), whichever end is ``a``; a device by
its name. Every change is a record with its structured fields and a sentence with units::

    {"element": "link", "change": "changed", "name": "leaf-su001-r1-1 37/1 → spine-001-001 1/1",
     "fields": {"length_m": {"old": 12.8, "new": 25.0}},
     "text": "link leaf-su001-r1-1 37/1 → spine-001-001 1/1: length 12.8 m → 25 m"}

Devices and ports are named as every page names them (:mod:`planner.domain.names`).
"""

from __future__ import annotations

import math

import numpy as np

from planner.domain.fabric import ROLES, Fabric
from planner.domain.names import end_name

__all__ = ["LINK_FIELDS", "NODE_FIELDS", "diff_fabrics"]

#: Compared per link: key -> (label, unit); parts by their catalog part number.
LINK_FIELDS = {
    "speed_gbps": ("speed", "Gb/s"),
    "length_m": ("length", "m"),
    "cable_length_m": ("cable length ordered", "m"),
    "a_part": ("part at {a}", None),
    "b_part": ("part at {b}", None),
    "cable": ("cable", None),
}
#: Compared per device: key -> label.
NODE_FIELDS = {
    "role": "role",
    "model": "model",
    "plane": "plane",
    "su": "scalable unit",
    "rack": "rack",
    "ru": "RU",
    "position": "position on the canvas",
}


def _number(value: float) -> str:
    """``25`` for 25.0, ``9.8``, ``1,250.5``: thousands separators, no trailing zeros."""
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.2f}".rstrip("0").rstrip(".")


def _value_text(value, unit: str | None) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "none"
    if isinstance(value, tuple):
        return "(" + ", ".join(_number(v) for v in value) + ")"
    if isinstance(value, int | float):
        return f"{_number(value)} {unit}" if unit else _number(value)
    return str(value) or "none"


def _change_text(label: str, unit: str | None, old, new) -> str:
    return f"{label} {_value_text(old, unit)} → {_value_text(new, unit)}"


class _Side:
    """The per-link and per-node values of one fabric that a diff compares."""

    def __init__(self, fabric: Fabric, ids: dict[str, int], positions: dict | None):
        self.fabric = fabric
        self.positions = positions
        self.links = int(fabric.link_count)
        names = fabric.node_name
        self.node_id = np.array([ids[n] for n in names], dtype=np.int64)
        a, b = np.asarray(fabric.link_a, np.int64), np.asarray(fabric.link_b, np.int64)
        self.a, self.b = a, b
        self.a_port = np.asarray(fabric.link_a_port, np.int64)
        self.b_port = np.asarray(fabric.link_b_port, np.int64)
        parts = np.array([*fabric.parts, ""], dtype=object)  # index -1: no part
        self.values = {
            "speed_gbps": np.asarray(fabric.link_speed_gbps, dtype=np.float64),
            "length_m": self._floats(fabric.link_length_m),
            "cable_length_m": self._floats(fabric.link_cable_length_m),
            "a_part": self._parts(parts, fabric.link_a_part),
            "b_part": self._parts(parts, fabric.link_b_part),
            "cable": self._parts(parts, fabric.link_cable_part),
        }

    def _floats(self, column) -> np.ndarray:
        if column is None:
            return np.full(self.links, np.nan)
        return np.asarray(column, dtype=np.float64)

    def _parts(self, parts: np.ndarray, column) -> np.ndarray:
        if column is None:
            return np.full(self.links, "", dtype=object)
        return parts[np.asarray(column, dtype=np.int64)]

    def end_keys(self, port_span: int) -> tuple[np.ndarray, np.ndarray]:
        """Both ends of every link as one number each (device id and port)."""
        return (
            self.node_id[self.a] * port_span + self.a_port,
            self.node_id[self.b] * port_span + self.b_port,
        )

    def end(self, node: int, port: int) -> str:
        return end_name(self.fabric, int(node), int(port))

    def link_name(self, link: int) -> str:
        a, b = self.end(self.a[link], self.a_port[link]), self.end(self.b[link], self.b_port[link])
        return f"{a} → {b}"

    def node(self, node: int) -> dict:
        """A device's compared values (``None`` where the fabric does not say)."""
        f = self.fabric
        rack = ru = position = None
        if f.node_rack is not None and f.racks and 0 <= int(f.node_rack[node]) < len(f.racks):
            rack = str(f.racks[int(f.node_rack[node])].get("name", "")) or None
            ru = int(f.node_ru[node]) if f.node_ru is not None and f.node_ru[node] > 0 else None
        if self.positions is not None:
            position = self.positions.get(node)
        elif f.node_x is not None and f.node_y is not None:
            position = (float(f.node_x[node]), float(f.node_y[node]))
        if position is not None:
            position = tuple(round(float(v), 1) for v in position)
            position = None if any(math.isnan(v) for v in position) else position
        return {
            "role": ROLES[int(f.node_role[node])],
            "model": f.models[int(f.node_model[node])],
            "plane": int(f.node_plane[node]) + 1 if f.node_plane[node] >= 0 else None,
            "su": int(f.node_su[node]) + 1 if f.node_su[node] >= 0 else None,
            "rack": rack,
            "ru": ru,
            "position": position,
        }


def _differs(old: np.ndarray, new: np.ndarray) -> np.ndarray:
    if old.dtype == object:
        return old != new
    both_nan = np.isnan(old) & np.isnan(new)
    return ~both_nan & ~np.isclose(old, new, rtol=0.0, atol=1e-6)


def _plain(value):
    """A NumPy scalar as JSON can store it (``None`` for NaN)."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float):
        return None if math.isnan(value) else round(value, 3)  # float32 columns: 12.7
    return value


def _link_summary(side: _Side, link: int) -> str:
    """What a link is: speed, parts and length."""
    values = {key: _plain(column[link]) for key, column in side.values.items()}
    words = [_value_text(values["speed_gbps"], "Gb/s")]
    modules = " + ".join(p for p in (values["a_part"], values["b_part"]) if p)
    media = f"{modules} over {values['cable']}" if modules and values["cable"] else modules
    media = media or values["cable"]
    if media:
        words.append(media)
    if values["length_m"] is not None:
        words.append(_value_text(values["length_m"], "m"))
    return ", ".join(words)


def diff_fabrics(
    old: Fabric,
    new: Fabric,
    *,
    positions: tuple[dict | None, dict | None] = (None, None),
    limit: int = 200,
) -> dict:
    """Devices and links added, removed and changed from ``old`` to ``new``.

    Parameters
    ----------
    old, new
        The two fabrics (not changed).
    positions
        Each fabric's canvas position per node index (``{node: (x, y)}``, as the canvas
        shows them), or ``None``: the stored positions. A device placed in only one of the
        two is not said to have moved.
    limit
        At most this many change records (devices first, then links removed, added and
        changed); ``counts`` counts them all and ``more`` says how many were left out.

    Returns
    -------
    dict
        ``{"counts": {"devices": {"added", "removed", "changed"}, "links": {...}},
        "changes": [{"element", "change", "name", "fields", "text"}], "more": int}``. A
        changed record's ``fields`` are ``{key: {"old", "new"}}`` (keys of
        :data:`LINK_FIELDS` or :data:`NODE_FIELDS`).

    Examples
    --------
    >>> from planner.domain.fabric import FabricBuilder
    >>> def fabric(length_m):
    ...     b = FabricBuilder()
    ...     leaf, spine = b.add_nodes(["leaf-1", "spine-1"], role="leaf", model="QM9700",
    ...                               ports=64, ports_per_cage=2)
    ...     b.add_links([leaf], [4], [spine], [0], tier="leaf-spine", plane=0, speed_gbps=400)
    ...     f = b.build({})
    ...     f.link_length_m = np.array([length_m])
    ...     return f
    >>> diff_fabrics(fabric(9.8), fabric(25.0))["changes"][0]["text"]
    'link leaf-1 3/1 → spine-1 1/1: length 9.8 m → 25 m'

    Long because: its docstring documents the result with an example, and the links' pass
    shares the index maps and the change limit with the devices' (:func:`_device_changes`).
    """
    names = {name: i for i, name in enumerate(dict.fromkeys([*old.node_name, *new.node_name]))}
    before, after = _Side(old, names, positions[0]), _Side(new, names, positions[1])
    changes: list[dict] = []
    counts = {
        "devices": {"added": 0, "removed": 0, "changed": 0},
        "links": {"added": 0, "removed": 0, "changed": 0},
    }
    total = 0

    def add_device(record: dict) -> None:
        nonlocal total
        counts["devices"][record["change"]] += 1
        total += 1
        if len(changes) < limit:
            changes.append(record)

    for record in _device_changes(old, new, before, after):
        add_device(record)

    # Links, by their two ends.
    span = (
        int(
            max(
                before.a_port.max(initial=0),
                before.b_port.max(initial=0),
                after.a_port.max(initial=0),
                after.b_port.max(initial=0),
            )
        )
        + 1
    )
    keys = []
    for side in (before, after):
        a, b = side.end_keys(span)
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        keys.append((lo * (len(names) * span) + hi, a <= b))
    (old_keys, old_a_low), (new_keys, new_a_low) = keys

    def room(found: np.ndarray, change: str) -> list[int]:
        """Count ``found`` links; the first of them that still fit the list."""
        nonlocal total
        counts["links"][change] += int(found.size)
        total += int(found.size)
        return found[: max(0, limit - len(changes))].tolist()

    for link in room(np.flatnonzero(~np.isin(old_keys, new_keys)), "removed"):
        text = f"link {before.link_name(link)} removed (was {_link_summary(before, link)})"
        changes.append(_record("link", "removed", before.link_name(link), {}, text))
    for link in room(np.flatnonzero(~np.isin(new_keys, old_keys)), "added"):
        text = f"link {after.link_name(link)} added: {_link_summary(after, link)}"
        changes.append(_record("link", "added", after.link_name(link), {}, text))
    _, old_at, new_at = np.intersect1d(old_keys, new_keys, return_indices=True)
    flip = old_a_low[old_at] != new_a_low[new_at]
    differs = {}
    for key in LINK_FIELDS:
        was = before.values[key][old_at]
        if key in ("a_part", "b_part"):  # the same end's part when the ends swapped
            other = before.values["b_part" if key == "a_part" else "a_part"][old_at]
            was = np.where(flip, other, was)
        differs[key] = (was, _differs(was, after.values[key][new_at]))
    changed = np.flatnonzero(np.any([d for _, d in differs.values()], axis=0))
    for i in room(changed, "changed"):
        link = int(new_at[i])
        name = after.link_name(link)
        fields, words = {}, []
        for key, (was, mask) in differs.items():
            if not mask[i]:
                continue
            change = {"old": _plain(was[i]), "new": _plain(after.values[key][link])}
            fields[key] = change
            label, unit = LINK_FIELDS[key]
            label = label.format(
                a=after.end(after.a[link], after.a_port[link]),
                b=after.end(after.b[link], after.b_port[link]),
            )
            words.append(_change_text(label, unit, change["old"], change["new"]))
        text = f"link {name}: " + "; ".join(words)
        changes.append(_record("link", "changed", name, fields, text))
    return {"counts": counts, "changes": changes, "more": total - len(changes)}


def _device_changes(old: Fabric, new: Fabric, before: _Side, after: _Side) -> list[dict]:
    """The devices removed, added and changed from ``old`` to ``new``, by name, in that order
    (a device placed in only one of the two has not moved)."""
    records: list[dict] = []
    old_index = {name: i for i, name in enumerate(old.node_name)}
    new_index = {name: i for i, name in enumerate(new.node_name)}
    for name in old.node_name:
        if name not in new_index:
            was = before.node(old_index[name])
            text = f"{name} removed (was {was['role']} {was['model']})"
            records.append(_record("device", "removed", name, {}, text))
    for name in new.node_name:
        now = after.node(new_index[name])
        if name not in old_index:
            where = f" in rack {now['rack']}" if now["rack"] else ""
            text = f"{name} added: {now['role']} {now['model']}{where}"
            records.append(_record("device", "added", name, {}, text))
            continue
        was = before.node(old_index[name])
        if was["position"] is None or now["position"] is None:
            was["position"] = now["position"]  # placed by the canvas, not moved
        fields = {k: {"old": was[k], "new": now[k]} for k in NODE_FIELDS if was[k] != now[k]}
        if fields:
            words = [
                _change_text(NODE_FIELDS[k], None, v["old"], v["new"]) for k, v in fields.items()
            ]
            text = f"{name}: " + "; ".join(words)
            records.append(_record("device", "changed", name, fields, text))
    return records


def _record(element: str, change: str, name: str, fields: dict, text: str) -> dict:
    return {"element": element, "change": change, "name": name, "fields": fields, "text": text}
