"""Revision diffs in words (issue 33 item 7): what changed between two fabrics, device by
device and link by link, with units and port names, never an index or a Python repr.

The fabric is a real build of a worked example; each test changes a copy of it the way a
canvas edit does and reads the sentences back."""

from __future__ import annotations

import copy
import re

import numpy as np
import pytest

from planner.domain.fabric_diff import diff_fabrics
from planner.domain.names import end_name, link_name
from planner.domain.pipeline import build_fabric
from planner.domain.presets import preset_get
from planner.domain.spec import parse_spec


@pytest.fixture(scope="module")
def fabric(facts):
    return build_fabric(parse_spec(preset_get("gb300-nvl72-xdr").spec), facts)


def _link(fabric, a_role: str, b_role: str) -> int:
    roles = fabric.node_role
    from planner.domain.fabric import ROLE

    hits = np.flatnonzero(
        (roles[fabric.link_a] == ROLE[a_role]) & (roles[fabric.link_b] == ROLE[b_role])
    )
    return int(hits[0])


def _ends(fabric, link: int) -> str:
    return link_name(fabric, link)  # the product's one naming of ports


def _no_repr(texts) -> None:
    for text in texts:
        assert not re.search(r"[{}\[\]']|\blink:?\s*\d+\b|np\.|None", text), text


def test_the_same_fabric_has_no_changes(fabric):
    diff = diff_fabrics(fabric, copy.deepcopy(fabric))
    assert diff["changes"] == [] and diff["more"] == 0
    assert all(not any(counts.values()) for counts in diff["counts"].values())


def test_a_length_change_reads_as_the_link_and_both_lengths(fabric):
    edited = copy.deepcopy(fabric)
    link = _link(fabric, "leaf", "spine")
    was = float(fabric.link_length_m[link])
    edited.link_length_m[link] = 25.0
    diff = diff_fabrics(fabric, edited)
    assert diff["counts"]["links"] == {"added": 0, "removed": 0, "changed": 1}
    (change,) = diff["changes"]
    assert change["fields"] == {"length_m": {"old": round(was, 3), "new": 25.0}}
    assert change["text"] == f"link {_ends(fabric, link)}: length {was:g} m → 25 m"
    assert "/" in change["text"].split("→")[0]  # cage/lane port names on the twin-port leaf
    _no_repr([change["text"]])


def test_a_part_change_names_the_end_and_both_part_numbers(fabric):
    edited = copy.deepcopy(fabric)
    link = _link(fabric, "leaf", "spine")
    old_part = fabric.parts[int(fabric.link_b_part[link])]
    edited.parts = [*fabric.parts, "MMS4A50-XM"]
    edited.link_b_part[link] = len(edited.parts) - 1
    (change,) = diff_fabrics(fabric, edited)["changes"]
    end = end_name(fabric, int(fabric.link_b[link]), int(fabric.link_b_port[link]))
    assert change["text"].endswith(f"part at {end} {old_part} → MMS4A50-XM")


def test_ends_written_the_other_way_round_are_the_same_link(fabric):
    edited = copy.deepcopy(fabric)
    link = _link(fabric, "leaf", "spine")
    for a, b in (
        ("link_a", "link_b"),
        ("link_a_port", "link_b_port"),
        ("link_a_part", "link_b_part"),
    ):
        getattr(edited, a)[link], getattr(edited, b)[link] = (
            getattr(fabric, b)[link],
            getattr(fabric, a)[link],
        )
    assert diff_fabrics(fabric, edited)["changes"] == []


def test_removed_and_added_links_and_devices_say_what_they_were(fabric):
    edited = copy.deepcopy(fabric)
    link = _link(fabric, "leaf", "spine")
    keep = np.ones(fabric.link_count, dtype=bool)
    keep[link] = False
    for column in edited.LINK_COLUMNS:
        value = getattr(edited, column)
        if value is not None:
            setattr(edited, column, value[keep])
    edited.node_name = [*fabric.node_name[:-1], "spine-lab"]
    diff = diff_fabrics(fabric, edited, limit=1_000)
    texts = [c["text"] for c in diff["changes"]]
    removed = [t for t in texts if t.startswith(f"link {_ends(fabric, link)} removed")]
    assert removed and "800 Gb/s" in removed[0] and removed[0].endswith(" m)")
    last = fabric.node_name[-1]
    model = fabric.models[int(fabric.node_model[-1])]
    assert f"{last} removed (was spine {model})" in texts
    rack = fabric.racks[int(fabric.node_rack[-1])]["name"]
    assert f"spine-lab added: spine {model} in rack {rack}" in texts
    # the renamed spine's links are removed and added again: every one counted
    degree = int(
        np.sum(fabric.link_b == fabric.node_count - 1)
        + np.sum(fabric.link_a == fabric.node_count - 1)
    )
    assert diff["counts"]["links"]["added"] == degree
    _no_repr(texts)


def test_a_moved_device_shows_both_positions_with_separators(fabric):
    positions = {n: (35.0 + 70 * n, 1000.0) for n in range(fabric.node_count)}
    moved = {**positions, 0: (1135.0, 1000.0)}
    diff = diff_fabrics(fabric, fabric, positions=(positions, moved))
    (change,) = diff["changes"]
    assert change["text"] == (
        f"{fabric.node_name[0]}: position on the canvas (35, 1,000) → (1,135, 1,000)"
    )
    # a device the canvas placed only now has not moved
    assert diff_fabrics(fabric, fabric, positions=(None, moved))["changes"] == []


def test_the_list_stops_at_the_limit_and_counts_the_rest(fabric):
    edited = copy.deepcopy(fabric)
    edited.link_length_m = edited.link_length_m + 1.0
    diff = diff_fabrics(fabric, edited, limit=10)
    assert len(diff["changes"]) == 10
    assert diff["counts"]["links"]["changed"] == fabric.link_count
    assert diff["more"] == fabric.link_count - 10
