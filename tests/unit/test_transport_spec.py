"""The spec's ``transport`` block (issue 20): defaults from the leaf switch and the vendor
profiles reach the built fabric; bad input is refused naming the field."""

import pytest

from planner.domain.pipeline import build_fabric
from planner.domain.spec import SpecError, parse_spec

ETHERNET = {
    "name": "eth",
    "topology": "clos",
    "server": "XE9680",
    "servers": 4,
    "switches": {"leaf": "QFX5240-64OD"},
}
INFINIBAND = {**ETHERNET, "server": "DGX-H100", "switches": {"leaf": "QM9700"}}


def refused(facts, spec) -> list[tuple[str, str]]:
    with pytest.raises(SpecError) as caught:
        build_fabric(parse_spec(spec), facts)
    return caught.value.problems


def test_transport_defaults_from_the_leaf_switch_and_its_profile(facts):
    roce = build_fabric(parse_spec(ETHERNET), facts).settings.transport
    assert roce.transport == "roce" and roce.infiniband is None
    assert roce.roce.profile == "juniper"  # the QFX leaf's manufacturer
    assert roce.sources["roce.profile"].startswith("inferred")
    assert roce.roce.nics["B3140H"].data_priority == 3  # the XE9680's NIC, NVIDIA profile
    assert "docs.nvidia.com" in roce.sources["roce.nics.B3140H.cnp_priority"]
    ib = build_fabric(parse_spec(INFINIBAND), facts).settings.transport
    assert ib.transport == "infiniband" and ib.roce is None
    assert (ib.infiniband.routing_engine, ib.infiniband.adaptive_routing) == ("ar_updn", True)
    assert "opensm.conf" in ib.sources["infiniband.adaptive_routing"]


def test_given_values_win_over_the_profile_and_the_spec_round_trips(facts):
    spec = parse_spec(
        {
            **ETHERNET,
            "transport": {
                "profile": "nvidia-spectrum-x",
                "ecn_max_kb": 3000,
                "mtu_b": 9216,
                "nics": {"B3140H": {"cnp_dscp": 4}},
            },
        }
    )
    assert parse_spec(spec.as_dict()) == spec
    settings = build_fabric(spec, facts).settings.transport
    assert (settings.roce.ecn_min_kb, settings.roce.ecn_max_kb) == (150, 3000)
    assert settings.sources["roce.ecn_max_kb"] == "spec"
    assert "Onyx" in settings.sources["roce.ecn_min_kb"]
    assert settings.roce.nics["B3140H"].cnp_dscp == 4
    assert parse_spec({**ETHERNET, "transport": "roce"}).transport == {"type": "roce"}
    assert "transport" not in parse_spec(ETHERNET).as_dict()


@pytest.mark.parametrize(
    ("transport", "field", "words"),
    [
        ({"cnp_dscp": 64}, "transport.cnp_dscp", "maximum of 63"),
        ({"lossless_dscp": [26, -1]}, "transport.lossless_dscp.1", "minimum of 0"),
        ({"lossless_priority": 8}, "transport.lossless_priority", "maximum of 7"),
        ({"nics": {"B3140H": {"data_priority": 9}}}, "transport.nics.B3140H.data_priority", "7"),
        ({"ecn_min_kb": 1500, "ecn_max_kb": 150}, "transport.ecn_min_kb", "not below"),
        ({"profile": "hpe"}, "transport.profile", "is not one of"),
        ({"nics": {"B3140H": {"profile": "gaudi"}}}, "transport.nics.B3140H.profile", "not one"),
        ("rocev2", "transport", "did you mean 'roce'"),
        ({"type": "infiniband", "ecn_max_kb": 10}, "transport.ecn_max_kb", "applies to RoCE"),
        ({"type": "roce", "sharp": True}, "transport.sharp", "applies to InfiniBand"),
        ({"pfc": "lossless"}, "transport", "unknown key(s): pfc"),
    ],
)
def test_bad_input_is_refused_naming_the_field(transport, field, words):
    with pytest.raises(SpecError) as caught:
        parse_spec({**ETHERNET, "transport": transport})
    fields = dict(caught.value.problems)
    assert field in fields and words in fields[field], caught.value.problems


def test_input_the_catalog_refuses_names_the_field(facts):
    unknown = refused(facts, {**ETHERNET, "transport": {"nics": {"CX-99": {}}}})
    assert unknown == [
        ("transport.nics.CX-99", "no NIC part or server model 'CX-99' in the catalog")
    ]
    above = dict(refused(facts, {**ETHERNET, "transport": {"ecn_max_kb": 200_000}}))
    assert "165.2 MB packet buffer of QFX5240-64OD" in above["transport.ecn_max_kb"]
    wrong = dict(refused(facts, {**ETHERNET, "transport": "infiniband"}))
    assert "QFX5240-64OD speaks ethernet" in wrong["transport.type"]
    ok = build_fabric(parse_spec({**ETHERNET, "transport": {"ecn_max_kb": 150_000}}), facts)
    assert ok.settings.transport.roce.ecn_max_kb == 150_000
