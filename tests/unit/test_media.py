"""Media selection (planner.domain.media) and the whole build (planner.domain.pipeline)."""

from dataclasses import replace

import numpy as np
import pytest

from planner.domain.fabric import ROLE, TIER, FabricError
from planner.domain.pipeline import build_fabric
from planner.domain.spec import parse_spec
from planner.domain.summary import summarize

SUPERPOD = {
    "name": "superpod-4su",
    "topology": "rail-optimized",
    "server": "DGX-H100",
    "servers": 127,
    "servers_per_su": 32,
    "switches": {"leaf": "QM9700"},
    "reserved_leaf_ports": 4,
    "media": {"server-leaf": "MMF", "leaf-spine": "MMF"},
}
ONE_SU = {**SUPERPOD, "servers": 31, "media": {}}
# GB200 NVL72 trays: single-port flat-top OSFP cages, so a 1:2 DAC from a QM9700 twin-port cage
# reaches two of them. The compact layout keeps the runs within the DAC's 3 m.
GB200 = {
    "name": "gb200",
    "topology": "clos",
    "server": "GB200-NVL72",
    "servers": 4,
    "rails": 4,
    "switches": {"leaf": "QM9700"},
}
COMPACT = {"rack_units": 10, "tray_height_m": 0, "slack_m": 0, "servers_per_rack": 1}
TWIN_FLAT_TOP = {"980-9I51A-00NS00", "MMA4Z00-NS-FLT"}


@pytest.fixture(scope="module")
def superpod(facts):
    return build_fabric(parse_spec(SUPERPOD), facts)


def _build(facts, document, **kwargs):
    return build_fabric(parse_spec(document), facts, **kwargs)


def test_superpod_counts_match_the_published_bom(superpod):
    summary = summarize(superpod)
    assert summary["transceivers_by_side"]["switch"] == {"MMA4Z00-NS": 1536}
    server = dict(summary["transceivers_by_side"]["server"])
    assert server.pop("MMA4Z00-NS400") == 4  # Table 8's "UFM System Transceivers"
    assert sum(server.values()) == 508 and set(server) <= TWIN_FLAT_TOP
    # RA-11333-001 Table 8: 1016 node links + 1024 leaf-spine, and 2 UFM -> leaf fibres
    assert summary["cables"] == {"MFP7E10-Nxxx": 2040, "980-9I557-00N030": 4}


def test_superpod_server_modules_feed_two_leaves(superpod):
    servers = superpod.node_role[superpod.link_a] == ROLE["server"]
    modules = superpod.link_a_module[servers]
    leaves = superpod.link_b[servers]
    ids, counts = np.unique(modules, return_counts=True)
    assert (ids >= 0).all() and (counts == 2).all()
    order = np.argsort(modules, kind="stable")
    pairs = leaves[order].reshape(-1, 2)
    assert (pairs[:, 0] != pairs[:, 1]).all()


def test_fabric_manager_links_share_their_leaf_cage_module(superpod):
    """The leaf end of a UFM link is the module already in its cage; the UFM end and the
    fibre are the Table 8 parts (tests/unit/test_outputs_cabling.py checks them)."""
    ufm = superpod.node_role[superpod.link_a] == ROLE["manager"]
    assert ufm.sum() == 4
    assert (superpod.link_b_part[ufm] >= 0).all() and (superpod.link_b_module[ufm] >= 0).all()
    shared = np.isin(superpod.link_b_module[ufm], superpod.link_b_module[~ufm])
    assert shared.all()
    assert (superpod.link_a_part[ufm] >= 0).all() and (superpod.link_cable[ufm] >= 0).all()
    assert any("fabric-manager" in note for note in superpod.info["media_notes"])


