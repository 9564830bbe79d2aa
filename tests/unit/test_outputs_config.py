"""Day-0 configuration (planner.domain.outputs.config): the intent, and its NVUE, SONiC, EOS and
opensm renderings compared with the vendors' documented examples.

Reference fragments (short, asserted on):

- NVIDIA Cumulus Linux 5.14, "RDMA over Converged Ethernet - RoCE"
  (https://docs.nvidia.com/networking-ethernet-software/cumulus-linux-514/Layer-1-and-Switch-Ports/Quality-of-Service/RDMA-over-Converged-Ethernet-RoCE/):
  ``nv set qos roce mode lossless``; to move the lossless priority from 3 to 2:
  ``nv set qos pfc default-global switch-priority 2``, ``nv set qos egress-queue-mapping
  default-global switch-priority 2 traffic-class 3``, ``... switch-priority 3 traffic-class 0``,
  ``nv set qos mapping default-global dscp 26 switch-priority 2``.
- Cumulus "Quality of Service" (same guide): ``nv set qos mapping default-global trust l3``,
  ``nv set interface swp1 qos pfc-watchdog``, ``nv set qos congestion-control default-global
  traffic-class 4,5,7 min-threshold 40000`` (bytes; the default profile's 150000 / 1500000).
- Cumulus "Switch Port Attributes": ``nv set interface swp1 link breakout 2x``, split ports
  ``swp1s0``, ``swp1s1``; ``nv set interface swp1 link mtu 1500``.
- NVUE reference, adaptive routing: ``nv set router adaptive-routing enable on``,
  ``nv set interface swp51 router adaptive-routing enable on``.
- SONiC ``Configuration.md`` (sonic-buildimage ``src/sonic-yang-models/doc``): "2x100G port
  breakout" names the halves of an 8-lane port ``Ethernet0`` and ``Ethernet4``; ``BUFFER_PG``
  ``"Ethernet0|3-4": {"profile": "NULL"}`` in the dynamic model; ``CABLE_LENGTH`` ``{"AZURE":
  {"Ethernet8": "5m"}}``; ``BREAKOUT_CFG`` ``brkout_mode``. ``files/build_templates/
  qos_config.j2``: ``WRED_PROFILE`` ``AZURE_LOSSLESS`` (``wred_green_enable``, ``ecn: ecn_all``,
  ``green_min_threshold`` ...), ``PORT_QOS_MAP`` keys ``dscp_to_tc_map``, ``tc_to_queue_map``,
  ``tc_to_pg_map``, ``pfc_to_queue_map``, ``pfc_enable``, ``pfcwd_sw_enable``.
- Arista AVD ``eos_cli_config_gen`` expected configs (``qos.cfg``, ``documentation/devices/
  qos.md``): ``qos map dscp 46 to traffic-class 5``, ``qos map traffic-class 6 to tx-queue 2``,
  ``priority-flow-control priority 0 no-drop``, ``random-detect ecn minimum-threshold 320
  kbytes maximum-threshold 320 kbytes max-mark-probability 90``, ``priority strict``.
- EOS "Layer 1 Profiles" (https://www.arista.com/en/um-eos/eos-layer-1-profiles): an OSFP cage
  numbered 1 exposes ``Ethernet1/1`` to ``Ethernet1/8``.
- InfiniBand Cluster Bring-up (NVIDIA): ``routing_engine`` default ``ar_updn``; SHIELD off with
  ``shield_mode 0`` (NVIDIA's OpenSM only: upstream 3.3.23 names it an unrecognized token).
"""

from __future__ import annotations

import csv
import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from planner.domain.outputs import cabling_csv_lines, netbox_cable_lines
from planner.domain.outputs.config import ConfigError, config_chunks
from planner.domain.outputs.config.eos import eos_switch_lines
from planner.domain.outputs.config.intent import (
    FabricIntent,
    InterfaceIntent,
    PortLayout,
    SwitchIntent,
    switch_intents,
    transport_of,
)
from planner.domain.outputs.config.nvue import nvue_switch_lines
from planner.domain.outputs.config.opensm import (
    UPSTREAM_ENGINES,
    UPSTREAM_OPTIONS,
    opensm_chunks,
)
from planner.domain.outputs.config.sonic import sonic_config
from planner.domain.pipeline import build_fabric
from planner.domain.spec import parse_spec
from planner.domain.transport import TransportSettings, pfc_xoff_bytes, transport_from_dict
from planner.domain.transport.settings import default_infiniband, default_roce

