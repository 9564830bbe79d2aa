"""Transport checks (issue 20): each rule of ``planner.analyses.validate.transport`` with one
fabric that fails it and one that passes, built from the seed catalog (no database)."""

import copy
from dataclasses import replace

import numpy as np
import pytest

from planner.analyses.rules_catalog import RULES
from planner.analyses.validate import validate_fabric
from planner.domain.fabric import ROLE, TIER
from planner.domain.pipeline import build_fabric
from planner.domain.spec import parse_spec
from planner.domain.transport.settings import pfc_buffer_bytes

MTU = {"mtu_b": 9216}
CLOS = {  # XE9680: BlueField-3 B3140H SuperNICs (AR-capable), 400G
    "name": "clos",
    "topology": "clos",
    "server": "XE9680",
    "servers": 8,
    "switches": {"leaf": "QFX5240-64OD"},
    "transport": {"profile": "nvidia-spectrum-x", **MTU},
}
B300 = {  # DGX-B300: on-board ConnectX-8, 800G ports, two planes of 400G
    "name": "b300",
    "topology": "rail-optimized",
    "server": "DGX-B300",
    "servers": 4,
    "planes": 2,
    "switches": {"leaf": "SN5600"},
    "transport": {**MTU, "multiplane_mode": "hwplb"},
}
IB = {
    "name": "ib",
    "topology": "rail-optimized",
    "server": "DGX-H100",
    "servers": 4,
    "switches": {"leaf": "QM9700"},
}


def build(facts, spec, **transport):
    spec = copy.deepcopy(spec)
    if transport:
        spec["transport"] = {**spec.get("transport", {}), **transport}
    return build_fabric(parse_spec(spec), facts)


def problems(fabric, facts, code):
    assert code in RULES and RULES[code].rule == "transport"
    return validate_fabric(fabric, facts).by_code(code)


def with_settings(fabric, **roce):
    """The fabric as an edit or an older revision could hold it: settings the spec path would
    refuse written into its transport settings."""
    fabric = copy.deepcopy(fabric)
    transport = fabric.settings.transport
    fabric.settings = replace(
        fabric.settings, transport=replace(transport, roce=replace(transport.roce, **roce))
    )
    return fabric


@pytest.fixture(scope="module")
def clos(facts):
    return build(facts, CLOS)


@pytest.fixture(scope="module")
def b300(facts):
    return build(facts, B300)


# --- PFC headroom -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def spectrum(facts):
    """The Clos on SN5600 leaves and spines: NVIDIA publishes their headroom (SONiC)."""
    return build(facts, {**CLOS, "switches": {"leaf": "SN5600"}})


def test_headroom_over_the_buffer_is_an_error_naming_the_switches(facts, spectrum, monkeypatch):
    monkeypatch.setitem(facts.parts, "SN5600", {**facts.parts["SN5600"], "buffer_mb": 1})
    (problem,) = problems(spectrum, facts, "pfc-headroom-exceeded")
    switches = np.flatnonzero(spectrum.node_role >= ROLE["leaf"])
    assert problem.severity == "error"
    assert problem.element_ids == [f"node:{spectrum.node_name[i]}" for i in switches]
    assert "1.0 MB packet buffer" in problem.message and "SN5600" in problem.message
    assert "vendor's table" in problem.message


def test_headroom_within_the_buffer_passes(facts, spectrum, monkeypatch):
    monkeypatch.setitem(facts.parts, "SN5600", {**facts.parts["SN5600"], "buffer_mb": 100})
    assert not problems(spectrum, facts, "pfc-headroom-exceeded")
    assert not problems(spectrum, facts, "pfc-buffer-unknown")


def test_a_switch_without_a_buffer_figure_is_computed_not_compared(facts, spectrum):
    (problem,) = problems(spectrum, facts, "pfc-buffer-unknown")
    assert problem.severity == "info" and "SN5600" in problem.message
    assert not problems(spectrum, facts, "pfc-headroom-exceeded")