def _reach(facts, fabric, link):
    parts = [fabric.link_a_part[link], fabric.link_b_part[link], fabric.link_cable_part[link]]
    limits = []
    for index in parts:
        if index < 0:
            continue
        part = facts.parts[fabric.parts[index]]
        limits += [part.get("reach_m"), part.get("max_length_m")]
        if part.get("lengths_m"):
            limits.append(max(part["lengths_m"]))
    return min(x for x in limits if x is not None)


def test_every_link_has_a_length_within_reach(facts, superpod):
    cabled = np.flatnonzero(superpod.link_cable_part >= 0)
    assert cabled.size == 2044  # 1,016 node + 1,024 leaf-spine links, 4 UFM links
    assert (superpod.link_length_m > 0).all()
    for link in cabled:
        assert superpod.link_length_m[link] <= _reach(facts, superpod, link)


def test_explicit_incompatible_part_names_link_and_reason(facts):
    document = {**SUPERPOD, "media": {"server-leaf": {"a": "MMA4Z00-NS"}}}
    with pytest.raises(FabricError) as caught:
        _build(facts, document)
    message = str(caught.value)
    assert caught.value.field == "media.server-leaf"
    assert "gpu00001 1/1 → leaf-su001-r1 1/1" in message  # named as everywhere (names.py)
    assert "MMA4Z00-NS does not fit the DGX-H100" in message and "flat-top" in message
    assert "1015 other link(s)" in message


def test_unknown_named_part_is_an_error(facts):
    document = {**SUPERPOD, "media": {"server-leaf": {"cable": "no-such-fiber"}}}
    with pytest.raises(FabricError, match="no-such-fiber"):
        _build(facts, document)


def test_named_unproven_part_is_accepted_with_warnings(facts):
    # A copy of the flat-top twin-port module whose lane rate the catalog does not know.
    unproven = {
        **facts.parts["MMA4Z00-NS-FLT"],
        "slug": "TEST-FLT-NO-LANE-RATE",
        "lane_rate_gbps": None,
    }
    facts = replace(facts, parts={**facts.parts, unproven["slug"]: unproven})
    document = {**SUPERPOD, "media": {"server-leaf": {"a": unproven["slug"]}}}
    fabric = _build(facts, document)
    server = summarize(fabric)["transceivers_by_side"]["server"]
    assert server == {unproven["slug"]: 508, "MMA4Z00-NS400": 4}  # and the UFM modules
    assert any(unproven["slug"] in w and "unknown" in w for w in fabric.info["media_warnings"])


def test_beyond_every_mmf_reach(facts):
    document = {**SUPERPOD, "layout": {"row_pitch_m": 40}}
    with pytest.raises(FabricError) as caught:
        _build(facts, document)
    message = str(caught.value)
    assert caught.value.field == "media.leaf-spine"
    assert "no MMF optics reach" in message and "the longest is 50 m" in message
    # Automatic rows (48 racks here): SUs 1-2 share a row, the spines take the next, SUs 3-4
    # the one after. SU 1's leaves reach the spines in 49.2 m (MMF: 50 m), SU 2's need 54 m.
    assert "leaf-su002-r1 17/1 → spine-001-001" in message


def test_dac_on_a_long_link_fails(facts):
    with pytest.raises(FabricError) as caught:
        _build(
            facts,
            {**GB200, "media": {"server-leaf": "DAC"}, "layout": {"servers_per_rack": 1}},
        )
    assert caught.value.field == "media.server-leaf"
    assert "no DAC cables reach" in str(caught.value)
    assert "the longest is 3 m (MCP7Y00-N003)" in str(caught.value)


def test_dac_does_not_fit_a_dgx(facts):
    with pytest.raises(FabricError, match="no DAC cable fits"):
        _build(facts, {**SUPERPOD, "media": {"server-leaf": "DAC"}})