EXAMPLES = Path(__file__).resolve().parents[2] / "planner" / "domain" / "examples"


def _fabric(facts, example: str, servers: int, **extra):
    spec = yaml.safe_load((EXAMPLES / f"{example}.yaml").read_text())
    return build_fabric(parse_spec({**spec, "servers": servers, **extra}), facts)


@pytest.fixture(scope="module")
def spectrum(facts):
    """DGX B300 on SN5600, 2 x 400G per 800G cage (8 servers)."""
    return _fabric(facts, "b300-spectrum-x-twin-plane", 8)


@pytest.fixture(scope="module")
def clos(facts):
    """XE9680 on SN5600 leaves and spines (switch-to-switch links for adaptive routing)."""
    return _fabric(facts, "clos-3to1", 16)


@pytest.fixture(scope="module")
def arista(facts):
    return _fabric(facts, "arista-7060x6-rail", 8)


@pytest.fixture(scope="module")
def quantum(facts):
    return _fabric(facts, "h100-superpod-1su", 4)


def _text(fmt, fabric, facts, name="Test design"):
    return "".join(config_chunks(fmt, fabric, facts, name=name, revision=2))


def _settings(**roce) -> TransportSettings:
    return TransportSettings("roce", replace(default_roce("nvidia-spectrum-x"), **roce), None)


def _header(settings: TransportSettings) -> FabricIntent:
    return FabricIntent("Doc", 1, settings, False, 1)


def _port(cage, index, layout, peer_role="server", length=5.0, ar=False, **extra):
    return InterfaceIntent(
        port=f"{cage}/{index + 1}",
        cage=cage,
        index=index,
        names=layout.names(cage, index),
        speed_gbps=extra.get("speed", 400),
        peer="gpu01" if peer_role == "server" else "spine01",
        peer_port="1",
        peer_role=peer_role,
        label="R1.U01.P1/R2.U40.P1.1",
        cable_length_m=length,
        lossless=True,
        pfc_xoff_b=None,
        adaptive_routing=ar,
    )


def _switch(manufacturer="nvidia", settings=None, interfaces=None, mtu=None):
    layout = PortLayout(per_cage=2, native_per_cage=1, lanes_per_cage=8)
    ports = interfaces or (_port(1, 0, layout), _port(1, 1, layout))
    return SwitchIntent(
        name="leaf01",
        role="leaf",
        model="SN5600",
        manufacturer=manufacturer,
        protocols=("ethernet",),
        layout=layout,
        mtu_b=mtu,
        interfaces=tuple(ports),
        qos={},
    )


# --- interface names -------------------------------------------------------------------------


def test_interface_names_follow_the_cabling_plan_and_netbox(spectrum, facts):
    settings, _ = transport_of(spectrum, facts)
    intents = list(switch_intents(spectrum, facts, settings))
    ours = {(s.name, i.port) for s in intents for i in s.interfaces}
    plan = list(csv.DictReader(cabling_csv_lines(spectrum, facts)))
    switches = {s.name for s in intents}
    in_plan = {(r[f"{e}_device"], r[f"{e}_port"]) for r in plan for e in "ab"}
    assert ours == {end for end in in_plan if end[0] in switches}
    netbox = list(csv.DictReader(netbox_cable_lines(spectrum, facts)))
    in_netbox = {(r[f"side_{e}_device"], r[f"side_{e}_name"]) for r in netbox for e in "ab"}
    assert ours == {end for end in in_netbox if end[0] in switches}
    for switch in intents:
        assert switch.layout.legs == 2 and switch.layout.lanes_per_port == 4
        for interface in switch.interfaces:
            cage, sub = (int(x) for x in interface.port.split("/"))
            # NVIDIA Spectrum: the Cumulus and SONiC names; EOS does not run on it
            assert interface.names == {
                "nvue": f"swp{cage}s{sub - 1}",  # swp1s0, swp1s1 (Cumulus breakout ports)
                "sonic": f"Ethernet{(cage - 1) * 8 + (sub - 1) * 4}",  # Ethernet0, Ethernet4
            }
            assert (
                switch.layout.names(cage, sub - 1)["eos"] == f"Ethernet{cage}/{(sub - 1) * 4 + 1}"
            )