def test_switch_headroom_is_the_vendors_table_not_the_nic_formula(facts, spectrum):
    """SONiC ACS-SN5600 pg_profile_lookup.ini row '400000 40m 303104 19456 283648': a 400G port
    on a run of 5 to 40 m reserves 303,104 B; the mlx5 NIC formula gives about a third less."""
    (problem,) = problems(spectrum, facts, "pfc-buffer-unknown")
    leaf = int(np.flatnonzero(spectrum.node_role == ROLE["leaf"])[0])
    ends = (spectrum.link_a == leaf) | (spectrum.link_b == leaf)
    lengths = spectrum.link_length_m[ends]
    assert (spectrum.link_speed_gbps[ends] == 400).all() and (lengths > 5).all()
    assert (lengths <= 40).all()
    per_switch_mb = int(ends.sum()) * 303104 / 1e6
    assert f"{per_switch_mb:.1f} MB" in problem.message
    nic_formula = pfc_buffer_bytes(400, 40, 9216)
    assert 0.6 < nic_formula / 303104 < 0.7  # issue 36: "about a third low at 400G"


def test_a_switch_without_a_vendor_table_is_named_not_estimated(facts, clos, monkeypatch):
    monkeypatch.setitem(
        facts.parts, "QFX5240-64OD", {**facts.parts["QFX5240-64OD"], "buffer_mb": 1}
    )
    (problem,) = problems(clos, facts, "pfc-headroom-unpublished")
    assert problem.severity == "info" and "QFX5240-64OD" in problem.message
    assert "NIC ports only" in problem.message
    assert not problems(clos, facts, "pfc-headroom-exceeded")


def test_a_run_past_the_vendor_table_is_left_out_and_said(facts, spectrum):
    fabric = copy.deepcopy(spectrum)
    fabric.link_length_m = fabric.link_length_m.astype(float)
    link = int(np.flatnonzero(fabric.node_role[fabric.link_b] >= ROLE["leaf"])[0])
    fabric.link_length_m[link] = 301.0  # ACS-SN5600 lists 5, 40 and 300 m
    (problem,) = problems(fabric, facts, "pfc-headroom-unlisted")
    assert problem.element_ids == [f"link:{link}"]
    assert not problems(spectrum, facts, "pfc-headroom-unlisted")


def test_a_lossless_link_without_length_is_warned_and_left_out(facts, clos):
    fabric = copy.deepcopy(clos)
    fabric.link_length_m = fabric.link_length_m.astype(float)
    fabric.link_length_m[3] = np.nan
    (problem,) = problems(fabric, facts, "pfc-length-unknown")
    assert problem.severity == "warning" and problem.element_ids == ["link:3"]
    assert not problems(clos, facts, "pfc-length-unknown")


def test_long_runs_at_400g_are_pointed_out(facts, clos):
    fabric = copy.deepcopy(clos)
    fabric.link_length_m = fabric.link_length_m.astype(float)
    link = int(np.flatnonzero(fabric.link_speed_gbps >= 400)[0])
    fabric.link_length_m[link] = 150.0
    (problem,) = problems(fabric, facts, "pfc-long-run")
    assert problem.element_ids == [f"link:{link}"] and "150 m" in problem.message
    assert not problems(clos, facts, "pfc-long-run")


def test_headroom_is_not_checked_without_pfc(facts, spectrum, monkeypatch):
    monkeypatch.setitem(facts.parts, "SN5600", {**facts.parts["SN5600"], "buffer_mb": 1})
    assert problems(spectrum, facts, "pfc-headroom-exceeded")
    lossy = with_settings(spectrum, pfc_mode="lossy")
    assert not problems(lossy, facts, "pfc-headroom-exceeded")


# --- priorities, CNP, trust ---------------------------------------------------------------------


