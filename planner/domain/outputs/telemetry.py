"""Telemetry plan of a design (issue 23 item 3): the counters to collect per switch port and per
module, the range the design expects for each, the collector's load, and two exports: Prometheus
alerting rules and a gNMIc subscription file.

What it reads
-------------
- The fabric: every linked port of a compute-fabric switch is a monitored port, every module
  (transceiver) in a switch cage a monitored module, its lanes the monitored lanes (the catalog's
  ``lanes``; one when the catalog does not say).
- The switch OS of each switch, as the day-0 configuration picks it
  (:mod:`planner.domain.outputs.config`): NVIDIA Spectrum switches run Cumulus Linux (NVUE),
  Arista switches EOS, any other Ethernet switch whose lanes the catalog gives SONiC; InfiniBand
  switches are read through the subnet's performance counters (``perfquery``, UFM) and
  ``mlxlink``.
- The optical budget (:mod:`planner.domain.physical.budget`): per link kind, the expected
  worst-case receive power = the far module's ``tx_avg_min_dbm`` (catalog, per lane) minus the
  link's worst-case channel loss, next to the receiving module's ``rx_avg_min_dbm``.
- The transport settings (lossless priority: PFC and ECN counters are taken on it).
- Optionally a flow simulation's per-tier utilisation (``utilization``: ``{tier: {mean, max}}``
  0..1, from a simulate job's ``per_tier_load``): the expected throughput range per tier.

What it does not invent
-----------------------
- Module temperature: the catalog gives no operating temperature for any module. The limit is
  the module's own: CMIS modules advertise their alarm and warning thresholds, which OpenConfig
  exposes as ``thresholds/threshold[severity]/state/module-temperature-upper`` (:data:`SOURCES`
  ``oc-transceiver``); the plan subscribes to them and the alert compares the reading with the
  WARNING threshold, not with a number of ours. Modules report a WARNING and a CRITICAL
  threshold (``oc-optics-test``, gNMI-1.13): two series per module per threshold leaf.
- Receive power: one rule with one constant, the lowest expected worst-case Rx of any link
  class (a reading under it is under every class's expectation). One rule per class would need
  to tell a port's class from its series, and the labels gNMIc gives (the target's name, the
  switch's own transceiver component name) do not carry the design's tier or link kind.
- Pre-FEC BER: 2.4e-4 for 100G-per-lane PAM4 optics, the RS(544,514) host FEC's limit that the
  DR8 datasheets state (``../shared/reference/catalog-facts.md`` rule 26, Ascent OSFP-800G-DR8-05).
  No limit is given for other FECs or for InfiniBand (none found): those rows say so.
- Sample interval: 10 s by default for every counter (a parameter). No source was found that
  makes 1 s the common practice for PFC and ECN counters; ``pfc_ecn_interval_s`` sets it.
- Bytes per sample: 2, the upper end of Prometheus's "around 1-2 bytes per sample" (storage docs).
- Alert ``for`` and rate windows (``5m``) are our choice, named as such in the file's header.

Metric names and labels
-----------------------
The Prometheus rules use only series the gNMIc subscription file makes, named as gNMIc's
Prometheus output names them (:data:`SOURCES` ``gnmic-prometheus``, "Metric Naming" and
"Metric Labels"; ``gnmic-prometheus-code`` and ``gnmic-event`` for the exact rules): the
metric name is the prefix, then the path stripped of its keys, every run of characters other
than ``[a-zA-Z0-9_]`` one underscore; the labels are ``source`` (the target),
``subscription_name`` and one ``<element>_<key>`` label per key of the path. With
``metric-prefix: fabric``, the path (one line)
``/components/component[name=*]/transceiver/thresholds/threshold[severity=*]/``
``state/input-power-lower`` becomes
``fabric_components_component_transceiver_thresholds_threshold_state_input_power_lower``
with the labels ``component_name``, ``threshold_severity``, ``source`` and ``subscription_name``.
A reading and a threshold come from different subscriptions (``subscription_name`` differs), so
a rule joins them ``on(source, component_name)`` after selecting one severity
(``threshold_severity``): one threshold per reading, never a many-to-many match. String values
(``oper-status``) become labels only with ``strings-as-labels: true``, which the file sets.
SONiC's virtual paths carry no keys: the port is part of the metric name (the JSON value is
flattened under the path, ``/``-separated: ``gnmic-flattener``). EOS's PFC counters are Arista's
augment of OpenConfig (``arista-pfc``), as EOS's gNMI path report spells them (no module prefix).
InfiniBand rules use the metric names of treydock/infiniband_exporter (perfquery counters).

Nothing here imports Django.
"""

from __future__ import annotations

import math
from collections import Counter as Tally
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field

import numpy as np