def test_port_layout_names_unsplit_and_unknown_ports():
    whole = PortLayout(per_cage=1, native_per_cage=1, lanes_per_cage=8)
    assert whole.names(64, 0) == {"nvue": "swp64", "sonic": "Ethernet504", "eos": "Ethernet64/1"}
    assert PortLayout(1, 1, 1).names(5, 0)["eos"] == "Ethernet5"  # one-lane port (SFP)
    twin = PortLayout(per_cage=2, native_per_cage=2, lanes_per_cage=None)
    assert twin.names(3, 1) == {} and twin.legs == 1


# --- NVUE ------------------------------------------------------------------------------------


def test_nvue_default_nvidia_profile_matches_cumulus_docs():
    layout = PortLayout(per_cage=2, native_per_cage=1, lanes_per_cage=8)
    uplink = _port(33, 0, layout, peer_role="spine", length=29.2, ar=True)
    switch = _switch(interfaces=(_port(1, 0, layout), _port(1, 1, layout), uplink), mtu=9216)
    lines = list(nvue_switch_lines(_header(_settings(load_balancing="adaptive")), switch))
    assert lines[0].startswith("# ---- switch leaf01 ")
    assert lines[-1] == "nv config apply"
    for documented in (
        "nv set qos roce mode lossless",
        "nv set qos mapping default-global trust l3",
        "nv set qos pfc default-global switch-priority 3",
        "nv set qos congestion-control default-global traffic-class 3 min-threshold 150000",
        "nv set qos congestion-control default-global traffic-class 3 max-threshold 1500000",
        "nv set router adaptive-routing enable on",
        "nv set interface swp1,swp33 link breakout 2x",
        "nv set interface swp1s0 link mtu 9216",
        "nv set interface swp1s0 qos pfc-watchdog",
        "nv set interface swp33s0 router adaptive-routing enable on",
    ):
        assert documented in lines, documented
    # headroom for the longest cable of the switch, whole metres rounded up
    assert "nv set qos pfc default-global cable-length 30" in lines
    # adaptive routing only on the ECMP (switch-to-switch) ports
    assert "nv set interface swp1s0 router adaptive-routing enable on" not in lines


def test_nvue_moves_the_lossless_priority_as_the_roce_guide_does():
    settings = _settings(lossless_priority=2, lossless_dscp=(26,))
    lines = list(nvue_switch_lines(_header(settings), _switch()))
    for documented in (
        "nv set qos pfc default-global switch-priority 2",
        "nv set qos egress-queue-mapping default-global switch-priority 2 traffic-class 3",
        "nv set qos egress-queue-mapping default-global switch-priority 3 traffic-class 0",
        "nv set qos mapping default-global dscp 26 switch-priority 2",
    ):
        assert documented in lines, documented


def test_nvue_lossy_and_semi_lossless_modes():
    lossy = list(nvue_switch_lines(_header(_settings(pfc_mode="lossy")), _switch()))
    assert "nv set qos roce mode lossy" in lossy
    assert not [line for line in lossy if " pfc" in line]  # no PFC, no watchdog
    semi = list(nvue_switch_lines(_header(_settings(pfc_mode="semi-lossless")), _switch()))
    assert "nv set qos roce mode lossless" in semi
    assert "nv set qos pfc default-global tx disable" in semi  # honours pause, sends none


def test_nvue_file_for_a_spectrum_design(spectrum, facts):
    text = _text("nvue", spectrum, facts)
    sections = text.count("\n# ---- switch ")
    assert sections == int((spectrum.node_role >= 2).sum())  # every switch, one section
    assert text.count("\nnv config apply\n") == sections
    assert "nv set interface swp1s0 description 'gpu00001 1/1 " in text


# --- SONiC -----------------------------------------------------------------------------------