def test_a_gaudi3_nic_on_nvidia_switches_is_a_priority_and_cnp_mismatch(facts):
    fabric = build(facts, CLOS, nics={"B3140H": {"profile": "intel-gaudi3"}})
    (data,) = problems(fabric, facts, "roce-priority-mismatch")
    (cnp,) = problems(fabric, facts, "roce-cnp-mismatch")
    servers = np.flatnonzero(fabric.node_role == ROLE["server"])
    assert data.element_ids == [f"node:{fabric.node_name[i]}" for i in servers]
    assert "priority 2" in data.message and "lossless priority is 3" in data.message
    assert "DSCP 24" not in data.message  # 24 is in the Spectrum lossless DSCP range 24-31
    assert "priority 3" in cnp.message and "DSCP 16" in cnp.message


def test_nvidia_nics_on_nvidia_switches_agree(facts, clos):
    for code in ("roce-priority-mismatch", "roce-cnp-mismatch", "roce-trust-mismatch"):
        assert not problems(clos, facts, code), code


def test_cnp_dscp_drift_between_operator_versions_is_caught(facts):
    fabric = build(facts, CLOS, nics={"B3140H": {"cnp_dscp": 4}})  # the v26.7 docs' value
    (problem,) = problems(fabric, facts, "roce-cnp-mismatch")
    assert "DSCP 4 (the switches expect 48)" in problem.message


def test_trust_mismatch(facts, clos):
    fabric = build(facts, CLOS, nics={"B3140H": {"trust": "pcp"}})
    (problem,) = problems(fabric, facts, "roce-trust-mismatch")
    assert "PCP" in problem.message and "DSCP" in problem.message


# --- ECN, MTU, watchdog, blanks -----------------------------------------------------------------


def test_ecn_above_the_buffer_and_out_of_order(facts, clos):
    above = with_settings(clos, ecn_max_kb=200_000)
    (problem,) = problems(above, facts, "roce-ecn-thresholds")
    assert "165.2 MB packet buffer of QFX5240-64OD" in problem.message
    backwards = with_settings(clos, ecn_min_kb=1500, ecn_max_kb=150)
    assert "not below" in problems(backwards, facts, "roce-ecn-thresholds")[0].message
    assert not problems(clos, facts, "roce-ecn-thresholds")


def test_mtu_differs_along_the_path(facts):
    fabric = build(facts, CLOS, mtu_by_role={"server": 9000})
    (problem,) = problems(fabric, facts, "roce-mtu-mismatch")
    down = np.flatnonzero(fabric.link_tier == TIER["server-leaf"])
    assert problem.element_ids == [f"link:{i}" for i in down]
    assert "9,000 B" in problem.message and "9,216 B" in problem.message
    assert not problems(
        build(facts, CLOS, mtu_by_role={"server": 9216}), facts, "roce-mtu-mismatch"
    )


def test_pfc_without_watchdog(facts, clos):
    (problem,) = problems(build(facts, CLOS, pfc_watchdog=False), facts, "roce-pfc-watchdog-off")
    assert problem.severity == "warning"
    assert not problems(clos, facts, "roce-pfc-watchdog-off")


def test_settings_no_profile_gives_are_named(facts, clos):
    fabric = build(facts, {**CLOS, "transport": {"profile": "cisco"}})
    (problem,) = problems(fabric, facts, "transport-setting-blank")
    for name in ("transport.lossless_priority", "transport.ecn_max_kb", "transport.mtu_b"):
        assert name in problem.suggestion
    assert not problems(clos, facts, "transport-setting-blank")


# --- adaptive routing ---------------------------------------------------------------------------


def test_adaptive_routing_needs_reordering_nics(facts):
    cx7 = {**CLOS, "server": "SYS-A22GA-NBRT", "transport": {**CLOS["transport"]}}
    fabric = build(facts, cx7, load_balancing="adaptive")
    (problem,) = problems(fabric, facts, "ar-nic-unsupported")
    assert problem.severity == "error" and "SYS-A22GA-NBRT" in problem.message
    assert not problems(build(facts, cx7, load_balancing="ecmp"), facts, "ar-nic-unsupported")
    assert not problems(build(facts, CLOS, load_balancing="adaptive"), facts, "ar-nic-unsupported")


