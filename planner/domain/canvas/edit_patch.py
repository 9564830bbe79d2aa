"""Edit patches: what one canvas edit changed, against the edit document of the revision it
started from (the format of documents is in :mod:`planner.domain.canvas`).

A patch names only what the edit touched::

    {"nodes_removed": ["gpu-007"],                       # names of the base's nodes
     "nodes_set": [{"name", "model", "role", ...}],     # a node of the document: replaces the
                                                        # base's node of that name, or is new
     "links_removed": [12],                             # indices of the base's links
     "links_changed": [{"index": 3, "link": {...}}],    # a base link replaced in its place
     "links_added": [{"a", "a_port", "b", ...}]}        # new links

:func:`apply_patch` writes the document the patch makes of the base document: the base's
nodes in their order (a node set by name in its place, a removed one left out), then the new
nodes; the base's links in their order (a changed one in its place, a removed one left out),
then the added links. That document is checked and built as a whole document is
(:func:`~planner.domain.canvas.validate_edit`), so a patch and the document it makes are one
edit. Problems of the patch itself (a name or index the base does not have, an entry twice)
are found first and name the patch's entry (``field`` ``links_removed[0]``).

Element ids in the problems of the made document are given back in the patch's terms by
:func:`patch_problems`: ``link:<i>`` is link ``i`` of the base (kept or changed),
``link:added-<j>`` entry ``j`` of ``links_added``; fields ``links_changed[k].link.b_part``,
``links_added[j]``, ``nodes_set[j].model`` or ``links[i]`` / ``nodes[i]`` (the base's).

Examples
--------
>>> base = {"nodes": [{"name": "s1", "model": "m", "role": "server"},
...                   {"name": "l1", "model": "n", "role": "leaf"}],
...         "links": [{"a": "s1", "a_port": 1, "b": "l1", "b_port": 1},
...                   {"a": "s1", "a_port": 2, "b": "l1", "b_port": 2}]}
>>> made = apply_patch(base, {"links_removed": [0],
...                           "nodes_set": [{"name": "l1", "model": "n", "role": "leaf", "x": 5}]})
>>> made.problems, [n.get("x") for n in made.document["nodes"]], made.document["links"][0]["a_port"]
([], [None, 5], 2)
>>> made.new_link_index
{1: 0}
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from inventory.library.rules import Violation
from planner.domain.canvas.common import node_id

#: The keys of a patch (each a list, each optional).
PATCH_KEYS = ("nodes_removed", "nodes_set", "links_removed", "links_changed", "links_added")
_LINK_ID = re.compile(r"\blink:(\d+)\b")
_FIELD = re.compile(r"^(links|nodes)\[(\d+)\]")


@dataclass
class PatchedDocument:
    """The document a patch makes of its base, and where each of its entries came from.

    ``link_origin[k]``: ``("base", i)`` (base link ``i``, kept or changed in its place;
    ``changed`` says which entry of ``links_changed`` changed it) or ``("added", j)``;
    ``node_origin[k]``: ``("base", i)`` or ``("set", j)``; ``new_link_index``: the index in
    the made document of every base link kept or changed.
    """

    document: dict | None = None
    problems: list[Violation] = field(default_factory=list)
    link_origin: list[tuple[str, int]] = field(default_factory=list)
    node_origin: list[tuple[str, int]] = field(default_factory=list)
    changed: dict[int, int] = field(default_factory=dict)
    node_set_of: dict[int, int] = field(default_factory=dict)
    new_link_index: dict[int, int] = field(default_factory=dict)

    def add(self, code: str, message: str, where: str, element_ids=()) -> None:
        self.problems.append(
            Violation(code, message, field=where, element_ids=tuple(element_ids), severity="error")
        )


def _is_index(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _lists(patch, out: PatchedDocument) -> dict[str, list]:
    if not isinstance(patch, dict):
        out.add("malformed", "A patch is a mapping of nodes and links changed.", "")
        return {}
    lists = {}
    for key in PATCH_KEYS:
        value = patch.get(key, [])
        if not isinstance(value, list):
            out.add("malformed", f"{key} is a list.", key)
            continue
        lists[key] = value
    return lists


def _removed_nodes(entries: list, names: dict[str, int], out: PatchedDocument) -> set[str]:
    removed: set[str] = set()
    for i, name in enumerate(entries):
        where = f"nodes_removed[{i}]"
        if not isinstance(name, str):
            out.add("malformed", f"{where} is a node's name.", where)
        elif name not in names:
            message = f"{where}: the base has no node {name}."
            out.add("unknown-node", message, where, [node_id(name)])
        elif name in removed:
            out.add("malformed", f"{where}: {name} is removed twice.", where, [node_id(name)])
        else:
            removed.add(name)
    return removed


def _set_nodes(entries: list, removed: set[str], out: PatchedDocument) -> dict[str, int]:
    """The entries of ``nodes_set`` by name (each checked: a mapping, a name, once)."""
    by_name: dict[str, int] = {}
    for j, node in enumerate(entries):
        where = f"nodes_set[{j}]"
        name = node.get("name") if isinstance(node, dict) else None
        if not isinstance(name, str) or not name:
            out.add("malformed", f"{where} is a node with a name.", where)
        elif name in by_name:
            out.add("malformed", f"{where}: {name} is set twice.", where, [node_id(name)])
        elif name in removed:
            message = f"{where}: {name} is also removed; to change a node, only set it."
            out.add("malformed", message, where, [node_id(name)])
        else:
            by_name[name] = j
    return by_name


def _link_indices(lists: dict, count: int, out: PatchedDocument) -> tuple[set[int], dict]:
    """The base links removed, and those changed (index -> entry of ``links_changed``)."""
    removed: set[int] = set()
    changed: dict[int, int] = {}
    for i, index in enumerate(lists.get("links_removed", [])):
        where = f"links_removed[{i}]"
        if not _is_index(index) or not 0 <= index < count:
            out.add("unknown-link", f"{where}: the base has no link {index!r}.", where)
        elif index in removed:
            message = f"{where}: link:{index} is removed twice."
            out.add("malformed", message, where, [f"link:{index}"])
        else:
            removed.add(index)
    for j, entry in enumerate(lists.get("links_changed", [])):
        where = f"links_changed[{j}]"
        index = entry.get("index") if isinstance(entry, dict) else None
        if not isinstance(entry, dict) or not isinstance(entry.get("link"), dict):
            message = f"{where} is {{index, link}}: a base link's index and the link as it is now."
            out.add("malformed", message, where)
        elif not _is_index(index) or not 0 <= index < count:
            out.add("unknown-link", f"{where}: the base has no link {index!r}.", f"{where}.index")
        elif index in removed or index in changed:
            done = "removed" if index in removed else "changed"
            message = f"{where}: link:{index} is {done} already."
            out.add("malformed", message, f"{where}.index", [f"link:{index}"])
        else:
            changed[index] = j
    return removed, changed


def apply_patch(base: dict, patch) -> PatchedDocument:
    """The document ``patch`` makes of the edit document ``base`` (module docstring), or the
    problems of the patch itself (then ``document`` is None)."""
    out = PatchedDocument()
    lists = _lists(patch, out)
    base_nodes, base_links = base["nodes"], base["links"]
    names = {node["name"]: i for i, node in enumerate(base_nodes)}
    removed_nodes = _removed_nodes(lists.get("nodes_removed", []), names, out)
    set_nodes = _set_nodes(lists.get("nodes_set", []), removed_nodes, out)
    removed_links, changed = _link_indices(lists, len(base_links), out)
    if out.problems:
        return out
    entries = lists["nodes_set"]
    nodes = []
    for i, node in enumerate(base_nodes):
        name = node["name"]
        if name in removed_nodes:
            continue
        if name in set_nodes:
            out.node_set_of[len(nodes)] = set_nodes[name]
            node = entries[set_nodes[name]]
        out.node_origin.append(("base", i))
        nodes.append(node)
    for name, j in set_nodes.items():
        if name not in names:
            out.node_set_of[len(nodes)] = j
            out.node_origin.append(("set", j))
            nodes.append(entries[j])
    links = []
    changes = lists["links_changed"]
    for i, link in enumerate(base_links):
        if i in removed_links:
            continue
        out.new_link_index[i] = len(links)
        out.link_origin.append(("base", i))
        links.append(changes[changed[i]]["link"] if i in changed else link)
    for j, link in enumerate(lists["links_added"]):
        out.link_origin.append(("added", j))
        links.append(link)
    out.changed = changed
    out.document = {"nodes": nodes, "links": links}
    return out


def _link_id(patched: PatchedDocument, k: int) -> str:
    kind, i = patched.link_origin[k] if k < len(patched.link_origin) else ("made", k)
    return f"link:{i}" if kind == "base" else f"link:added-{i}"


def _field(patched: PatchedDocument, text: str) -> str:
    match = _FIELD.match(text or "")
    if not match:
        return text
    k, rest = int(match.group(2)), text[match.end() :]
    if match.group(1) == "nodes":
        if k in patched.node_set_of:
            return f"nodes_set[{patched.node_set_of[k]}]{rest}"
        kind, i = patched.node_origin[k] if k < len(patched.node_origin) else ("base", k)
        return f"nodes[{i}]{rest}"
    kind, i = patched.link_origin[k] if k < len(patched.link_origin) else ("made", k)
    if kind == "added":
        return f"links_added[{i}]{rest}"
    if i in patched.changed:
        return f"links_changed[{patched.changed[i]}].link{rest}"
    return f"links[{i}]{rest}"


def patch_problems(problems: list[dict], patched: PatchedDocument) -> list[dict]:
    """The problems of the document a patch made (``{code, message, element_ids, severity,
    field}``), with their link ids and fields in the patch's terms (module docstring)."""

    def ids_in(text: str) -> str:
        return _LINK_ID.sub(lambda m: _link_id(patched, int(m.group(1))), text)

    return [
        {
            **problem,
            "message": ids_in(problem.get("message", "")),
            "element_ids": [ids_in(i) for i in problem.get("element_ids", [])],
            "field": _field(patched, problem.get("field", "")),
        }
        for problem in problems
    ]