def test_sonic_fragment_uses_config_db_tables_and_template_keys():
    switch = _switch(mtu=9100)
    config = sonic_config(_header(_settings(lossless_dscp=(26,))), switch)
    # alias, lanes, index: SN5600's platform.json, cage 1 as 2x400G (sonic_platforms/SN5600.json)
    assert config["PORT"]["Ethernet0"] == {
        "alias": "etp1a",
        "lanes": "0,1,2,3",
        "index": "1",
        "subport": "1",
        "admin_status": "up",
        "speed": "400000",
        "fec": "rs",
        "mtu": "9100",
        "description": "gpu01 port 1",
    }
    assert config["PORT"]["Ethernet4"]["lanes"] == "4,5,6,7"
    assert set(config["PORT"]) == {"Ethernet0", "Ethernet4"}  # "2x100G port breakout" names
    mode = "2x400G[200G,100G,50G,40G,25G,10G]"  # the platform file's key for the mode
    assert config["BREAKOUT_CFG"] == {"Ethernet0": {"brkout_mode": mode}}
    # NULL profiles are the dynamic model's, which the file states
    assert config["DEVICE_METADATA"] == {"localhost": {"buffer_model": "dynamic"}}
    assert config["BUFFER_PG"]["Ethernet0|3"] == {"profile": "NULL"}
    assert config["CABLE_LENGTH"] == {"AZURE": {"Ethernet0": "5m", "Ethernet4": "5m"}}
    qos = config["PORT_QOS_MAP"]["Ethernet4"]
    template_keys = {"dscp_to_tc_map", "tc_to_queue_map", "tc_to_pg_map", "pfc_to_queue_map"}
    assert set(qos) == template_keys | {"pfc_enable", "pfcwd_sw_enable"}
    assert qos["pfc_enable"] == qos["pfcwd_sw_enable"] == "3"
    dscp = config["DSCP_TO_TC_MAP"]["AZURE"]
    assert len(dscp) == 64 and dscp["26"] == "3" and dscp["48"] == "6" and dscp["24"] == "0"
    wred = config["WRED_PROFILE"]["AZURE_LOSSLESS"]
    assert wred["ecn"] == "ecn_all" and wred["wred_green_enable"] == "true"
    assert (wred["green_min_threshold"], wred["green_max_threshold"]) == ("150000", "1500000")
    assert config["QUEUE"]["Ethernet0|3"]["wred_profile"] == "AZURE_LOSSLESS"
    strict = config["QUEUE"]["Ethernet0|6"]["scheduler"]
    assert config["SCHEDULER"][strict] == {"type": "STRICT"}


def test_sonic_file_is_one_json_object_keyed_by_switch(spectrum, facts):
    data = json.loads(_text("sonic", spectrum, facts))
    assert len(data) == int((spectrum.node_role >= 2).sum())
    leaf = data["p1-leaf-su001-r1"]
    assert "Ethernet4" in leaf["PORT"] and leaf["PORT"]["Ethernet4"]["speed"] == "400000"


def test_lossy_sonic_has_ecn_but_no_pfc():
    config = sonic_config(_header(_settings(pfc_mode="lossy")), _switch())
    assert "BUFFER_PG" not in config and "CABLE_LENGTH" not in config
    assert "pfc_enable" not in config["PORT_QOS_MAP"]["Ethernet0"]
    assert "WRED_PROFILE" in config


# --- EOS -------------------------------------------------------------------------------------


def test_eos_lines_have_avds_form():
    settings = _settings(lossless_dscp=(26,), ecn_min_kb=320, ecn_max_kb=320)
    lines = list(eos_switch_lines(_header(settings), _switch("arista", mtu=9214)))
    for documented in (
        "qos map dscp 26 to traffic-class 3",
        "qos map dscp 48 to traffic-class 6",
        "qos map traffic-class 6 to tx-queue 6",
        "   qos trust dscp",
        "   priority-flow-control on",
        "   priority-flow-control priority 3 no-drop",
        "   priority-flow-control pause watchdog",
        "      random-detect ecn minimum-threshold 320 kbytes maximum-threshold 320 kbytes "
        "max-mark-probability 100",
        "      priority strict",
        "interface Ethernet1/5",
        "   mtu 9214",
        "   speed 400g-4",
        "   service-profile FP-ROCE",
    ):
        assert documented in lines, documented
    assert lines.index("   tx-queue 6") < lines.index("      priority strict")