def test_adaptive_routing_and_bonds(facts):
    fabric = build(facts, CLOS, load_balancing="adaptive")  # 8 ports of a server on one leaf
    (problem,) = problems(fabric, facts, "ar-on-bond")
    assert problem.severity == "info" and problem.count == 8
    rail = build(facts, {**CLOS, "topology": "rail-optimized"}, load_balancing="adaptive")
    assert not problems(rail, facts, "ar-on-bond")


# --- multiplane ---------------------------------------------------------------------------------


def test_multiplane_mode_the_nic_lacks(facts, b300):
    fabric = build(facts, CLOS, multiplane_mode="hwplb")  # BlueField-3: not hwplb
    (problem,) = problems(fabric, facts, "multiplane-mode-unsupported")
    assert "hwplb" in problem.message and "ConnectX-8" in problem.suggestion
    assert not problems(b300, facts, "multiplane-mode-unsupported")


def test_planes_times_plane_speed_is_the_nic_speed(facts, b300):
    fabric = copy.deepcopy(b300)
    fabric.link_speed_gbps[fabric.link_tier == TIER["server-leaf"]] = 200
    (problem,) = problems(fabric, facts, "multiplane-speed-mismatch")
    assert "2 planes x 200G = 400G" in problem.message and "800G" in problem.message
    assert not problems(b300, facts, "multiplane-speed-mismatch")


def test_every_gpu_in_every_plane(facts, b300):
    fabric = copy.deepcopy(b300)
    down = np.flatnonzero(fabric.link_tier == TIER["server-leaf"])
    first = int(down[0])
    fabric.link_plane[down[(fabric.link_a[down] == fabric.link_a[first])]] = fabric.link_plane[
        first
    ]
    (problem,) = problems(fabric, facts, "multiplane-gpu-missing")
    assert problem.element_ids == [f"node:{fabric.node_name[int(fabric.link_a[first])]}"]
    assert not problems(b300, facts, "multiplane-gpu-missing")


def test_multiplane_mode_on_one_plane(facts, b300):
    single = copy.deepcopy(b300)
    single.link_plane[:] = 0
    assert problems(single, facts, "multiplane-single-plane")[0].severity == "warning"
    assert not problems(b300, facts, "multiplane-single-plane")


# --- InfiniBand ---------------------------------------------------------------------------------


def test_routing_engine_must_fit_the_topology(facts):
    dfp = build(facts, IB, type="infiniband", routing_engine="dfp")
    (problem,) = problems(dfp, facts, "ib-routing-engine-topology")
    assert problem.severity == "error" and "Dragonfly+" in problem.message
    minhop = build(facts, IB, routing_engine="minhop")
    assert problems(minhop, facts, "ib-routing-engine-topology")[0].severity == "warning"
    assert not problems(build(facts, IB), facts, "ib-routing-engine-topology")


def test_sharp_only_on_switches_that_run_it(facts, monkeypatch):
    fabric = build(facts, IB)
    assert fabric.settings.transport.infiniband.sharp is True  # Quantum-2
    assert not problems(fabric, facts, "ib-sharp-unsupported")
    monkeypatch.setitem(facts.parts, "QM9700", {**facts.parts["QM9700"], "asic": "Switch-IB"})
    (problem,) = problems(fabric, facts, "ib-sharp-unsupported")
    assert "QM9700 (Switch-IB)" in problem.message


def test_roce_checks_never_run_on_infiniband_and_back(facts, clos):
    ib = validate_fabric(build(facts, IB), facts)
    roce = validate_fabric(clos, facts)
    scope = {code: RULES[code].scope for code in RULES}
    assert {scope[c] for c in ib.rules_run} >= {"infiniband"}
    assert "roce" not in {scope[c] for c in ib.rules_run}
    assert "infiniband" not in {scope[c] for c in roce.rules_run}
    assert not {p.code for p in ib.problems if scope[p.code] == "roce"}
