"""The flow simulation knows the transport (issue 20 item 5): routing modes per transport
(rail, ecmp, flowlet, spraying, ib-ar; ``adaptive`` the old name of spraying), their rates on
small Clos fabrics worked by hand, the congestion tree (PFC pause spreading) of an incast,
the design's transport as the default, and how jobs and pages name them. Pure: no database."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from django.core.exceptions import ValidationError

from planner.analyses.flow import (
    ROUTING_LABELS,
    ROUTINGS,
    Flows,
    Network,
    canonical_routing,
    congestion_tree,
    route,
    simulate,
)
from planner.analyses.scenario import run_scenario, transport_defaults
from planner.analyses.traffic import incast
from planner.domain.transport import transport_from_dict
from tests.unit.test_flow import toy_fabric

C = 400e9  # every toy link, bit/s
GB = 1e9


def _name(net: Network, link: int) -> str:
    return f"{net.node_name[int(net.link_from[link])]}>{net.node_name[int(net.link_to[link])]}"


def _link(net: Network, a: str, b: str) -> int:
    names = net.node_name
    for i in range(2 * net.fabric_links):
        if names[net.link_from[i]] == a and names[net.link_to[i]] == b:
            return i
    raise KeyError((a, b))


# --- names -------------------------------------------------------------------------------------


def test_modes_have_names_and_the_old_name_still_works():
    assert ROUTINGS == ("rail", "ecmp", "flowlet", "spraying", "ib-ar", "opensm")
    assert set(ROUTING_LABELS) == set(ROUTINGS)
    assert canonical_routing("adaptive") == "spraying"
    with pytest.raises(ValueError, match="adaptive"):  # the message lists the old name too
        canonical_routing("magic")
    net = Network.from_fabric(toy_fabric(servers_per_pod=4, spines_per_pod=2))
    flows = Flows([0, 1], [2, 3], GB)
    assert (route(net, flows, "adaptive") != route(net, flows, "spraying")).nnz == 0
    with pytest.raises(ValueError, match="flowlets"):
        route(net, flows, "flowlet", flowlets=0)


# --- rates of each mode, by hand ---------------------------------------------------------------


@pytest.fixture(scope="module")
def cut():
    """3 leaves x 2 one-GPU servers, 2 spines, leaf0-spine0 failed. Flow A: gpu2 (leaf1) ->
    gpu0 (leaf0), which only spine1 reaches; flow B: gpu3 (leaf1) -> gpu4 (leaf2), either
    spine. Both leave leaf1; the leaf1 -> spine1 uplink is the one they can share."""
    net = Network.from_fabric(toy_fabric(servers_per_pod=6, leaves_per_pod=3, spines_per_pod=2))
    net = net.with_failures(links=[_link(net, "leaf0", "spine0") // 2])
    return net, Flows([2, 3], [0, 4], GB)


@pytest.mark.parametrize(
    ("routing", "share"),
    [
        # equal split: B puts half on leaf1>spine1 next to all of A: 1.5 r = C
        ("spraying", 2 / 3),
        ("adaptive", 2 / 3),
        # load-levelled: A (one candidate) first fills spine1's port, B's water level then
        # puts all of B on spine0: both at line rate
        ("ib-ar", 1.0),
        # d-mod-k: B's destination NIC is leaf 2's first (d = 2 x 2 + 0 = 4), 4 mod 2 = 0 ->
        # spine0; A has only spine1
        ("rail", 1.0),
    ],
)
def test_each_mode_gives_the_rates_worked_by_hand(cut, routing, share):
    net, flows = cut
    result = simulate(net, flows, routing)
    assert result.first_rates == pytest.approx([share * C, share * C], rel=1e-12)
    uplink = _link(net, "leaf1", "spine1")
    expected_on_uplink = {"spraying": 1.5, "adaptive": 1.5, "ib-ar": 1.0, "rail": 1.0}[routing]
    assert result.incidence[:, uplink].sum() == pytest.approx(expected_on_uplink)


@pytest.mark.parametrize("routing", ["ecmp", "flowlet"])
def test_hashed_modes_run_at_capacity_over_their_busiest_uplink(cut, routing):
    # Two flows leaving one leaf: each runs at C / (the load on the busiest uplink they use);
    # with ecmp the load is whole flows, with 4 flowlets quarters of them.
    net, flows = cut
    uplinks = [_link(net, "leaf1", "spine0"), _link(net, "leaf1", "spine1")]
    fractions = set()
    for seed in range(8):
        flowlets = 4 if routing == "flowlet" else None
        result = simulate(net, flows, routing, seed=seed, flowlets=flowlets)
        a = result.incidence[:, uplinks].toarray()
        fractions |= set(np.round(a.ravel() * 4).tolist())
        load = a.sum(axis=0)
        assert result.first_rates == pytest.approx([C / load.max()] * 2, rel=1e-12)
    assert fractions <= ({0.0, 4.0} if routing == "ecmp" else {0.0, 1.0, 2.0, 3.0, 4.0})
    if routing == "flowlet":  # flowlets of one flow do take different spines
        assert fractions & {1.0, 2.0, 3.0}


def test_one_flowlet_is_ecmp_and_more_flowlets_spread_the_load():
    net = Network.from_fabric(toy_fabric(servers_per_pod=4, spines_per_pod=2))
    flows = Flows([0, 1], [2, 3], GB)  # leaf0 -> leaf1, two spines
    for seed in range(5):
        ecmp = route(net, flows, "ecmp", seed=seed)
        assert (route(net, flows, "flowlet", seed=seed) != ecmp).nnz == 0  # default k = 1
        assert (route(net, flows, "flowlet", seed=seed, flowlets=1) != ecmp).nnz == 0
    # Two flows of 2 flowlets on 2 uplinks: 4 independent halves, X ~ Bin(4, 1/2) on uplink 0;
    # E[max load] = E[max(X, 4 - X)] / 2 = (2/16 * 4 + 8/16 * 3 + 6/16 * 2) / 2 = 1.375
    # (ecmp: 1.5). The max has a standard deviation of 0.33: 600 seeds, standard error 0.014.
    uplinks = np.flatnonzero(
        (net.link_from == net.gpu_leaf[0]) & net.is_switch[np.maximum(net.link_to, 0)]
    )
    loads = [
        route(net, flows, "flowlet", seed=s, flowlets=2)[:, uplinks].sum(axis=0).max()
        for s in range(600)
    ]
    assert np.mean(loads) == pytest.approx(1.375, abs=0.06)


def test_ib_ar_is_the_equal_split_on_a_healthy_clos():
    net = Network.from_fabric(toy_fabric(servers_per_pod=8, leaves_per_pod=2, spines_per_pod=4))
    flows = Flows(np.arange(4), np.arange(4, 8), GB)
    ar, sprayed = route(net, flows, "ib-ar"), route(net, flows, "spraying")
    assert np.allclose(ar.toarray(), sprayed.toarray())
    assert simulate(net, flows, "ib-ar").first_rates == pytest.approx([C] * 4)


# --- congestion tree ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def incast_net():
    """2 leaves x 2 one-GPU servers (srv0, srv1 on leaf0; srv2, srv3 on leaf1), 2 spines."""
    return Network.from_fabric(toy_fabric(servers_per_pod=4, leaves_per_pod=2, spines_per_pod=2))


def test_incast_pause_spreads_to_exactly_the_upstream_links(incast_net):
    net = incast_net
    result = simulate(net, incast(np.arange(4), GB, target=0), "spraying")
    report = congestion_tree(net, result.incidence, result.sub_flows, parent=result.sub_parent)
    assert report.spreads and report.hot_port_count == 1
    (hot,) = report.hot_ports
    assert _name(net, hot.link) == "leaf0>srv0" and hot.offered == pytest.approx(3.0)
    assert hot.flows == 3 and hot.victims == 0
    tree = {_name(net, p.link): (p.hops, p.flows) for p in hot.tree}
    assert tree == {
        "srv1>leaf0": (1, 1),
        "spine0>leaf0": (1, 2),
        "spine1>leaf0": (1, 2),
        "leaf1>spine0": (2, 2),
        "leaf1>spine1": (2, 2),
        "srv2>leaf1": (3, 1),
        "srv3>leaf1": (3, 1),
    }
    assert sorted(_name(net, i) for i in report.paused_links()) == sorted(tree)
    # lossy: ECN marks at the same hot port, nothing spreads; the tree stays for comparison
    lossy = congestion_tree(net, result.incidence, result.sub_flows, flow_control="lossy")
    assert not lossy.spreads and lossy.paused_links().size == 0
    assert lossy.hot_ports[0].link == hot.link and len(lossy.hot_ports[0].tree) == 7
    semi = congestion_tree(net, result.incidence, result.sub_flows, flow_control="semi-lossless")
    assert not semi.spreads
    assert congestion_tree(net, result.incidence, result.sub_flows, flow_control="credit").spreads
    with pytest.raises(ValueError, match="flow_control"):
        congestion_tree(net, result.incidence, result.sub_flows, flow_control="pause")


def test_the_tree_follows_the_routes_and_counts_victims(incast_net):
    net = incast_net
    # ecmp: one path per flow, so only the spines the hash chose are in the tree
    flows = incast(np.arange(4), GB, target=0)
    result = simulate(net, flows, "ecmp", seed=1)
    report = congestion_tree(net, result.incidence, result.sub_flows)
    hot = next(h for h in report.hot_ports if _name(net, h.link) == "leaf0>srv0")
    used = {_name(net, i) for i in result.incidence.indices}
    expected = used - {"leaf0>srv0"}
    assert {_name(net, p.link) for p in hot.tree} == expected
    # a flow srv3 -> srv1 shares leaf1's uplinks and a spine's port to leaf0 with the incast,
    # never the hot port: a victim of its pause
    more = Flows(np.append(flows.src, 3), np.append(flows.dst, 1), GB)
    result = simulate(net, more, "spraying")
    report = congestion_tree(net, result.incidence, result.sub_flows)
    hot = report.hot_ports[0]
    assert _name(net, hot.link) == "leaf0>srv0"
    assert hot.offered == pytest.approx(2.5)  # srv3's NIC is shared by its two flows
    assert hot.flows == 3 and hot.victims == 1


def test_a_non_blocking_ring_has_no_hot_port():
    net = Network.from_fabric(toy_fabric(servers_per_pod=4, spines_per_pod=2))
    result = simulate(net, Flows([0, 1, 2, 3], [1, 2, 3, 0], GB), "spraying")
    report = congestion_tree(net, result.incidence, result.sub_flows)
    assert report.hot_port_count == 0 and report.hot_ports == ()


# --- the design's transport ----------------------------------------------------------------------


def _roce(**given) -> dict:
    return {"transport": "roce", "roce": {"pfc_mode": "lossless", **given}}


def _with_roce(fabric, **given) -> None:
    fabric.settings = replace(fabric.settings, transport=transport_from_dict(_roce(**given)))


@pytest.mark.parametrize(
    ("transport", "routing", "flow_control"),
    [
        (None, "ecmp", "lossless"),
        (
            {
                "transport": "infiniband",
                "infiniband": {
                    "routing_engine": "ar_updn",
                    "adaptive_routing": True,
                    "shield": True,
                    "sharp": False,
                },
            },
            "ib-ar",
            "credit",
        ),
        (
            {
                "transport": "infiniband",
                "infiniband": {
                    "routing_engine": "ftree",
                    "adaptive_routing": False,
                    "shield": True,
                    "sharp": False,
                },
            },
            "rail",
            "credit",
        ),
        (_roce(load_balancing="adaptive"), "spraying", "lossless"),
        (_roce(load_balancing="spraying"), "spraying", "lossless"),
        (_roce(load_balancing="flowlet"), "flowlet", "lossless"),
        (_roce(load_balancing="ecmp", pfc_mode="lossy"), "ecmp", "lossy"),
    ],
)
def test_the_default_routing_follows_the_transport(transport, routing, flow_control):
    defaults = transport_defaults(transport_from_dict(transport) if transport else None)
    assert (defaults.routing, defaults.flow_control) == (routing, flow_control)


def test_a_scenario_takes_the_design_transport_and_reports_the_congestion():
    fabric = toy_fabric(servers_per_pod=4, leaves_per_pod=2, spines_per_pod=2)
    _with_roce(fabric, load_balancing="adaptive", pfc_mode="lossy")
    out = run_scenario(fabric, traffic="incast", size_bytes=GB)
    assert out["routing"] == "spraying"
    congestion = out["congestion"]
    assert congestion["flow_control"] == "lossy" and not congestion["spreads"]
    assert "RoCE" in congestion["basis"] and congestion["paused_links"] == 0
    (hot,) = congestion["hot_ports"]
    assert (hot["from"], hot["to"], hot["tier"]) == ("leaf0", "srv0", "server-leaf")
    assert hot["tree_links"] == 7 and hot["tree_by_hops"] == {"1": 3, "2": 2, "3": 2}
    assert hot["tree"][0]["hops"] == 1 and hot["tree"][-1]["hops"] == 3
    # a job's own choices win; the old name is reported as the mode it is now
    out = run_scenario(
        fabric, traffic="incast", routing="adaptive", pfc_mode="lossless", size_bytes=GB
    )
    assert out["routing"] == "spraying" and out["congestion"]["paused_links"] == 7
    assert out["congestion"]["basis"] == ""  # chosen for the run, not the design's
    out = run_scenario(fabric, traffic="permutation", routing="flowlet", flowlets=3)
    assert out["flowlets"] == 3
    out = run_scenario(fabric, traffic="permutation", routing="ecmp", summary_only=True)
    assert "congestion" not in out


# --- jobs and pages ------------------------------------------------------------------------------


def test_job_parameters_accept_the_modes_by_name():
    from simulation.jobs.parameters import SimulateParameters

    _clean_simulate = SimulateParameters.clean

    assert _clean_simulate({"routing": "adaptive"})["routing"] == "spraying"  # stored as the mode
    assert _clean_simulate({"routing": "ib-ar"})["routing"] == "ib-ar"
    assert "routing" not in _clean_simulate({})  # the design's, when the job is checked
    cleaned = _clean_simulate({"routing": "flowlet", "flowlets": 4, "seeds": 3})
    assert cleaned["flowlets"] == 4 and cleaned["seeds"] == 3
    assert _clean_simulate({"pfc_mode": "lossy"})["pfc_mode"] == "lossy"
    for bad, field in (
        ({"routing": "magic"}, "routing"),
        ({"routing": "ecmp", "flowlets": 4}, "flowlets"),
        ({"routing": "flowlet", "flowlets": 65}, "flowlets"),
        ({"routing": "spraying", "seeds": 3}, "seeds"),
        ({"pfc_mode": "pause"}, "pfc_mode"),
    ):
        with pytest.raises(ValidationError) as caught:
            _clean_simulate(bad)
        assert str(caught.value.message_dict["parameters"][0]).startswith(f"{field}:")


class _Revision:
    """What the job check reads of a revision (no database): its stored fabric and summary."""

    number = 1
    summary: dict = {}

    def __init__(self, topology: bytes):
        self.topology = topology

    def get_deferred_fields(self):
        return set()


def test_a_job_without_routing_gets_the_design_transport():
    from planner.designs.adapters import fabric_pack
    from simulation.jobs.kinds import _check_simulate
    from simulation.jobs.parameters import SimulateParameters

    _clean_simulate = SimulateParameters.clean

    fabric = toy_fabric(servers_per_pod=4, spines_per_pod=2)
    _with_roce(fabric, load_balancing="flowlet")
    parameters = _clean_simulate({"traffic": "permutation"})
    _check_simulate(parameters, _Revision(fabric_pack(fabric)))
    assert parameters["routing"] == "flowlet"
    plain = _clean_simulate({"traffic": "permutation", "seeds": 3})
    _check_simulate(plain, _Revision(fabric_pack(toy_fabric())))  # no transport: ecmp
    assert plain["routing"] == "ecmp"
    _with_roce(fabric, load_balancing="adaptive")
    monte_carlo = _clean_simulate({"traffic": "permutation", "seeds": 3})
    with pytest.raises(ValidationError, match="seeds"):  # spraying has no hash to vary
        _check_simulate(monte_carlo, _Revision(fabric_pack(fabric)))


def test_pages_name_the_modes_and_the_paused_links_by_port():
    from simulation.presentation import ElementNames, parameter_rows, simulation_context

    fabric = toy_fabric(servers_per_pod=4, leaves_per_pod=2, spines_per_pod=2)
    result = run_scenario(fabric, traffic="incast", routing="spraying", size_bytes=GB)
    page = simulation_context(result, ElementNames(fabric))
    assert page["routing_label"] == "Packet spraying (Spectrum-X, equal split)"
    congestion = page["congestion"]
    assert congestion["spreads"] and "7 links" in congestion["summary"]
    (port,) = congestion["ports"]
    assert port["name"] == "leaf0 port 1 → srv0 port 1, down"  # incast to rank 0
    assert port["offered"] == "3.00 ×" and port["tree_text"] == "7 links"
    names = [link["name"] for link in port["tree"]]
    assert names[0] == "srv1 port 1 → leaf0 port 1, up"  # nearest first (toy leaves: port 1)
    assert all("link" not in name for name in names)
    assert "head-of-line blocking" in congestion["assumptions"]
    rows = dict(parameter_rows({"routing": "adaptive", "pfc_mode": "lossy", "flowlets": 2}))
    assert rows["Routing"] == "Packet spraying (Spectrum-X, equal split)"
    assert rows["Flow control (congestion report)"] == "lossy (ECN only)"
    assert rows["Flowlets per flow"] == "2"


def test_on_two_planes_a_flow_counts_once_and_each_plane_has_its_hot_port():
    from tests.unit.test_flow_planes import multi_plane_fabric

    net = Network.from_fabric(multi_plane_fabric(2, servers=4))
    flows = incast(np.array([0, 2, 4, 6]), GB, target=0)  # GPU 0 of each server: 3 senders
    result = simulate(net, flows, "spraying")
    assert len(result.sub_flows) == 6  # each flow one part per plane
    report = congestion_tree(net, result.incidence, result.sub_flows, parent=result.sub_parent)
    hot = {_name(net, h.link) for h in report.hot_ports}
    assert report.hot_port_count == 2 and len({net.link_to[h.link] for h in report.hot_ports}) == 1
    for port in report.hot_ports:  # the receiver's NIC link in each plane, 3 x its capacity
        assert port.offered == pytest.approx(3.0) and port.flows == 3
        nic = [p for p in port.tree if not net.is_switch[net.link_from[p.link]]]
        assert len(nic) == 3 and all(p.flows == 1 for p in nic)  # one per sender, this plane
    assert len(hot) == 2


@pytest.mark.parametrize("routing", ["spraying", "ib-ar"])
def test_split_modes_route_one_flow_per_leaf_pair_as_every_flow_would(monkeypatch, routing):
    # The flows of one (source leaf, target leaf) pair share their switch hops, so routing a
    # representative (for ib-ar carrying the pair's bytes) and copying it gives the routes
    # that routing every flow on its own gives.
    from planner.analyses.flow import incidence
    from planner.analyses.traffic import all_to_all, permutation

    fabric = toy_fabric(pods=2, servers_per_pod=4, leaves_per_pod=2, spines_per_pod=3, cores=3)
    base = Network.from_fabric(fabric)
    compared = 0
    for seed in range(3):
        net = base.with_failures(random_links=2, seed=seed) if seed else base
        rng = np.random.default_rng(seed)
        ranks = np.arange(net.gpu_count)
        for pattern in (permutation(ranks, 1, seed=seed), all_to_all(ranks, 1), incast(ranks, 1)):
            flows = Flows(pattern.src, pattern.dst, rng.lognormal(15, 1, len(pattern)))
            by_pair = route(net, flows, routing)
            monkeypatch.setattr(incidence, "SPLIT_BY_LEAVES", ())
            each = route(net, flows, routing)
            monkeypatch.undo()
            assert by_pair.nnz == each.nnz
            assert abs(by_pair - each).max() < 1e-12
            compared += 1
    assert compared == 9


@pytest.mark.parametrize("routing", ["spraying", "ib-ar"])
def test_links_carrying_the_same_flows_alike_run_as_one(routing):
    # A leaf's sprayed uplinks carry the same flows with the same weights: merged into one
    # constraint they give the same max-min rates, and unmerged the same routes.
    from planner.analyses.flow import max_min_rates
    from planner.analyses.flow.incidence import unmerge
    from planner.analyses.traffic import all_to_all, permutation

    fabric = toy_fabric(pods=2, servers_per_pod=4, leaves_per_pod=2, spines_per_pod=3, cores=3)
    base = Network.from_fabric(fabric)
    merged_any = 0
    for seed in range(3):
        net = base.with_failures(random_links=2, seed=seed) if seed else base
        rng = np.random.default_rng(seed)
        ranks = np.arange(net.gpu_count)
        cap = np.where(net.alive, net.capacity, 0.0)
        for pattern in (permutation(ranks, 1, seed=seed), all_to_all(ranks, 1), incast(ranks, 1)):
            flows = Flows(pattern.src, pattern.dst, rng.lognormal(15, 1, len(pattern)))
            full = route(net, flows, routing)
            small, merged = route(net, flows, routing, merge_links=True)
            if merged is None:
                assert abs(small - full).max() == 0
                continue
            merged_any += 1
            assert small.nnz < full.nnz
            assert (merged <= np.arange(merged.size)).all()  # the lowest index represents
            assert abs(unmerge(small, merged) - full).max() == 0
            assert np.allclose(max_min_rates(small, cap), max_min_rates(full, cap), rtol=1e-12)
    assert merged_any == 9