def test_eos_file_for_an_arista_design(arista, facts):
    text = _text("eos", arista, facts)
    assert text.count("\n! ---- switch ") == int((arista.node_role >= 2).sum())
    assert "interface Ethernet1/5\n   description gpu00002 port 1\n" in text
    # Arista's profile publishes no CNP or ECN default: left out, and said so
    assert "! Note: Not set, so not configured: roce.cnp_priority, roce.cnp_dscp" in text
    assert "random-detect" not in text


# --- opensm ----------------------------------------------------------------------------------


def _opensm(**ib) -> list[str]:
    settings = TransportSettings("infiniband", None, default_infiniband(**ib))
    text = "".join(opensm_chunks(FabricIntent("IB", 1, settings, False, 0), iter(())))
    return [line for line in text.splitlines() if not line.startswith("#")]


def test_opensm_fragment_sets_routing_engine_and_shield():
    # AR and SHIELD on: NVIDIA's engine, then the upstream engine upstream OpenSM sets up
    assert _opensm() == ["routing_engine ar_updn,updn"]
    # SHIELD is NVIDIA-only ("Unrecognized token" upstream): written commented out
    assert _opensm(adaptive_routing=False, shield=False) == ["routing_engine updn"]
    text = "".join(
        opensm_chunks(
            FabricIntent(
                "IB",
                1,
                TransportSettings("infiniband", None, default_infiniband(shield=False)),
                False,
                0,
            ),
            iter(()),
        )
    )
    assert "\n# shield_mode 0\n" in text


@pytest.mark.parametrize(
    ("engine", "adaptive", "written"),
    [
        ("ar_updn", True, "ar_updn,updn"),
        ("ar_ftree", True, "ar_ftree,ftree,updn"),
        ("ar_ftree", False, "ftree,updn"),
        ("pqft", True, "pqft,ftree,updn"),
        ("dfp", True, "dfp,updn"),
        ("ftree", False, "ftree,updn"),
        ("updn", False, "updn"),
        ("minhop", False, "minhop"),
    ],
)
def test_opensm_engine_lists_end_in_an_upstream_engine(engine, adaptive, written):
    lines = _opensm(routing_engine=engine, adaptive_routing=adaptive)
    assert lines == [f"routing_engine {written}"]
    assert written.split(",")[-1] in UPSTREAM_ENGINES
    assert all(line.split()[0] in UPSTREAM_OPTIONS for line in lines)


def test_opensm_for_an_infiniband_design_lists_its_switches(quantum, facts):
    text = _text("opensm", quantum, facts)
    assert "\nrouting_engine ar_updn,updn\n" in text
    assert re.search(r"#   leaf-su001-r1  QM9700  leaf  \d+ ports", text)


# --- refusals --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fixture", "fmt", "code"),
    [
        ("quantum", "nvue", "not-roce"),
        ("quantum", "sonic", "not-roce"),
        ("spectrum", "opensm", "not-infiniband"),
        ("arista", "nvue", "no-switch"),
    ],
)
def test_formats_that_cannot_describe_a_design_are_refused(request, facts, fixture, fmt, code):
    fabric = request.getfixturevalue(fixture)
    with pytest.raises(ConfigError) as refused:
        config_chunks(fmt, fabric, facts, name="x", revision=1)
    assert refused.value.code == code and "intent" in refused.value.message


def test_semi_lossless_is_refused_where_the_os_has_no_such_mode(spectrum, facts):
    fabric = _with_transport(spectrum, pfc_mode="semi-lossless")
    for fmt in ("sonic", "eos"):
        with pytest.raises(ConfigError) as refused:
            config_chunks(fmt, fabric, facts, name="x", revision=1)
        assert refused.value.code == "not-supported"
    assert "tx disable" in _text("nvue", fabric, facts)


def _with_transport(fabric, **roce):
    stored = json.loads(json.dumps(fabric.settings.transport.as_dict()))
    stored["roce"].update(roce)
    return replace(fabric, settings=replace(fabric.settings, transport=transport_from_dict(stored)))


