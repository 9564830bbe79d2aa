"""Issue 37 item 8: a canvas edit saved as what it changed. A patch of a revision's edit
document makes the document the whole-document save would have sent (nodes and links in the
base's order, a set or changed entry in its place), is refused when it names what the base
does not have, and the problems of the document it makes name the patch's entries. What it
changed in the whole-fabric view is that view's elements that differ once the base's links
are renumbered, and nothing else."""

from __future__ import annotations

import pytest

from planner.domain.canvas import (
    apply_patch,
    detail_elements,
    edit_document,
    fabric_from_edit,
    patch_problems,
    validate_edit,
    view_changes,
    violation_dict,
)
from planner.domain.pipeline import build_fabric
from planner.domain.presets import preset_get
from planner.domain.spec import parse_spec

NDR = {"a_part": "980-9I51A-00NS00", "b_part": "MMA4Z00-NS", "cable": "MFP7E10-Nxxx"}


@pytest.fixture(scope="module")
def one_su(facts):
    return build_fabric(parse_spec(preset_get("h100-superpod-1su").spec), facts)


@pytest.fixture(scope="module")
def base(one_su):
    return edit_document(one_su)


def _names(document):
    return [node["name"] for node in document["nodes"]]


def test_a_patch_makes_the_whole_document_in_the_base_order(base):
    moved = {**base["nodes"][3], "x": -40.0}
    new_node = {"name": "leaf-lab", "model": "QM9700", "role": "leaf", "x": 1.0, "y": 2.0}
    changed = {**base["links"][5], "length_m": 7.0}
    added = {"a": base["nodes"][0]["name"], "a_port": 9, "b": "leaf-lab", "b_port": 1, **NDR}
    patch = {
        "nodes_removed": [base["nodes"][1]["name"]],
        "nodes_set": [new_node, moved],
        "links_removed": [7, 2],
        "links_changed": [{"index": 5, "link": changed}],
        "links_added": [added],
    }
    made = apply_patch(base, patch)
    assert made.problems == []
    document = made.document
    # nodes: the base's in order (the set one in its place, the removed one out), then the new
    expected = [n["name"] for i, n in enumerate(base["nodes"]) if i != 1] + ["leaf-lab"]
    assert _names(document) == expected
    assert document["nodes"][2] == moved  # base node 3, one removed before it
    # links: the base's in order without 2 and 7, link 5 changed in its place, then the added
    kept = [i for i in range(len(base["links"])) if i not in (2, 7)]
    assert document["links"][:-1] == [changed if i == 5 else base["links"][i] for i in kept]
    assert document["links"][-1] == added
    assert made.new_link_index[5] == 4 and made.new_link_index[8] == 6
    assert 2 not in made.new_link_index and made.new_link_index[1] == 1


def test_an_empty_patch_is_the_base(base):
    made = apply_patch(base, {})
    assert made.document == base and made.problems == []


@pytest.mark.parametrize(
    ("patch", "code", "field", "ids"),
    [
        ({"nodes_removed": ["nobody"]}, "unknown-node", "nodes_removed[0]", ["node:nobody"]),
        ({"nodes_removed": [3]}, "malformed", "nodes_removed[0]", []),
        ({"links_removed": [10_000]}, "unknown-link", "links_removed[0]", []),
        ({"links_removed": [True]}, "unknown-link", "links_removed[0]", []),
        ({"links_removed": [4, 4]}, "malformed", "links_removed[1]", ["link:4"]),
        ({"links_changed": [{"index": 1}]}, "malformed", "links_changed[0]", []),
        (
            {"links_changed": [{"index": -1, "link": {}}]},
            "unknown-link",
            "links_changed[0].index",
            [],
        ),
        ({"nodes_set": [{"model": "QM9700"}]}, "malformed", "nodes_set[0]", []),
        ({"nodes_removed": "gpu001"}, "malformed", "nodes_removed", []),
    ],
)
def test_a_patch_naming_what_the_base_has_not_is_refused_by_entry(base, patch, code, field, ids):
    made = apply_patch(base, patch)
    assert made.document is None
    (problem,) = made.problems
    assert (problem.code, problem.field, list(problem.element_ids)) == (code, field, ids)
    assert problem.severity == "error" and field.split(".")[0] in problem.message