def test_breakout_cable_legs_share_one_id(facts):
    fabric = _build(facts, {**GB200, "media": {"server-leaf": "DAC"}, "layout": COMPACT})
    down = fabric.link_tier == TIER["server-leaf"]
    used = {fabric.parts[i] for i in fabric.link_cable_part[down]}
    assert used and all(slug.startswith("MCP7Y00-N0") for slug in used)
    ids, counts = np.unique(fabric.link_cable[down], return_counts=True)
    assert (counts == 2).all()
    for cable in ids:
        legs = np.flatnonzero(down & (fabric.link_cable == cable))
        assert len(set(fabric.link_b[legs])) == 1  # one switch cage ...
        assert len(set(fabric.link_b_port[legs] // 2)) == 1
        assert len(set(zip(fabric.link_a[legs], fabric.link_a_port[legs], strict=True))) == 2
    # Cable ends have no module; the ordered length is a listed one and covers the run.
    assert (fabric.link_a_module[down] == -1).all() and (fabric.link_b_module[down] == -1).all()
    assert set(np.round(fabric.link_cable_length_m[down], 1)) <= {1.0, 1.5, 2.0, 2.5, 3.0}
    assert (fabric.link_cable_length_m[down] >= fabric.link_length_m[down] - 1e-6).all()
    # Each cable is the shortest length part that covers its longer leg.
    lengths = {
        "MCP7Y00-N001": 1,
        "MCP7Y00-N01A": 1.5,
        "MCP7Y00-N002": 2,
        "MCP7Y00-N02A": 2.5,
        "MCP7Y00-N003": 3,
    }
    for cable in ids:
        legs = np.flatnonzero(down & (fabric.link_cable == cable))
        part = fabric.parts[fabric.link_cable_part[legs[0]]]
        run = fabric.link_length_m[legs].max()
        assert lengths[part] >= run - 1e-6
        assert not any(run <= value < lengths[part] for value in lengths.values())
    summary = summarize(fabric)
    assert sum(summary["cables"][slug] for slug in used) == down.sum() // 2
    assert not used & set(summary["transceivers"])


def test_auto_is_deterministic_and_complete(facts):
    first = _build(facts, ONE_SU)
    second = _build(facts, ONE_SU)
    assert first.parts == second.parts
    for name in ("link_a_part", "link_b_part", "link_cable_part", "link_a_module", "link_cable"):
        assert np.array_equal(getattr(first, name), getattr(second, name)), name
    cabled = first.node_role[first.link_a] != ROLE["manager"]
    assert (first.link_cable_part[cabled] >= 0).all()
    assert (first.link_a_part[cabled] >= 0).all() and (first.link_b_part[cabled] >= 0).all()


def test_auto_prefers_the_cheapest_priced_candidate(facts):
    def price_of(slug):
        return 1.0 if slug.startswith(("MMS4X00-NS", "MFP7E30")) else 100.0

    fabric = _build(facts, {**GB200, "layout": COMPACT}, price_of=price_of)
    down = fabric.link_tier == TIER["server-leaf"]
    assert {fabric.parts[i] for i in fabric.link_a_part[down]} == {"MMS4X00-NS400"}
    assert {fabric.parts[i] for i in fabric.link_cable_part[down]} == {"MFP7E30-Nxxx"}
    fabric = _build(facts, {**GB200, "layout": COMPACT})  # unpriced: lowest power wins
    assert all(fabric.parts[i].startswith("MCP7Y00-N0") for i in fabric.link_cable_part[down])


def test_progress_is_reported(facts):
    calls = []
    _build(facts, ONE_SU, on_progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 3), (2, 3), (3, 3)]


def test_large_build_gives_every_link_a_cable(facts):
    """32 SUs of DGX-B300, three tiers; tests/bench_domain.py times 12,500 (100k GPUs)."""
    document = {
        "name": "large",
        "topology": "rail-optimized",
        "server": "DGX-B300",
        "servers": 2304,
        "switches": {"leaf": "Q3400-RA"},
        "layout": {"servers_per_rack": 4},
    }
    fabric = _build(facts, document)
    assert fabric.link_count > 50_000
    assert (fabric.link_cable_part >= 0).all()