from planner.domain.catalog import CatalogFacts
from planner.domain.fabric import ROLE, SWITCH_ROLES, TIER_NAMES, Fabric
from planner.domain.names import layout_of
from planner.domain.outputs.config.eos import eos_refusal
from planner.domain.outputs.config.intent import SwitchIntent
from planner.domain.outputs.config.nvue import nvue_refusal
from planner.domain.outputs.config.sonic import sonic_refusal
from planner.domain.physical.budget import compute_budgets
from planner.domain.transport.resolve import transport_or_default

FORMAT = "fabric-planner/telemetry-plan/1"
#: The catalog fields the Rx expectation reads, in words (``tx_avg_min_dbm``, ``rx_avg_min_dbm``).
LAUNCH_POWER = "launch power (Tx average, minimum)"
SENSITIVITY = "receiver sensitivity (Rx average, minimum)"
DEFAULT_INTERVAL_S = 10.0
#: Prometheus storage docs: "On average, Prometheus uses only around 1-2 bytes per sample."
DEFAULT_BYTES_PER_SAMPLE = 2.0
#: Our choice (not a sourced figure): how long a condition holds before an alert fires, and the
#: window counters are differenced over.
ALERT_FOR = "5m"
RATE_WINDOW = "5m"
#: Our choice: the step of the subquery that gives SONiC's per-port counters (the port is in the
#: metric name) a port label before ``increase`` drops the name.
SUBQUERY_STEP = "15s"
#: PFC pause-storm alert: pause frames received on the lossless priority per minute, sustained.
#: An estimate (inferred, 2026-12-07), not a vendor figure. Basis: a pause frame stops the
#: priority for at most 65,535 quanta of 512 bit times (IEEE 802.1Qbb), 336 us at 100 Gb/s and
#: 84 us at 400 Gb/s; a receiver stuck in XOFF must refresh before that expires, so a priority
#: held paused sends at least ~2,980 frames/s (179k/min) at 100 Gb/s and more at higher speeds
#: or shorter quanta. Normal PFC use comes in incast bursts (milliseconds), not minutes. The
#: threshold is a third of the 100 Gb/s continuous-pause rate, held for PFC_STORM_FOR: a
#: 100k-frames/min storm fires, bursts and a single busy minute do not.
PFC_STORM_FRAMES_PER_MIN = 60_000
PFC_STORM_FOR = "2m"
METRIC_PREFIX = "fabric"
#: RS(544,514) host FEC, 100G-per-lane PAM4 optics: pre-FEC BER limit (catalog-facts rule 26).
KP4_PRE_FEC_BER = 2.4e-4
SECONDS_PER_DAY = 86_400

OS_TITLES = {
    "nvue": "NVIDIA Cumulus Linux (NVUE)",
    "sonic": "SONiC",
    "eos": "Arista EOS",
    "infiniband": "InfiniBand (UFM / perfquery, mlxlink)",
    "openconfig": "OpenConfig (switch OS not described)",
}

SOURCES = {
    "oc-interfaces": "https://github.com/openconfig/public/blob/master/release/models/"
    "interfaces/openconfig-interfaces.yang",
    "oc-transceiver": "https://github.com/openconfig/public/blob/master/release/models/"
    "platform/openconfig-platform-transceiver.yang",
    "oc-platform": "https://github.com/openconfig/public/blob/master/release/models/"
    "platform/openconfig-platform.yang",
    "oc-qos": "https://github.com/openconfig/public/blob/master/release/models/qos/"
    "openconfig-qos-interfaces.yang",
    "gnmi-spec": "https://github.com/openconfig/reference/blob/master/rpc/gnmi/"
    "gnmi-specification.md",
    "gnmic-prometheus": "https://github.com/openconfig/gnmic/blob/main/docs/user_guide/outputs/"
    "prometheus_output.md",
    "gnmic-prometheus-code": "https://github.com/openconfig/gnmic/blob/main/pkg/outputs/"
    "prometheus_output/prometheus_common.go",
    "gnmic-event": "https://github.com/openconfig/gnmic/blob/main/pkg/formatters/event.go",
    "gnmic-flattener": "https://github.com/karimra/go-map-flattener/blob/main/flatten.go",
    "gnmic-subscriptions": "https://github.com/openconfig/gnmic/blob/main/docs/user_guide/"
    "subscriptions.md",
    # test gNMI-1.13 "Optics Telemetry, Instant, threshold, and miscellaneous static info"
    "oc-optics-test": "https://github.com/openconfig/featureprofiles",
    "cumulus-gnmi": "https://docs.nvidia.com/networking-ethernet-software/cumulus-linux-514/"
    "Monitoring-and-Troubleshooting/gNMI-Streaming",
    "sonic-telemetry": "https://github.com/sonic-net/SONiC/blob/master/doc/system-telemetry/"
    "grpc_telemetry.md",
    "sai-port": "https://github.com/opencomputeproject/SAI/blob/master/inc/saiport.h",
    "sai-queue": "https://github.com/opencomputeproject/SAI/blob/master/inc/saiqueue.h",
    "sonic-xcvrd": "https://github.com/sonic-net/SONiC/blob/master/doc/xrcvd/"
    "transceiver-monitor-hld.md",
    "arista-yang": "https://github.com/aristanetworks/yang",
    # EOS PFC frames per priority: augment (EOS 4.24.0F on), path report (4.34.1F on); 2026-12-07
    "arista-pfc": "https://github.com/aristanetworks/yang/blob/63be023aa565c8943ff74e746dfefa215df"
    "1c8d5/EOS-4.36.1F/release/openconfig/models/interfaces/arista-intf-augments.yang",
    "arista-paths": "https://github.com/aristanetworks/yang/blob/63be023aa565c8943ff74e746dfefa215d"
    "f1c8d5/EOS-4.36.1F/pathreport.csv",
    "perfquery": "https://manpages.ubuntu.com/manpages/noble/man8/perfquery.8.html",
    "ufm-counters": "https://docs.nvidia.com/networking/display/ufmsdnappumv4180/"
    "appendix+-+supported+port+counters+and+events",
    "mlxlink": "https://docs.nvidia.com/networking/display/mftv4320/mlxlink+Utility",
    "ib-exporter": "https://github.com/treydock/infiniband_exporter/blob/master/examples/"
    "infiniband.rules",
    "prometheus-storage": "https://prometheus.io/docs/prometheus/latest/storage/",
    "kp4-ber": "../shared/reference/catalog-facts.md rule 26; "
    "https://ascentcomtec.com/index.php/Solution/detail/id/451.html",
}

