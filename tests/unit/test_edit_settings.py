"""Issue 33: a design's settings live in one typed object (``fabric.settings``), a hand edit
keeps them whole, and a length changed on a rack-scale (GB300 NVL72) or multi-plane (B300
twin-plane) design makes no generator parameter untrue."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from planner.analyses.scenario import run_scenario, transport_defaults
from planner.domain.canvas import edit_document, fabric_from_edit
from planner.domain.edits import keep_from_base
from planner.domain.fabric import ROLE, Fabric
from planner.domain.pipeline import build_fabric
from planner.domain.presets import preset_get
from planner.domain.settings import INFO_KEYS, FabricSettings
from planner.domain.spec import parse_spec

RACK_SCALE = "gb300-nvl72-xdr"
TWIN_PLANE = "b300-spectrum-x-twin-plane"


@pytest.fixture(scope="module")
def built(facts):
    return {
        slug: build_fabric(parse_spec(preset_get(slug).spec), facts)
        for slug in (RACK_SCALE, TWIN_PLANE)
    }


def _edited(base: Fabric, facts, change) -> tuple[Fabric, list]:
    document = edit_document(base)
    change(document)
    fabric = fabric_from_edit(document, facts)
    return fabric, keep_from_base(base, fabric)


def _one_length(document: dict) -> None:
    document["links"][0]["length_m"] = 25.0


@pytest.mark.parametrize("slug", [RACK_SCALE, TWIN_PLANE])
def test_one_length_changed_keeps_every_setting_and_raises_no_warning(built, facts, slug):
    base = built[slug]
    edited, stale = _edited(base, facts, _one_length)
    assert stale == [], [v.message for v in stale]
    assert edited.info["stale_parameters"] == []
    assert edited.info["topology"] == base.info["topology"] == "rail-optimized"
    assert edited.settings.transport == base.settings.transport is not None
    assert replace(edited.settings, generated=None) == base.settings
    assert edited.link_length_m[0] == pytest.approx(25.0)


def test_the_edited_gb300_simulates_under_infiniband_adaptive_routing(built, facts):
    """The issue's run: after the edit the flow simulation fell back to ECMP (25 % of the
    bound); the design's InfiniBand AR gives the whole bound, before and after."""
    base = built[RACK_SCALE]
    edited, _ = _edited(base, facts, _one_length)
    assert transport_defaults(edited.settings.transport).routing == "ib-ar"
    before = run_scenario(base, traffic="all-reduce", size_bytes=1e6, summary_only=True)
    after = run_scenario(edited, traffic="all-reduce", size_bytes=1e6, summary_only=True)
    assert after == before
    assert after["busbw_gbps"] == pytest.approx(after["bound_busbw_gbps"])


def _rack_links(fabric: Fabric, rack: int) -> dict[int, int]:
    """Link index by the rack's port (``(tray * rails + rail) * planes + plane``)."""
    links = np.flatnonzero(fabric.link_a == rack)
    return {int(fabric.link_a_port[i]): int(i) for i in links}


def test_a_tray_nic_on_another_rails_leaf_is_still_reported(built, facts):
    base = built[RACK_SCALE]
    rack = int(base.nodes_with_role("server")[0])
    rails = int(base.info["rails"])
    ports = _rack_links(base, rack)
    tray0_rail0, tray1_rail1 = ports[0], ports[1 * rails + 1]

    def swap(document):
        one, other = document["links"][tray0_rail0], document["links"][tray1_rail1]
        one["b"], other["b"] = other["b"], one["b"]
        one["b_port"], other["b_port"] = other["b_port"], one["b_port"]

    _, stale = _edited(base, facts, swap)
    by_field = {v.field: v for v in stale}
    assert set(by_field) == {"topology"}
    message = by_field["topology"].message
    assert f"{base.node_name[rack]} tray 1 NIC 1 → " in message  # the port as every page names it
    assert "link:" not in message


def test_a_tray_nic_unplugged_is_reported_against_the_trays_count(built, facts):
    base = built[RACK_SCALE]
    system = base.settings.rack_system
    per_rack = int(base.info["rails"]) * int(system["compute_trays"]) * base.settings.planes
    rack = int(base.nodes_with_role("server")[0])
    dropped = _rack_links(base, rack)[0]

    def unplug(document):
        del document["links"][dropped]

    _, stale = _edited(base, facts, unplug)
    rails = next(v for v in stale if v.field == "rails")
    assert rails.params["was"] == per_rack == 72
    assert f"has {per_rack - 1} NIC links while the others have {per_rack}" in rails.message


def _stored(fabric: Fabric) -> dict:
    return json.loads(json.dumps(fabric.to_dict()))


def test_settings_are_stored_apart_and_read_back(built):
    base = built[TWIN_PLANE]
    data = _stored(base)
    assert data["format"] == 2
    assert not set(INFO_KEYS) & set(data["info"])
    read = Fabric.from_dict(data)
    assert read.settings == base.settings and not read.settings.legacy
    assert read.settings.planes == 2


def test_a_fabric_stored_with_settings_in_info_is_upgraded_on_read(built, facts):
    """A revision saved before the settings were kept apart (format 1): its info keys become
    the settings, and an edit of it keeps them."""
    base = built[RACK_SCALE]
    data = _stored(base)
    settings = data.pop("settings")
    settings["transport"] = base.settings.transport.as_dict()
    data["info"].update({k: v for k, v in settings.items() if v is not None})
    data["format"] = 1
    old = Fabric.from_dict(data)
    assert old.settings.legacy
    assert replace(old.settings, legacy=False) == base.settings
    assert old.info == base.info
    edited, stale = _edited(old, facts, _one_length)
    assert stale == [] and edited.settings.transport == base.settings.transport


def test_a_drawn_fabric_has_the_planes_of_its_document(facts):
    base = build_fabric(parse_spec(preset_get(TWIN_PLANE).spec), facts)
    drawn = fabric_from_edit(edit_document(base), facts)
    assert drawn.settings == FabricSettings(planes=2)
    assert int((drawn.node_role == ROLE["server"]).sum()) == int(base.info["servers"])
