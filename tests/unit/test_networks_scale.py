"""The cluster networks past two tiers: storage, converged and in-band fabrics of thousands of
nodes get pods of leaves under their own spines and cores above them (the standard folded
Clos, planner.domain.networks.tiers), and the in-band cores grow to take the OOB uplinks."""

import pytest

from planner.domain.fabric import FabricError
from planner.domain.networks import cluster_networks
from planner.domain.networks.tiers import spread_uplinks, three_tiers
from planner.domain.pipeline import build_fabric
from planner.domain.spec import parse_spec

NODES = 2_048  # 16,384 GPUs


def spec(networks, servers=NODES):
    return parse_spec(
        {
            "name": "scale",
            "topology": "rail-optimized",
            "server": "DGX-B300",
            "servers": servers,
            "switches": {"leaf": "Q3400-RA"},
            "networks": networks,
        }
    )


@pytest.fixture(scope="module")
def fabric(facts):
    return build_fabric(spec({}), facts)


def groups(plan):
    return {g.role: g for g in plan.switches}, {g.name: g.links for g in plan.link_groups}


def no_switch_over_its_ports(plan):
    for group in plan.switches:
        assert group.ports_used <= group.count * group.ports_each, group


def test_storage_of_thousands_of_nodes_is_three_tiers(fabric, facts):
    plan = cluster_networks(
        spec({"storage": {"leaf": "QM9700", "speed_gbps": 400}}), fabric, facts
    ).get("storage")
    switches, links = groups(plan)
    assert set(switches) == {"leaf", "spine", "core"}
    no_switch_over_its_ports(plan)
    assert links["node-leaf"] == 2 * NODES
    # 1:1 above the leaves: every leaf uplink is carried on to the cores
    assert links["spine-core"] == links["leaf-spine"]
    pods = plan.settings["pods"]
    assert sum(pods) == switches["leaf"].count
    assert switches["spine"].count == len(pods) * plan.settings["spines_per_pod"]
    # a spine uses half its ports down and half up
    assert switches["spine"].ports_used == 2 * links["leaf-spine"]


def test_in_band_grows_cores_then_tiers_and_takes_the_oob_uplinks(fabric, facts):
    plans = cluster_networks(
        spec({"inband": {"leaf": "SN4600C"}, "oob": {"leaf": "SN2201"}}), fabric, facts
    )
    inband, oob = plans.get("inband"), plans.get("oob")
    switches, links = groups(inband)
    oob_uplinks = sum(g.links for g in oob.link_groups if g.name == "uplinks")
    assert oob_uplinks > 64  # more than a core pair's free ports could take
    no_switch_over_its_ports(inband)
    assert "spine" in switches
    # the cores carry the spines' uplinks and every OOB uplink
    assert switches["core"].ports_used == links["spine-core"] + oob_uplinks
    # the OOB counts the in-band switches it manages, as built
    assert oob.managed_ports and dict(oob.managed_ports)["in-band switches"] == (
        inband.switch_count
    )


def test_fixed_cores_still_refuse_naming_the_field(fabric, facts):
    with pytest.raises(FabricError) as caught:
        cluster_networks(
            spec({"inband": {"leaf": "SN4600C", "cores": 2}, "oob": {"leaf": "SN2201"}}),
            fabric,
            facts,
        )
    assert caught.value.field in {"networks.inband.core", "networks.inband.leaf_uplinks"}


def test_three_tiers_keep_leaf_pairs_in_one_pod_and_spread_evenly():
    pods, per_pod, spine_used, core_ports, _ = three_tiers(
        "networks.inband", "in-band", [4] * 70, 10, "SN4600C", 64, unit=2
    )
    assert all(size % 2 == 0 for size in pods) and sum(pods) == 70
    assert per_pod == 4 and len(spine_used) == 4 * len(pods)
    assert max(spine_used) <= 64 and max(core_ports) <= 64
    assert sum(core_ports) == sum(spine_used) // 2 + 10
    assert max(spread_uplinks([3, 3, 3], 4)) - min(spread_uplinks([3, 3, 3], 4)) <= 1


def test_a_fourth_tier_is_refused_naming_the_spine():
    with pytest.raises(FabricError) as caught:
        three_tiers("networks.storage", "storage", [2] * 50, 0, "SN2201", 4)
    assert caught.value.field == "networks.storage.spine"


@pytest.mark.parametrize(
    "networks",
    [
        {"storage": {"leaf": "QM9700", "speed_gbps": 400}},
        {"inband": {"leaf": "SN4600C"}, "oob": {"leaf": "SN2201"}},
    ],
)
def test_three_tier_elements_match_the_counts_and_use_each_port_once(networks, facts):
    from collections import Counter

    from planner.domain.networks.elements import cluster_elements

    fabric = build_fabric(spec(networks), facts)
    elements = cluster_elements(fabric, facts)
    for name, plan in fabric.settings.networks.items():
        if name == "management":
            continue
        built = Counter(link.group for link in elements.links_of(name))
        assert built == {g["name"]: g["links"] for g in plan["link_groups"]}, name
    ends = Counter(
        end
        for link in elements.links
        for end in ((link.a_device, link.a_port), (link.b_device, link.b_port))
        if elements.device(end[0]) is not None and elements.device(end[0]).role != "customer-core"
    )
    assert max(ends.values()) == 1
    # every spine of a pod has links up (three tiers) and every core has links down
    spines = {d.name for d in elements.devices if d.role == "spine" and d.network != "compute"}
    cores = {d.name for d in elements.devices if d.role == "core" and d.network != "compute"}
    assert spines and cores
    assert cores <= {link.b_device for link in elements.links if link.group == "spine-core"}
    assert spines <= {link.a_device for link in elements.links if link.group == "spine-core"}