_OC_IF = "/interfaces/interface[name=*]/state/counters/"
_OC_XCVR = "/components/component[name=*]/transceiver/"
_OC_LANE = _OC_XCVR + "physical-channels/channel[index=*]/state/"
_OC_THRESHOLD = _OC_XCVR + "thresholds/threshold[severity=*]/state/"
#: Severities a module reports thresholds for: WARNING and CRITICAL (gNMI-1.13, oc-optics-test).
THRESHOLD_SEVERITIES = 2
#: The severity the alerts compare with. OpenConfig's severity is an identityref: a target may
#: give the key with or without its module prefix, so the matcher allows both (one severity).
ALERT_SEVERITY = "WARNING"
_SEVERITY_MATCH = f'threshold_severity=~"(openconfig-alarm-types:)?{ALERT_SEVERITY}"'
#: The labels gNMIc's Prometheus output gives a transceiver reading and its threshold in common
#: (``source``: the target; ``component_name``: the path key ``component[name]``); the other
#: labels differ (``subscription_name``, ``channel_index``, ``threshold_severity``).
_JOIN = "on(source, component_name)"
_SONIC_PORT = "COUNTERS/Ethernet*/"
_SONIC_DOM = "TRANSCEIVER_DOM_SENSOR/Ethernet*/"


@dataclass(frozen=True)
class Path:
    """Where one OS gives a counter: a gNMI path (``target`` the SONiC database, if any) or a
    tool's field, with its source; ``path`` empty when none was found (``note`` says so)."""

    path: str = ""
    source: str = ""
    target: str = ""
    note: str = ""