def test_a_node_removed_and_set_or_a_link_removed_and_changed_is_refused(base):
    name = base["nodes"][0]["name"]
    made = apply_patch(base, {"nodes_removed": [name], "nodes_set": [base["nodes"][0]]})
    assert [p.field for p in made.problems] == ["nodes_set[0]"]
    assert "only set it" in made.problems[0].message
    made = apply_patch(
        base, {"links_removed": [3], "links_changed": [{"index": 3, "link": base["links"][3]}]}
    )
    assert [(p.field, p.element_ids) for p in made.problems] == [
        ("links_changed[0].index", ("link:3",))
    ]


def test_problems_of_the_made_document_name_the_patch_entries(base, facts):
    bad_part = {**base["links"][4], "b_part": "no-such-module"}
    added = {**base["links"][0], "a_port": 1}  # the port base link 0 already takes
    patch = {"links_changed": [{"index": 4, "link": bad_part}], "links_added": [added]}
    made = apply_patch(base, patch)
    problems = patch_problems(
        [violation_dict(v) for v in validate_edit(made.document, facts)], made
    )
    by_code = {p["code"]: p for p in problems}
    unknown = by_code["unknown-part"]
    assert unknown["field"] == "links_changed[0].link.b_part"
    assert "link:4" in unknown["element_ids"]
    in_use = by_code["port-in-use"]
    assert {"link:0", "link:added-0"} <= set(in_use["element_ids"])
    last = len(made.document["links"]) - 1
    assert f"link:{last}" not in " ".join(p["message"] for p in problems)


def test_what_a_link_removed_changes_in_the_view_is_its_ends(one_su, base, facts):
    """The saved view equals the base's view with the links renumbered and the changes
    applied: computed here by building both, as the server does."""
    removed = len(base["links"]) // 2
    made = apply_patch(base, {"links_removed": [removed]})
    after_fabric = fabric_from_edit(made.document, facts)
    before = detail_elements(one_su, "all")["elements"]
    after = detail_elements(after_fabric, "all")["elements"]
    changes = view_changes(before, after, made.new_link_index)
    gone = base["links"][removed]
    assert changes["removed"] == [] and changes["edges"] == []
    assert sorted(n["data"]["id"] for n in changes["nodes"]) == sorted(
        [f"node:{gone['a']}", f"node:{gone['b']}"]  # one port fewer in use at each end
    )
    assert _applied(before, changes, made.new_link_index) == _by_id(after)


def test_a_moved_node_changes_that_node_only(one_su, base, facts):
    moved = {**base["nodes"][10], "x": base["nodes"][10]["x"] + 55.0}
    made = apply_patch(base, {"nodes_set": [moved]})
    after = detail_elements(fabric_from_edit(made.document, facts), "all")["elements"]
    before = detail_elements(one_su, "all")["elements"]
    changes = view_changes(before, after, made.new_link_index)
    assert [n["data"]["id"] for n in changes["nodes"]] == [f"node:{moved['name']}"]
    assert changes["edges"] == [] and changes["removed"] == []


def _by_id(elements):
    return {e["data"]["id"]: e for group in ("nodes", "edges") for e in elements[group]}


def _applied(before, changes, new_link_index):
    """The base's view with ``changes`` applied as the canvas applies them."""
    out = {}
    for element_id, element in _by_id(before).items():
        if element_id.startswith("link:"):
            index = new_link_index.get(int(element_id[5:]))
            if index is None:
                continue
            element_id = f"link:{index}"
            element = {**element, "data": {**element["data"], "id": element_id}}
        out[element_id] = element
    for element_id in changes["removed"]:
        out.pop(element_id, None)
    out.update(_by_id(changes))
    return out
