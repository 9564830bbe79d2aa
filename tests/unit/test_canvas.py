"""Canvas views, edit documents and link options (planner.domain.canvas), on the seed catalog."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from planner.domain.canvas import (
    MAX_ELEMENTS,
    CanvasError,
    EditError,
    detail_elements,
    edit_document,
    fabric_from_edit,
    link_options,
    overview_elements,
    validate_edit,
)
from planner.domain.fabric import ROLE, TIER, Fabric
from planner.domain.pipeline import build_fabric
from planner.domain.presets import preset_get
from planner.domain.spec import parse_spec
from planner.domain.summary import summarize

#: 32 SUs of 72 DGX-B300: large enough that the core and pod views aggregate to fit;
#: tests/bench_domain.py times the views at 12,500 (100,000 GPUs).
B300_LARGE = {
    "name": "b300-large",
    "topology": "rail-optimized",
    "server": "DGX-B300",
    "servers": 2304,
    "switches": {"leaf": "Q3400-RA"},
    "layout": {"servers_per_rack": 4},
}
NDR = {"a_part": "980-9I51A-00NS00", "b_part": "MMA4Z00-NS", "cable": "MFP7E10-Nxxx"}


@pytest.fixture(scope="module")
def superpod(facts):
    return build_fabric(parse_spec(preset_get("h100-superpod-16su").spec), facts)


@pytest.fixture(scope="module")
def four_su(facts):
    return build_fabric(parse_spec(preset_get("h100-superpod-4su").spec), facts)


@pytest.fixture(scope="module")
def b300(facts):
    return build_fabric(parse_spec(B300_LARGE), facts)


def _size(view: dict) -> int:
    return len(view["elements"]["nodes"]) + len(view["elements"]["edges"])


def _by_kind(view: dict, kind: str) -> list[dict]:
    elements = view["elements"]["nodes"] + view["elements"]["edges"]
    return [e["data"] for e in elements if e["data"]["kind"] == kind]


# --- views --------------------------------------------------------------------------------------


def test_overview_of_the_16_su_superpod(superpod):
    view = overview_elements(superpod)
    assert view["view"] == "overview" and _size(view) < MAX_ELEMENTS
    aggregates = _by_kind(view, "aggregate")
    per_role = Counter(a["role"] for a in aggregates)
    assert per_role == {"server": 16, "leaf": 16, "spine": 4, "core": 32}
    servers = {a["id"]: a for a in aggregates if a["role"] == "server"}
    assert servers["agg:all:server:su3"]["count"] == 32
    assert servers["agg:all:server:su3"]["models"] == {"DGX-H100": 32}
    assert servers["agg:all:server:su3"]["scope"] == "su:3"
    leaves = next(a for a in aggregates if a["id"] == "agg:1:leaf:su3")
    assert (leaves["count"], leaves["su"], leaves["scope"]) == (8, 3, "su:3")
    spines = next(a for a in aggregates if a["id"] == "agg:1:spine:pod2")
    assert (spines["count"], spines["scope"]) == (32, "pod:2")
    # Bundles carry every link once: their counts add up to each tier's links.
    bundles = _by_kind(view, "bundle")
    per_tier = Counter()
    for bundle in bundles:
        per_tier[bundle["tier"]] += bundle["links"]
        assert bundle["id"] == f"bundle:{bundle['source']}|{bundle['target']}"
    assert per_tier == summarize(superpod)["links"]
    su_bundle = next(b for b in bundles if b["source"] == "agg:all:server:su1")
    assert (su_bundle["links"], su_bundle["label"]) == (256, "256 × 400G")
    assert su_bundle["bandwidth_gbps"] == 256 * 400
    # Tiers from the bottom: servers, leaves, spines, cores.
    y = {a["role"]: n["position"]["y"] for n in view["elements"]["nodes"] for a in [n["data"]]}
    assert y["server"] > y["leaf"] > y["spine"] > y["core"]
    scopes = {s["id"]: s for s in view["scopes"]}
    assert {"su:1", "su:16", "pod:1", "pod:4", "core"} <= set(scopes)
    assert "all" not in scopes  # 13,000+ elements
    assert scopes["su:1"]["elements"] == 40 + 256 + 256  # 32 + 8 nodes, their links up


def test_overview_is_deterministic(superpod):
    assert overview_elements(superpod) == overview_elements(superpod)


def test_su_detail_has_servers_in_racks_and_leaves_in_rails(superpod):
    view = detail_elements(superpod, "su:1")
    assert view["scope"] == "su:1" and _size(view) <= MAX_ELEMENTS
    devices = _by_kind(view, "device")
    groups = {g["id"]: g for g in _by_kind(view, "group")}
    servers = [d for d in devices if d["role"] == "server"]
    leaves = [d for d in devices if d["role"] == "leaf"]
    assert len(servers) == 32 and len(leaves) == 8
    assert groups["group:su:1"]["parent"] is None
    for server in servers:
        assert server["parent"].startswith("group:rack:")
        assert server["parent"] == f"group:rack:{server['rack']}"
        assert groups[server["parent"]]["parent"] == "group:su:1"
        assert server["su"] == 1 and server["model"] == "DGX-H100"
    assert sorted(leaf["parent"] for leaf in leaves) == [f"group:rail:{r}" for r in range(1, 9)]
    assert all(groups[f"group:rail:{r}"]["parent"] == "group:su:1" for r in range(1, 9))
    leaf = next(d for d in leaves if d["rail"] == 1)
    assert (leaf["ports"], leaf["ports_used"], leaf["plane"]) == (64, 64, 1)
    # Every server-leaf link of SU 1, one by one.
    in_su = np.flatnonzero(superpod.node_su == 0)
    first_su = np.isin(superpod.link_a, in_su) & (superpod.link_tier == TIER["server-leaf"])
    expected = {f"link:{i}" for i in np.flatnonzero(first_su)}
    links = _by_kind(view, "link")
    shown = {link["id"] for link in links if link["tier"] == "server-leaf"}
    assert shown == expected and len(shown) == 256
    link = next(link for link in links if link["id"] == "link:0")
    assert link["source"] == "node:gpu00001" and link["a_port"] == 1
    assert (link["a_part"], link["b_part"], link["cable"]) == tuple(NDR.values())
    assert link["length_m"] > 0 and link["speed_gbps"] == 400
    # The 32 spines the SU's leaves reach, individually.
    assert len([d for d in devices if d["role"] == "spine"]) == 32
    positions = {n["data"]["id"]: n.get("position") for n in view["elements"]["nodes"]}
    assert positions["group:su:1"] is None  # compound nodes take their children's place
    assert positions["node:gpu00001"]["y"] > positions["node:leaf-su001-r1"]["y"]


def test_pod_and_core_details(superpod):
    pod = detail_elements(superpod, "pod:2")
    devices = Counter(d["role"] for d in _by_kind(pod, "device"))
    assert devices == {"leaf": 32, "spine": 32}
    servers = [a for a in _by_kind(pod, "aggregate") if a["role"] == "server"]
    assert sorted(a["su"] for a in servers) == [5, 6, 7, 8]
    assert len([e for e in _by_kind(pod, "link") if e["tier"] == "leaf-spine"]) == 1024
    core = detail_elements(superpod, "core")
    assert Counter(d["role"] for d in _by_kind(core, "device")) == {"spine": 128, "core": 64}
    assert len(_by_kind(core, "link")) == 4096 and not core["notes"]
    assert _size(core) <= MAX_ELEMENTS


def test_all_scope_only_for_small_fabrics(superpod, four_su):
    with pytest.raises(CanvasError, match="5,000"):
        detail_elements(superpod, "all")
    view = detail_elements(four_su, "all")
    assert len(_by_kind(view, "device")) == four_su.node_count
    assert len(_by_kind(view, "link")) == four_su.link_count


@pytest.mark.parametrize(
    ("scope", "words"),
    [
        ("rack:1", "unknown scope"),
        ("su:0", "unknown scope"),
        ("su:99", "no SU 99"),
        ("pod:9", "no pod 9"),
    ],
)
def test_unknown_scopes_are_refused(superpod, scope, words):
    with pytest.raises(CanvasError, match=words):
        detail_elements(superpod, scope)


def test_large_fabric_views_stay_small(b300):
    assert b300.info["gpus"] == 18_432
    overview = overview_elements(b300)
    detail = detail_elements(b300, "su:1")
    core = detail_elements(b300, "core")
    for view in (overview, detail, core):
        assert _size(view) < MAX_ELEMENTS, view["scope"]
    assert Counter(a["role"] for a in _by_kind(overview, "aggregate"))["server"] == 32
    assert len([d for d in _by_kind(detail, "device") if d["role"] == "server"]) == 72
    assert any("core group" in note for note in core["notes"])  # aggregated to fit
    pod = detail_elements(b300, "pod:1")  # 72 x 72 leaf-spine links: leaves per SU
    assert _size(pod) < MAX_ELEMENTS and pod["notes"]


# --- edit documents ----------------------------------------------------------------------------


def _drawn() -> dict:
    """Two DGX-H100, each with a port on each of two QM9700 leaves."""
    return {
        "nodes": [
            {"name": "s1", "model": "DGX-H100", "role": "server", "x": 0, "y": 500},
            {"name": "s2", "model": "DGX-H100", "role": "server", "x": 100, "y": 500},
            {"name": "l1", "model": "QM9700", "role": "leaf", "x": 0, "y": 0},
            {"name": "l2", "model": "QM9700", "role": "leaf"},
        ],
        "links": [
            {"a": "s1", "a_port": 1, "b": "l1", "b_port": 1, "length_m": 10, **NDR},
            {"a": "s1", "a_port": 2, "b": "l2", "b_port": 1, "length_m": 10, **NDR},
            {"a": "s2", "a_port": 1, "b": "l1", "b_port": 2, "length_m": 12, **NDR},
            {"a": "s2", "a_port": 2, "b": "l2", "b_port": 2, **NDR},
        ],
    }


def _change(path: str, value):
    def apply(document):
        kind, index, key = path.split(".")
        document[kind][int(index)][key] = value

    return apply


def _spine(document):
    document["nodes"].append({"name": "sp1", "model": "QM9700", "role": "spine"})
    document["links"].append({"a": "s1", "a_port": 3, "b": "sp1", "b_port": 1})


def _spine_ok(document):
    document["nodes"].append({"name": "sp1", "model": "QM9700", "role": "spine"})
    document["links"].append({"a": "l1", "a_port": 33, "b": "sp1", "b_port": 1})


def _rename(document):
    document["nodes"][3]["name"] = "l3"
    for link in document["links"]:
        link["b"] = "l3" if link["b"] == "l2" else link["b"]


# (code, change that breaks it, change that is fine)
CASES = [
    ("unknown-model", _change("nodes.3.model", "NOPE"), _change("nodes.3.model", "QM9790")),
    ("duplicate-name", _change("nodes.3.name", "l1"), _rename),
    ("unknown-node", _change("links.0.b", "l9"), _change("links.0.b_port", 9)),
    # an end that is not a name at all (was a TypeError, a 500 from the API)
    ("unknown-node", _change("links.0.a", ["s1"]), _change("links.0.a", "s1")),
    ("unknown-node", _change("links.0.b", {"name": "l1"}), _change("links.0.b", "l1")),
    ("port-out-of-range", _change("links.0.b_port", 65), _change("links.0.b_port", 64)),
    ("port-in-use", _change("links.2.b_port", 1), _change("links.2.b_port", 3)),
    ("self-link", _change("links.0.b", "s1"), _change("links.0.b", "l1")),
    ("tier-order", _spine, _spine_ok),
    (
        "module-mismatch",
        _change("links.0.a_part", "MMA4Z00-NS"),
        _change("links.0.b_part", "MMA4Z00-NS"),
    ),
    ("optics-mismatch", _change("links.0.cable", "MFP7E30-Nxxx"), _change("links.0.cable", None)),
    ("reach-exceeded", _change("links.0.length_m", 80), _change("links.0.length_m", 50)),
    ("unknown-part", _change("links.0.cable", "NOPE"), _change("links.0.cable", "MFP7E10-Nxxx")),
    ("speed-unsupported", _change("links.0.speed_gbps", 800), _change("links.0.speed_gbps", 400)),
]


def test_the_drawn_document_is_valid(facts):
    assert validate_edit(_drawn(), facts) == []


@pytest.mark.parametrize(("code", "breaks", "fine"), CASES, ids=[c[0] for c in CASES])
def test_validate_edit_codes(facts, code, breaks, fine):
    bad, good = _drawn(), _drawn()
    breaks(bad)
    fine(good)
    codes = [v.code for v in validate_edit(bad, facts)]
    assert code in codes, codes
    assert [v for v in validate_edit(good, facts) if v.severity == "error"] == []
    with pytest.raises(EditError):
        fabric_from_edit(bad, facts)


def test_finned_module_on_a_dgx_cage_names_link_node_and_reason(facts):
    document = _drawn()
    document["links"][0]["a_part"] = "MMA4Z00-NS"
    problems = {v.code: v for v in validate_edit(document, facts)}
    problem = problems["module-mismatch"]
    assert problem.element_ids == ("link:0", "node:s1")
    assert "MMA4Z00-NS does not fit the DGX-H100 OSFP flat-top (RHS) twin-port cage" in (
        problem.message
    )
    assert "A finned (IHS) plug does not fit a flat-top (RHS) cage" in problem.message
    # The other port of that cage names another module: one plug per cage.
    assert set(problems["cage-mixed-plugs"].element_ids) == {"node:s1", "link:0", "link:1"}
    assert problems["cage-mixed-plugs"].message.startswith("s1 cage 1 holds one module")


def test_port_in_use_and_tier_order_name_their_elements(facts):
    document = _drawn()
    document["links"][2]["b_port"] = 1
    document["links"].append({"a": "l2", "a_port": 40, "b": "s2", "b_port": 5})
    problems = {v.code: v for v in validate_edit(document, facts)}
    assert set(problems["port-in-use"].element_ids) == {"node:l1", "link:0", "link:2"}
    assert "l1 port 1 is used by 2 links (to " in problems["port-in-use"].message
    assert "link:" not in problems["port-in-use"].message  # ends by name, never element ids
    tier = problems["tier-order"]
    assert tier.element_ids == ("link:4", "node:l2", "node:s2") and "swap a and b" in tier.message


def test_hand_drawn_fabric_summarizes(facts):
    fabric = fabric_from_edit(_drawn(), facts)
    summary = summarize(fabric, name="drawn")
    assert (summary["topology"], summary["tiers"], summary["planes"]) == ("custom", 1, 1)
    assert (summary["gpus"], summary["servers"]) == (16, 2)
    assert summary["switches"] == {"leaf": 2, "spine": 0, "core": 0}
    assert summary["links"]["server-leaf"] == 4
    # A twin-port module per server cage (both ports in one cage), one per leaf cage.
    assert summary["transceivers_by_side"] == {
        "server": {"980-9I51A-00NS00": 2},
        "switch": {"MMA4Z00-NS": 2},
    }
    assert summary["cables"] == {"MFP7E10-Nxxx": 4}
    # Ordered lengths: runs of 10 and 12 m, rounded by the ordering policy; one unknown.
    assert summary["cables_by_length"] == {"MFP7E10-Nxxx": {"10": 2, "15": 1}}
    assert fabric.node_x[0] == 0 and fabric.node_y[1] == 500 and np.isnan(fabric.node_x[3])
    again = Fabric.from_dict(fabric.to_dict())
    assert fabric.to_dict()["node_x"][3] is None  # strict JSON
    assert np.isnan(again.node_x[3]) and again.node_y[0] == 500
    view = detail_elements(fabric, "all")
    placed = {n["data"]["id"]: n["position"] for n in view["elements"]["nodes"]}
    assert placed["node:s2"] == {"x": 100.0, "y": 500.0}


def test_edit_document_round_trip_keeps_the_bill_of_materials(facts, four_su):
    document = edit_document(four_su)
    assert len(document["nodes"]) == four_su.node_count
    assert document["links"][0] == {
        "a": "gpu00001",
        "a_port": 1,
        "b": "leaf-su001-r1",
        "b_port": 1,
        "speed_gbps": 400,
        **NDR,
        "length_m": document["links"][0]["length_m"],
    }
    assert [v for v in validate_edit(document, facts) if v.severity == "error"] == []
    edited = fabric_from_edit(document, facts)
    before, after = summarize(four_su), summarize(edited)
    for key in ("gpus", "switches", "links", "transceivers", "cables", "cables_by_length"):
        assert before[key] == after[key], key
    assert after["reserved_leaf_ports"] == 4 and after["racks"] == before["racks"]
    view = overview_elements(edited)  # SUs and pods survive the edit
    assert {"su:1", "su:4", "pod:1"} <= {s["id"] for s in view["scopes"]}


def test_edit_document_refuses_big_fabrics(superpod):
    with pytest.raises(CanvasError, match="spec"):
        edit_document(superpod)


def test_fabric_manager_links_check_the_switch_end_only(facts, four_su):
    document = edit_document(four_su)
    manager = next(n for n in document["nodes"] if n["role"] == "manager")
    assert manager["model"] == "fabric-manager"
    ufm = [i for i, link in enumerate(document["links"]) if link["a"] == manager["name"]]
    assert len(ufm) == 4 and document["links"][ufm[0]]["b_part"] == "MMA4Z00-NS"
    document["links"][ufm[0]]["a_part"] = "MMA4Z00-NS"  # far end: listed separately, ignored
    assert [v for v in validate_edit(document, facts) if v.severity == "error"] == []
    document["links"][ufm[1]]["b_part"] = "980-9I51A-00NS00"  # a host module in a switch
    problems = [v for v in validate_edit(document, facts) if v.code == "module-mismatch"]
    assert problems and f"link:{ufm[1]}" in problems[0].element_ids
    assert "not for use in switch cages" in problems[0].message
    edited = fabric_from_edit(edit_document(four_su), facts)
    assert int((edited.node_role == ROLE["manager"]).sum()) == 1


# --- link options ------------------------------------------------------------------------------


def test_link_options_dgx_h100_to_qm9700(facts):
    options = link_options("DGX-H100", "QM9700", facts=facts)
    assert options.speed_gbps == 400 and not options.refusal
    choices = {(o["a_part"], o["b_part"], o["cable"], o["kind"]) for o in options}
    assert ("980-9I51A-00NS00", "MMA4Z00-NS", "MFP7E10-Nxxx", "MMF") in choices
    assert all(o["reach_m"] for o in options)
    swapped = link_options("QM9700", "DGX-H100", facts=facts)
    assert (swapped.a, swapped.b) == ("DGX-H100", "QM9700") and swapped.notes
    far = link_options("DGX-H100", "QM9700", facts=facts, length_m=80)
    assert list(far) == [] and far.refusal[0]["code"] == "out-of-reach"


def test_link_options_dgx_h100_to_xdr_switch_is_refused(facts):
    options = link_options("DGX-H100", "Q3400-RA", facts=facts, speed_gbps=400)
    assert list(options) == []
    codes = {r["code"] for r in options.refusal}
    assert codes == {"no-optics", "no-cable"}
    # the XDR twin-port modules list 2 x 400G (issue 36), so a module fits the Q3400 cage at
    # 400G; no pair links 100G lanes to 200G lanes
    assert "100G lanes do not link to 200G lanes" in options.refusal[0]["message"]


def test_link_options_refusals(facts):
    assert link_options("QM9700", "SN5600", facts=facts).refusal[0]["code"] == "protocol-mismatch"
    assert link_options("NOPE", "QM9700", facts=facts).refusal[0]["code"] == "unknown-model"
    assert link_options("DGX-H100", "QM9700", facts=facts, speed_gbps=800).refusal[0]["code"] == (
        "speed-unsupported"
    )
    # Auto policy: fully priced options first, cheapest per link first.
    prices = {"MMA4Z00-NS": 100.0, "MFP7E10-Nxxx": 10.0, "MCP4Y10-N00x": 500.0}
    ranked = link_options("QM9700", "QM9700", facts=facts, price_of=prices.get)
    first, second = ranked[0], ranked[1]
    assert (first["b_part"], first["cable"], first["kind"]) == ("MMA4Z00-NS", "MFP7E10-Nxxx", "MMF")
    assert first["price"] < second["price"] and second["cable"] == "MCP4Y10-N00x"
    assert all(o["price"] is None for o in ranked[2:])