class TelemetryError(ValueError):
    """An export that cannot describe a design; ``code`` names why."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class CounterSpec:
    """One counter of the plan."""

    key: str
    title: str
    scope: str  # "port", "lane" (per module lane) or "module"
    unit: str
    kind: str  # "counter" (monotonic) or "gauge"
    fast: bool  # PFC / ECN: sampled at pfc_ecn_interval_s
    paths: dict[str, Path]
    expected: str = ""
    mode: str = "sample"  # gNMI stream sub-mode: sample or on_change
    per_instance: int = 1  # series per port / lane / module (thresholds: one per severity)


@dataclass(frozen=True)
class RxExpectation:
    """Expected receive power of one kind of optical link (one transmitter, receiver and fibre
    part on one tier), per lane, dBm."""

    tier: str
    transmitter: str
    receiver: str
    fiber: str
    links: int
    loss_worst_db: float | None
    tx_min_dbm: float | None
    rx_min_dbm: float | None  # tx_min_dbm - loss_worst_db: the design's worst case
    rx_sensitivity_dbm: float | None  # the receiver's rx_avg_min_dbm (catalog)
    margin_db: float | None  # rx_min_dbm - rx_sensitivity_dbm
    note: str = ""  # what the catalog lacks, in words (empty when nothing is missing)


@dataclass
class TelemetryPlan:
    """What to collect, what to expect and what it costs to keep (see the module docstring)."""

    name: str
    revision: int | None
    transport: str
    lossless_priority: int | None
    switches_by_os: dict[str, int]
    ports_by_os: dict[str, int]
    modules_by_os: dict[str, int]
    lanes_by_os: dict[str, int]
    counters: list[CounterSpec]
    rx: list[RxExpectation]
    rx_floor_dbm: float | None  # the lowest expected worst-case Rx of any link kind
    pre_fec_ber_max: float | None
    utilization: dict[str, dict]
    interval_s: float
    pfc_ecn_interval_s: float
    bytes_per_sample: float
    notes: list[str] = field(default_factory=list)

    @property
    def ports(self) -> int:
        return sum(self.ports_by_os.values())

    @property
    def modules(self) -> int:
        return sum(self.modules_by_os.values())

    @property
    def lanes(self) -> int:
        return sum(self.lanes_by_os.values())

    def instances(self, counter: CounterSpec) -> int:
        """How many series ``counter`` makes: ports, module lanes or modules."""
        base = {"port": self.ports, "lane": self.lanes, "module": self.modules}[counter.scope]
        return base * counter.per_instance

    def counter_rate(self, counter: CounterSpec) -> float:
        """Samples per second of one counter over the whole fabric."""
        interval = self.pfc_ecn_interval_s if counter.fast else self.interval_s
        return self.instances(counter) / interval

    @property
    def series(self) -> int:
        return sum(self.instances(c) for c in self.counters)

    @property
    def samples_per_s(self) -> float:
        return sum(self.counter_rate(c) for c in self.counters)

    @property
    def bytes_per_day(self) -> float:
        return self.samples_per_s * SECONDS_PER_DAY * self.bytes_per_sample

    def as_dict(self) -> dict:
        return {
            "format": FORMAT,
            "name": self.name,
            "revision": self.revision,
            "transport": self.transport,
            "lossless_priority": self.lossless_priority,
            "switches_by_os": self.switches_by_os,
            "ports": self.ports,
            "modules": self.modules,
            "module_lanes": self.lanes,
            "ports_by_os": self.ports_by_os,
            "modules_by_os": self.modules_by_os,
            "counters": [
                {
                    **asdict(c),
                    "series": self.instances(c),
                    "interval_s": self.pfc_ecn_interval_s if c.fast else self.interval_s,
                    "samples_per_s": round(self.counter_rate(c), 3),
                }
                for c in self.counters
            ],
            "rx_power": [asdict(r) for r in self.rx],
            "rx_floor_dbm": self.rx_floor_dbm,
            "pre_fec_ber_max": self.pre_fec_ber_max,
            "utilization": self.utilization,
            "load": {
                "series": self.series,
                "samples_per_s": round(self.samples_per_s, 3),
                "bytes_per_sample": self.bytes_per_sample,
                "bytes_per_day": round(self.bytes_per_day),
                "interval_s": self.interval_s,
                "pfc_ecn_interval_s": self.pfc_ecn_interval_s,
            },
            "notes": self.notes,
            "sources": SOURCES,
        }


# --- counters --------------------------------------------------------------------------------


def _oc(path: str, source: str, os_name: str) -> Path:
    support = {
        "nvue": (
            "cumulus-gnmi",
            "OpenConfig path; Cumulus Linux streams OpenConfig models over gNMI",
        ),
        "eos": ("arista-yang", "OpenConfig path; EOS streams OpenConfig models over gNMI"),
        "openconfig": ("", "OpenConfig path"),
    }[os_name]
    return Path(path=path, source=f"{source}; {support[0]}".strip("; "), note=support[1])


def _ethernet_counters(priority: int | None) -> list[CounterSpec]:
    """The Ethernet counters of the plan, each with its path per switch OS and its source.

    Long because: a table: one CounterSpec literal per counter, with its sourced path per OS.
    """
    p = priority if priority is not None else 3
    pnote = "" if priority is not None else " (lossless priority not set: priority 3 shown)"

    def oc_all(path, source):
        return {os_name: _oc(path, source, os_name) for os_name in ("nvue", "eos", "openconfig")}

    def sonic(field_name, source="sonic-telemetry", base=_SONIC_PORT, target="COUNTERS_DB"):
        return Path(path=base + field_name, source=f"{source}; sonic-telemetry", target=target)

    none_found = Path(note="no gNMI path found in the documentation read")

    def cumulus_pause(direction):
        # Cumulus Linux 5.14's name; 5.13 streamed .../switch-priority[priority]/state/counters/.
        return Path(
            path=f"/qos/interfaces/interface[interface-id=*]/state/switch-priority[priority={p}]"
            f"/counters/{direction}-pause-pkts",
            source="cumulus-gnmi",
            note="Cumulus Linux 5.14 gNMI QoS metric (5.13: .../switch-priority[priority]/"
            "state/counters/...)",
        )

    def eos_pause(direction):  # Arista's augment, pfc/priorities/priority[index] (arista-pfc)
        path = f"/interfaces/interface[name=*]/ethernet/pfc/priorities/priority[index={p}]/state/"
        note = "Arista's augment of OpenConfig (arista-intf-augments), EOS 4.24.0F on"
        return Path(path=f"{path}{direction}-frames", source="arista-pfc; arista-paths", note=note)

    return [
        CounterSpec(
            "in_octets", "Bytes received", "port", "bytes", "counter", False,
            {**oc_all(_OC_IF + "in-octets", "oc-interfaces"),
             "sonic": sonic("SAI_PORT_STAT_IF_IN_OCTETS")},
        ),
        CounterSpec(
            "out_octets", "Bytes sent", "port", "bytes", "counter", False,
            {**oc_all(_OC_IF + "out-octets", "oc-interfaces"),
             "sonic": sonic("SAI_PORT_STAT_IF_OUT_OCTETS")},
        ),
        CounterSpec(
            "in_discards", "Packets discarded on receive", "port", "packets", "counter", False,
            {**oc_all(_OC_IF + "in-discards", "oc-interfaces"),
             "sonic": sonic("SAI_PORT_STAT_IF_IN_DISCARDS")},
        ),
        CounterSpec(
            "out_discards", "Packets discarded on send", "port", "packets", "counter", False,
            {**oc_all(_OC_IF + "out-discards", "oc-interfaces"),
             "sonic": sonic("SAI_PORT_STAT_IF_OUT_DISCARDS")},
        ),
        CounterSpec(
            "pfc_rx", f"PFC pause frames received, priority {p}{pnote}", "port", "frames",
            "counter", True,
            {"nvue": cumulus_pause("in"), "eos": eos_pause("in"),
             "openconfig": Path(note="not in openconfig-qos 0.7.0", source="oc-qos"),
             "sonic": sonic(f"SAI_PORT_STAT_PFC_{p}_RX_PKTS")},
        ),
        CounterSpec(
            "pfc_tx", f"PFC pause frames sent, priority {p}{pnote}", "port", "frames",
            "counter", True,
            {"nvue": cumulus_pause("out"), "eos": eos_pause("out"),
             "openconfig": Path(note="not in openconfig-qos 0.7.0", source="oc-qos"),
             "sonic": sonic(f"SAI_PORT_STAT_PFC_{p}_TX_PKTS")},
        ),
        CounterSpec(
            "ecn_marked", f"ECN-marked packets, queue {p}{pnote}", "port", "packets",
            "counter", True,
            {"nvue": none_found, "eos": none_found,
             "openconfig": Path(note="not in openconfig-qos 0.7.0", source="oc-qos"),
             "sonic": Path(
                 path="COUNTERS/Ethernet*/Queues",
                 target="COUNTERS_DB",
                 source="sai-queue; sonic-telemetry",
                 note=f"field SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS of queue {p}",
             )},
        ),
        CounterSpec(
            "fec_corrected", "FEC corrected codewords", "port", "codewords", "counter", False,
            {**oc_all(_OC_XCVR + "state/fec-corrected-blocks", "oc-transceiver"),
             "sonic": sonic("SAI_PORT_STAT_IF_IN_FEC_CORRECTABLE_FRAMES", "sai-port")},
        ),
        CounterSpec(
            "fec_uncorrectable", "FEC uncorrectable codewords", "port", "codewords", "counter",
            False,
            {**oc_all(_OC_XCVR + "state/fec-uncorrectable-blocks", "oc-transceiver"),
             "sonic": sonic("SAI_PORT_STAT_IF_IN_FEC_NOT_CORRECTABLE_FRAMES", "sai-port")},
            expected="0 (an uncorrectable codeword is a lost frame)",
        ),
        CounterSpec(
            "pre_fec_ber", "Pre-FEC bit error ratio", "port", "ratio", "gauge", False,
            {**oc_all(_OC_XCVR + "state/pre-fec-ber/instant", "oc-transceiver"),
             "sonic": Path(note="no gNMI path found; derive from the FEC counters")},
        ),
        CounterSpec(
            "rx_power", "Receive power per lane", "lane", "dBm", "gauge", False,
            {**oc_all(_OC_LANE + "input-power/instant", "oc-transceiver"),
             "sonic": sonic("rx{lane}power", "sonic-xcvrd", _SONIC_DOM, "STATE_DB")},
        ),
        CounterSpec(
            "tx_power", "Transmit power per lane", "lane", "dBm", "gauge", False,
            {**oc_all(_OC_LANE + "output-power/instant", "oc-transceiver"),
             "sonic": sonic("tx{lane}power", "sonic-xcvrd", _SONIC_DOM, "STATE_DB")},
        ),
        CounterSpec(
            "temperature", "Module temperature", "module", "°C", "gauge", False,
            {**oc_all("/components/component[name=*]/state/temperature/instant", "oc-platform"),
             "sonic": sonic("temperature", "sonic-xcvrd", _SONIC_DOM, "STATE_DB")},
            expected="below the module's own high-temperature threshold (CMIS; OpenConfig "
            "thresholds/module-temperature-upper): the catalog gives no module temperature",
        ),
        CounterSpec(
            "rx_power_threshold",
            "Module's own Rx power lower threshold (WARNING and CRITICAL)", "module", "dBm",
            "gauge", False,
            {**oc_all(_OC_THRESHOLD + "input-power-lower", "oc-transceiver; oc-optics-test"),
             "sonic": Path(note="not subscribed: the SONiC rules do not use module thresholds")},
            expected="the module's own (CMIS); the Rx power alert compares with WARNING",
            per_instance=THRESHOLD_SEVERITIES,
        ),
        CounterSpec(
            "temperature_threshold",
            "Module's own temperature upper threshold (WARNING and CRITICAL)", "module", "°C",
            "gauge", False,
            {**oc_all(_OC_THRESHOLD + "module-temperature-upper",
                      "oc-transceiver; oc-optics-test"),
             "sonic": Path(note="not subscribed: the SONiC rules do not use module thresholds")},
            expected="the module's own (CMIS); the temperature alert compares with WARNING",
            per_instance=THRESHOLD_SEVERITIES,
        ),
        CounterSpec(
            "oper_status", "Link state", "port", "state", "gauge", False,
            {**oc_all("/interfaces/interface[name=*]/state/oper-status", "oc-interfaces"),
             "sonic": Path(note="no gNMI path found in the documentation read")},
            expected="UP on every linked port",
            mode="on_change",
        ),
    ]  # fmt: skip


def _infiniband_counters() -> list[CounterSpec]:
    def pq(name, note=""):
        return {"infiniband": Path(path=f"perfquery: {name}", source="perfquery; ufm-counters",
                                   note=note)}  # fmt: skip

    def ml(name):
        return {"infiniband": Path(path=f"mlxlink: {name}", source="mlxlink")}

    return [
        CounterSpec("xmit_data", "Data sent (PortXmitData)", "port", "4-byte words", "counter",
                    False, pq("PortXmitData", "octets divided by 4")),
        CounterSpec("rcv_data", "Data received (PortRcvData)", "port", "4-byte words", "counter",
                    False, pq("PortRcvData", "octets divided by 4")),
        CounterSpec("xmit_discards", "Packets discarded on send (PortXmitDiscards)", "port",
                    "packets", "counter", False, pq("PortXmitDiscards"), expected="0"),
        CounterSpec("rcv_errors", "Receive errors (PortRcvErrors)", "port", "packets",
                    "counter", False, pq("PortRcvErrors"), expected="0"),
        CounterSpec("symbol_errors", "Symbol errors (SymbolErrorCounter)", "port", "errors",
                    "counter", False, pq("SymbolErrorCounter"), expected="0"),
        CounterSpec("link_downed", "Link down events (LinkDownedCounter)", "port", "events",
                    "counter", False, pq("LinkDownedCounter"), expected="0 after bring-up"),
        CounterSpec("xmit_wait", "Ticks waiting for credits (PortXmitWait)", "port", "ticks",
                    "counter", True, pq("PortXmitWait", "the InfiniBand counterpart of a PFC "
                                        "pause: credit back-pressure")),
        CounterSpec("effective_ber", "Effective physical BER", "port", "ratio", "gauge", False,
                    ml("-c (Effective Physical BER)")),
        CounterSpec("rx_power", "Receive power per lane", "lane", "dBm", "gauge", False,
                    ml("-m (Rx Power per lane)")),
        CounterSpec("tx_power", "Transmit power per lane", "lane", "dBm", "gauge", False,
                    ml("-m (Tx Power per lane)")),
        CounterSpec("temperature", "Module temperature", "module", "°C", "gauge", False,
                    ml("-m (Module Temperature)"),
                    expected="below the module's own high-temperature threshold (CMIS); the "
                    "catalog gives no module temperature"),
    ]  # fmt: skip


# --- the plan --------------------------------------------------------------------------------


def _switch_os(fabric: Fabric, facts: CatalogFacts) -> dict[int, str]:
    """Switch node -> its OS key (see the module docstring)."""
    codes = [ROLE[r] for r in SWITCH_ROLES]
    nodes = np.flatnonzero(np.isin(fabric.node_role, codes))
    cache: dict[tuple[int, int], str] = {}
    out: dict[int, str] = {}
    for node in nodes.tolist():
        key = (int(fabric.node_model[node]), int(fabric.node_ports_per_cage[node]))
        if key not in cache:
            model = fabric.models[key[0]]
            device = facts.devices.get(model)
            probe = SwitchIntent(
                name="",
                role="leaf",
                model=model,
                manufacturer=str((facts.parts.get(model) or {}).get("manufacturer") or ""),
                protocols=tuple(device.protocols) if device is not None else (),
                layout=layout_of(facts, model, key[1]),
                mtu_b=None,
                interfaces=(),
            )
            if "ethernet" not in probe.protocols:
                os_name = "infiniband" if "infiniband" in probe.protocols else "openconfig"
            elif nvue_refusal(probe) is None:
                os_name = "nvue"
            elif eos_refusal(probe) is None:
                os_name = "eos"
            elif sonic_refusal(probe) is None:
                os_name = "sonic"
            else:
                os_name = "openconfig"
            cache[key] = os_name
        out[node] = cache[key]
    return out


def _ends(fabric: Fabric, facts: CatalogFacts, os_of: dict[int, str]):
    """Per OS: linked switch ports, modules in switch cages and their lanes (NumPy over the
    link ends; a module shared by the links of a twin-port or breakout counts once)."""
    names = sorted(set(os_of.values()))
    code = np.full(fabric.node_count, -1, dtype=np.int16)
    for node, os_name in os_of.items():
        code[node] = names.index(os_name)
    records = [facts.parts.get(slug) or {} for slug in fabric.parts]
    is_module = np.array([r.get("category") == "transceiver" for r in records] + [False])
    lanes_of = np.array([int(r.get("lanes") or 1) for r in records] + [0], dtype=np.int64)
    ports = np.zeros(len(names), dtype=np.int64)
    chosen: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    links = np.arange(fabric.link_count, dtype=np.int64)
    for end in ("a", "b"):
        nodes = getattr(fabric, f"link_{end}")
        codes = code[nodes]
        mask = codes >= 0
        ports += np.bincount(codes[mask], minlength=len(names))
        part = getattr(fabric, f"link_{end}_part")
        if part is None:
            continue
        index = np.where(part >= 0, part, len(records)).astype(np.int64)
        mask &= is_module[index]
        module = getattr(fabric, f"link_{end}_module")
        ident = (
            np.where(module >= 0, module.astype(np.int64), -1 - links)
            if module is not None
            else -1 - links
        )
        chosen.append((nodes[mask].astype(np.int64), ident[mask], index[mask]))
    modules = np.zeros(len(names), dtype=np.int64)
    lanes = np.zeros(len(names), dtype=np.int64)
    if chosen:
        node = np.concatenate([c[0] for c in chosen])
        ident = np.concatenate([c[1] for c in chosen])
        part = np.concatenate([c[2] for c in chosen])
        if node.size:
            order = np.lexsort((ident, node))
            node, ident, part = node[order], ident[order], part[order]
            first = np.ones(node.size, dtype=bool)
            first[1:] = (node[1:] != node[:-1]) | (ident[1:] != ident[:-1])
            codes = code[node[first]]
            modules = np.bincount(codes, minlength=len(names))
            lanes = np.bincount(codes, weights=lanes_of[part[first]], minlength=len(names))

    def as_dict(values) -> dict[str, int]:
        return {name: int(values[i]) for i, name in enumerate(names) if ports[i] or values[i]}

    return as_dict(ports), as_dict(modules), as_dict(lanes)


def _number(value) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def rx_expectations(fabric: Fabric, facts: CatalogFacts, budgets=None) -> list[RxExpectation]:
    """Per (tier, transmitter, receiver, fibre) kind of budgeted link, the expected worst-case
    receive power per lane: the transmitter's ``tx_avg_min_dbm`` minus the worst-case loss of
    the kind's lossiest link (each direction of a link is its own row)."""
    budgets = budgets if budgets is not None else compute_budgets(fabric, facts)
    if not budgets.links.size:
        return []
    rows: dict[tuple, list] = {}
    tiers = fabric.link_tier[budgets.links]
    for position in range(budgets.links.size):
        terms = budgets.terms[int(budgets.kind[position])]
        loss = float(budgets.loss_worst_db[position])
        tier = TIER_NAMES[int(tiers[position])]
        for tx, rx in ((terms.a, terms.b), (terms.b, terms.a)):
            key = (tier, tx, rx, terms.fiber)
            row = rows.setdefault(key, [0, None])
            row[0] += 1
            if math.isfinite(loss):
                row[1] = loss if row[1] is None else max(row[1], loss)
    out = []
    for (tier, tx, rx, fiber), (count, loss) in sorted(rows.items()):
        tx_min = _number((facts.parts.get(tx) or {}).get("tx_avg_min_dbm"))
        sensitivity = _number((facts.parts.get(rx) or {}).get("rx_avg_min_dbm"))
        rx_min = round(tx_min - loss, 3) if tx_min is not None and loss is not None else None
        margin = (
            round(rx_min - sensitivity, 3)
            if rx_min is not None and sensitivity is not None
            else None
        )
        missing = []
        if tx_min is None:
            missing.append(f"{LAUNCH_POWER} not in the catalog for {tx}")
        if sensitivity is None:
            missing.append(f"{SENSITIVITY} not in the catalog for {rx}")
        if loss is None:
            missing.append("no worst-case channel loss for these links")
        out.append(
            RxExpectation(
                tier=tier,
                transmitter=tx,
                receiver=rx,
                fiber=fiber,
                links=count,
                loss_worst_db=round(loss, 3) if loss is not None else None,
                tx_min_dbm=tx_min,
                rx_min_dbm=rx_min,
                rx_sensitivity_dbm=sensitivity,
                margin_db=margin,
                note="; ".join(missing),
            )
        )
    return out


