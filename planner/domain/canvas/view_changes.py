"""What a patch changed in a view: the elements of the saved revision's view that the view of
its base revision did not have as they are, so that a canvas showing the base with the edit
drawn updates only those (:mod:`.edit_patch`).

Link ids are indices in the document (``link:<i>``): a patch that removes links renumbers the
base's later links, as :func:`~planner.domain.canvas.edit_patch.apply_patch` lays them out.
The base's view is compared with its links renamed that way (a removed link left out): only
what the edit changed, and the renumbering, which the patch says, are not sent again.

Examples
--------
>>> node = lambda i, x: {"data": {"id": i, "kind": "device"}, "position": {"x": x, "y": 0}}
>>> edge = lambda i, s, t: {"data": {"id": i, "source": s, "target": t, "kind": "link"}}
>>> before = {"nodes": [node("node:a", 0), node("node:b", 0)],
...           "edges": [edge("link:0", "node:a", "node:b"), edge("link:1", "node:b", "node:a")]}
>>> after = {"nodes": [node("node:a", 5), node("node:b", 0)],
...          "edges": [edge("link:0", "node:b", "node:a")]}
>>> changes = view_changes(before, after, {1: 0})  # link 0 removed, link 1 is now link 0
>>> changes["removed"], [n["data"]["id"] for n in changes["nodes"]], changes["edges"]
([], ['node:a'], [])
"""

from __future__ import annotations

import re

_LINK = re.compile(r"link:(\d+)")


def _renamed(element: dict, new_link_index: dict[int, int]) -> tuple[str | None, dict]:
    """The id ``element`` of the base's view has in the saved revision's frame (None: a link
    the patch removed), and the element with that id."""
    element_id = element["data"]["id"]
    match = _LINK.fullmatch(element_id)
    if match is None:
        return element_id, element
    new = new_link_index.get(int(match.group(1)))
    if new is None:
        return None, element
    if new == int(match.group(1)):
        return element_id, element
    new_id = f"link:{new}"
    return new_id, {**element, "data": {**element["data"], "id": new_id}}


def view_changes(before: dict, after: dict, new_link_index: dict[int, int]) -> dict:
    """The elements of ``after`` (``{"nodes", "edges"}`` of a view of the saved revision) that
    ``before`` (the same view of the base) has not as they are, once the base's links are
    renumbered by ``new_link_index`` (base index -> index in the saved document; a base link
    not in it was removed by the patch).

    Returns ``{"removed": [ids], "nodes": [...], "edges": [...]}``: the ids of the base's
    elements the saved view no longer has (in the saved revision's frame; the links the patch
    removed are not listed again), then the new or changed elements, whole, in view order.
    """
    known: dict[str, dict] = {}
    for group in ("nodes", "edges"):
        for element in before.get(group, []):
            element_id, renamed = _renamed(element, new_link_index)
            if element_id is not None:
                known[element_id] = renamed
    changed: dict[str, list] = {"nodes": [], "edges": []}
    seen: set[str] = set()
    for group in ("nodes", "edges"):
        for element in after.get(group, []):
            element_id = element["data"]["id"]
            seen.add(element_id)
            if known.get(element_id) != element:
                changed[group].append(element)
    removed = [element_id for element_id in known if element_id not in seen]
    return {"removed": removed, **changed}