# --- the intent ------------------------------------------------------------------------------


def test_intent_yaml_and_json_hold_every_switch(spectrum, facts):
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    docs = list(yaml.load_all(_text("intent-yaml", spectrum, facts), Loader=loader))
    header, switches = docs[0], docs[1:]
    assert header["format"] == "fabric-planner/day0-config/2" and header["revision"] == 2
    assert header["transport"] == "roce" and header["roce"]["lossless_priority"] == 3
    assert header["switch_count"] == len(switches) == int((spectrum.node_role >= 2).sum())
    assert header["missing"] == [] and header["roce"]["mtu_b"] == 9216  # Spectrum-X defaults
    first = switches[0]["interfaces"][0]
    assert first["names"] == {"nvue": "swp1s0", "sonic": "Ethernet0"}  # Spectrum: no EOS
    assert first["lossless"] and first["pfc_xoff_b"] > 0
    data = json.loads(_text("intent-json", spectrum, facts))
    assert [s["name"] for s in data["switches"]] == [s["name"] for s in switches]
    assert any("Arista EOS leaves out" in note for note in data["notes"])


def test_intent_headroom_is_the_switch_vendors_table(spectrum, facts):
    """SN5600: SONiC ACS-SN5600 pg_profile_lookup.ini, row '400000 40m ... xoff 283648' for a
    400G port on a run up to 40 m (the shortest listed cable length covering it)."""
    fabric = _with_transport(spectrum, mtu_b=9216)
    settings, defaulted = transport_of(fabric, facts)
    switch = next(switch_intents(fabric, facts, settings))
    assert switch.model == "SN5600"
    interface = switch.interfaces[0]
    assert interface.speed_gbps == 400 and 5 < interface.cable_length_m <= 40
    assert interface.pfc_xoff_b == 283648 and not defaulted
    assert switch.headroom_b == sum(i.pfc_xoff_b for i in switch.interfaces)
    # the ConnectX (mlx5) formula is the NIC's: next-wave.md §3.2, 400G on 100 m ~ 226 KiB
    assert round(pfc_xoff_bytes(400, 100, 9216) / 1024) == 226
    # ... and it sizes the NIC end of a server link (the Spectrum fixture's ConnectX servers)
    server_port = next(i for i in switch.interfaces if i.peer_role == "server")
    metres = -(-server_port.cable_length_m // 1)
    assert server_port.peer_pfc_xoff_b == round(pfc_xoff_bytes(400, metres, 9216))
    assert server_port.as_dict()["peer_pfc_xoff_b"] == server_port.peer_pfc_xoff_b
    assert all(i.peer_pfc_xoff_b is None for i in switch.interfaces if i.peer_role != "server")


def test_infiniband_intent_has_the_subnet_manager(quantum, facts):
    header = yaml.safe_load(_text("intent-yaml", quantum, facts).split("\n---\n")[0])
    assert header["subnet_manager"]["routing_engine"] == "ar_updn"
    assert "roce" not in header


def test_user_text_is_neutralised_in_every_format(spectrum, facts):
    evil = "gpu\nnv set system hostname pwned; echo 'x' $(reboot)"
    names = list(spectrum.node_name)
    names[0] = evil
    fabric = replace(spectrum, node_name=names)
    design = "Lab\n! username admin privilege 15"
    for fmt in ("nvue", "eos", "intent-yaml"):
        fabric_for = fabric if fmt != "eos" else _rename_arista(fabric, facts)
        text = _text(fmt, fabric_for, facts, name=design)
        lines = text.splitlines()
        assert not [line for line in lines if line.startswith(("nv set system", "username"))]
        assert "$(" not in text and "pwned;" not in text
    nvue = _text("nvue", fabric, facts, name=design)
    assert "description 'gpu_nv set system hostname pwned_ echo _x_ __reboot_ 1/1" in nvue
    assert "# Design: Lab ! username admin privilege 15, revision 2." in nvue


def _rename_arista(fabric, facts):
    """The fabric on Arista 7060X6 leaves (same cages and lanes as SN5600), for EOS."""
    models = ["DCS-7060X6-64PE" if m == "SN5600" else m for m in fabric.models]
    return replace(fabric, models=models)