def _kp4_modules(fabric: Fabric, facts: CatalogFacts) -> bool:
    """Whether any module of the fabric is a 100G-per-lane PAM4 optic (RS(544,514) host FEC)."""
    used = set()
    for column in (fabric.link_a_part, fabric.link_b_part):
        if column is not None:
            used.update(int(i) for i in np.unique(column).tolist() if int(i) >= 0)
    for index in used:
        record = facts.parts.get(fabric.parts[index]) or {}
        if record.get("category") != "transceiver":
            continue
        if str(record.get("fec") or "").endswith("rs544"):
            return True
        lane = _number(record.get("lane_rate_gbps"))
        if lane is not None and lane >= 100 and str(record.get("modulation")) == "PAM4":
            return True
    return False


def telemetry_plan(
    fabric: Fabric,
    facts: CatalogFacts,
    *,
    name: str = "",
    revision: int | None = None,
    utilization: Mapping[str, Mapping] | None = None,
    interval_s: float = DEFAULT_INTERVAL_S,
    pfc_ecn_interval_s: float | None = None,
    bytes_per_sample: float = DEFAULT_BYTES_PER_SAMPLE,
) -> TelemetryPlan:
    """The telemetry plan of ``fabric`` (see the module docstring).

    Raises
    ------
    ValueError
        An interval or bytes-per-sample that is not a positive number.

    Long because: it gathers the plan's parts (counters, ends, expectations, thresholds) into one
    record; each part is a call or a few lines.
    """
    fast = interval_s if pfc_ecn_interval_s is None else pfc_ecn_interval_s
    for label, value in (("interval_s", interval_s), ("pfc_ecn_interval_s", fast),
                         ("bytes_per_sample", bytes_per_sample)):  # fmt: skip
        if not isinstance(value, int | float) or not math.isfinite(value) or value <= 0:
            raise ValueError(f"{label}: give a positive number")
    settings = transport_or_default(fabric, facts)
    os_of = _switch_os(fabric, facts)
    ports, modules, lanes = _ends(fabric, facts, os_of)
    priority = settings.roce.lossless_priority if settings.roce is not None else None
    notes: list[str] = []
    ethernet = any(os_name != "infiniband" for os_name in ports)
    infiniband = "infiniband" in ports
    counters: list[CounterSpec] = []
    if ethernet:
        counters += _ethernet_counters(priority)
        if priority is None and settings.transport == "roce":
            notes.append("The lossless priority is not set: PFC and ECN counters show priority 3.")
    if infiniband:
        counters += _infiniband_counters()
    rx = rx_expectations(fabric, facts)
    known = [r.rx_min_dbm for r in rx if r.rx_min_dbm is not None]
    unlit = sorted({r.transmitter for r in rx if r.tx_min_dbm is None})
    if unlit:
        some = "No expected receive power" if not known else "Expected receive power unknown"
        notes.append(
            f"{some} for {'any' if not known else 'some'} link class: {LAUNCH_POWER} not in "
            f"the catalog for {', '.join(unlit)}"
            + (
                " (the Rx alert then uses the module's own lower threshold only)."
                if not known
                else " (the design's Rx threshold covers the other classes)."
            )
        )
    ber = KP4_PRE_FEC_BER if ethernet and _kp4_modules(fabric, facts) else None
    if ber is None and ethernet:
        notes.append("No pre-FEC BER limit: no 100G-per-lane PAM4 module (none found for others).")
    util = {
        str(tier): {k: float(v) for k, v in row.items() if _number(v) is not None}
        for tier, row in (utilization or {}).items()
        if isinstance(row, Mapping)
    }
    if not util:
        notes.append("No simulated utilization: run a flow simulation of this revision.")
    switches = Tally(os_of.values())
    return TelemetryPlan(
        name=name,
        revision=revision,
        transport=settings.transport,
        lossless_priority=priority,
        switches_by_os=dict(switches),
        ports_by_os=ports,
        modules_by_os=modules,
        lanes_by_os=lanes,
        counters=counters,
        rx=rx,
        rx_floor_dbm=min(known) if known else None,
        pre_fec_ber_max=ber,
        utilization=util,
        interval_s=float(interval_s),
        pfc_ecn_interval_s=float(fast),
        bytes_per_sample=float(bytes_per_sample),
        notes=notes,
    )


# --- exports ---------------------------------------------------------------------------------


__all__ = [
    "DEFAULT_BYTES_PER_SAMPLE",
    "DEFAULT_INTERVAL_S",
    "KP4_PRE_FEC_BER",
    "SOURCES",
    "RxExpectation",
    "TelemetryError",
    "TelemetryPlan",
    "rx_expectations",
    "telemetry_plan",
]
