"""Telemetry plan (planner.domain.outputs.telemetry): counts per port and module, the expected
receive power from the optical budget, and the two exports (Prometheus rules, gNMIc
subscriptions) checked as YAML documents of their formats."""

from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import yaml

from planner.domain.fabric import ROLE, SWITCH_ROLES
from planner.domain.outputs.telemetry import (
    KP4_PRE_FEC_BER,
    SOURCES,
    TelemetryError,
    telemetry_plan,
)
from planner.domain.outputs.telemetry_files import (
    gnmic_chunks,
    gnmic_config,
    gnmic_labels,
    gnmic_metric,
    prometheus_rules,
    prometheus_rules_chunks,
)
from planner.domain.physical.budget import compute_budgets
from planner.domain.pipeline import build_fabric
from planner.domain.spec import parse_spec

EXAMPLES = Path(__file__).resolve().parents[2] / "planner" / "domain" / "examples"


def _fabric(facts, example: str, servers: int):
    spec = yaml.safe_load((EXAMPLES / f"{example}.yaml").read_text())
    return build_fabric(parse_spec({**spec, "servers": servers}), facts)


@pytest.fixture(scope="module")
def spectrum(facts):
    """DGX B300 on SN5600 (Cumulus), 8 servers."""
    return _fabric(facts, "b300-spectrum-x-twin-plane", 8)


@pytest.fixture(scope="module")
def lit(facts, spectrum):
    """The catalog with launch power and sensitivity on the fabric's modules (the seed gives
    them for FR4 parts only): -3.3 / -7.3 dBm per lane, the ET7502-FR4 sheet's figures."""
    parts = dict(facts.parts)
    used = {spectrum.parts[i] for i in np.unique(spectrum.link_a_part) if i >= 0}
    for slug in used:
        if parts[slug].get("category") == "transceiver":
            parts[slug] = {**parts[slug], "tx_avg_min_dbm": -3.3, "rx_avg_min_dbm": -7.3}
    return replace(facts, parts=parts)


def _switch_ends(fabric) -> int:
    switch = np.isin(fabric.node_role, [ROLE[r] for r in SWITCH_ROLES])
    return int(switch[fabric.link_a].sum() + switch[fabric.link_b].sum())


def test_counts_are_ports_modules_and_lanes_times_counters(spectrum, facts):
    plan = telemetry_plan(spectrum, facts, name="tiny")
    assert plan.switches_by_os == {"nvue": 24}
    assert plan.ports == _switch_ends(spectrum)
    per = {
        s: sum(c.per_instance for c in plan.counters if c.scope == s)
        for s in ("port", "lane", "module")
    }
    assert plan.series == plan.ports * per["port"] + plan.lanes * per["lane"] + (
        plan.modules * per["module"]
    )
    assert plan.samples_per_s == pytest.approx(plan.series / 10)
    assert plan.bytes_per_day == pytest.approx(plan.series / 10 * 86_400 * 2)
    fast = telemetry_plan(spectrum, facts, pfc_ecn_interval_s=1)
    pfc_ecn = sum(c.fast for c in fast.counters) * fast.ports
    assert fast.samples_per_s == pytest.approx(plan.samples_per_s + pfc_ecn * (1 - 0.1))
    assert plan.pre_fec_ber_max == KP4_PRE_FEC_BER  # 100G-per-lane PAM4 optics
    # the seed gives no launch power for these modules: said in words, not as a field name
    said = "launch power (Tx average, minimum) not in the catalog for MMA4Z00-NS"
    assert any(said in n for n in plan.notes) and said in plan.rx[0].note
    exports = "".join(prometheus_rules_chunks(plan)) + "".join(gnmic_chunks(plan))
    assert said in exports and "tx_avg_min_dbm" not in exports + str(plan.as_dict())
    with pytest.raises(ValueError, match="interval_s"):
        telemetry_plan(spectrum, facts, interval_s=0)


def test_rx_min_is_launch_power_minus_the_budgets_worst_loss(spectrum, lit):
    plan = telemetry_plan(spectrum, lit)
    budgets = compute_budgets(spectrum, lit)
    assert plan.rx and all(r.rx_min_dbm is not None for r in plan.rx)
    for row in plan.rx:
        kinds = [
            i
            for i, t in enumerate(budgets.terms)
            if {t.a, t.b} == {row.transmitter, row.receiver} and t.fiber == row.fiber
        ]
        mask = np.isin(budgets.kind, kinds) & (
            spectrum.link_tier[budgets.links]
            == ["server-leaf", "leaf-spine", "spine-core"].index(row.tier)
        )
        worst = float(budgets.loss_worst_db[mask].max())
        assert row.rx_min_dbm == pytest.approx(-3.3 - worst, abs=1e-3)
        assert row.margin_db == pytest.approx(row.rx_min_dbm + 7.3, abs=1e-3)
    assert plan.rx_floor_dbm == min(r.rx_min_dbm for r in plan.rx)


def test_prometheus_rules_are_a_rule_file(spectrum, lit):
    plan = telemetry_plan(spectrum, lit, name="evil\n- alert: Injected")
    text = "".join(prometheus_rules_chunks(plan))
    document = yaml.safe_load(text)
    assert set(document) == {"groups"}
    rules = [rule for group in document["groups"] for rule in group["rules"]]
    for rule in rules:  # 'for' on levels only: one event of a counter fires (promtool tests)
        assert set(rule) - {"for"} == {"alert", "expr", "labels", "annotations"}
        assert rule["labels"]["severity"] in ("warning", "critical")
    by_name = {rule["alert"]: rule for rule in rules}
    assert "Injected" not in by_name and "\n- alert: Injected" not in text
    floor = by_name["FabricRxPowerBelowDesign"]["expr"]
    metric = gnmic_metric(
        "/components/component[name=*]/transceiver/physical-channels/channel[index=*]/state/"
        "input-power/instant"
    )
    assert floor == f"{metric} < {plan.rx_floor_dbm:g}"
    assert by_name["FabricPreFecBerHigh"]["expr"].endswith("> 0.00024")
    description = by_name["FabricRxPowerBelowDesign"]["annotations"]["description"]
    assert "One conservative threshold" in description and "server-leaf" in description


# --- the rules read only what the subscriptions collect ------------------------------------
#
# gNMIc's Prometheus output, re-derived here from its docs and code (telemetry SOURCES
# gnmic-prometheus, gnmic-prometheus-code, gnmic-event, gnmic-flattener): the value's path
# without keys, runs of [^a-zA-Z0-9_] as one "_", leading "_" dropped, after "<prefix>_"; the
# labels source, subscription_name, <element>_<key> per path key, target when the
# subscription names one; a JSON object value is flattened under the path with "/".

#: treydock/infiniband_exporter's metric names the InfiniBand rules may use (examples/
#: infiniband.rules of that repository).
IB_EXPORTER = {
    "infiniband_switch_port_transmit_discards_total",
    "infiniband_switch_port_receive_errors_total",
    "infiniband_switch_port_symbol_error_total",
    "infiniband_switch_port_link_downed_total",
    "infiniband_switch_port_transmit_wait_total",
}
_RUN = re.compile(r"[^a-zA-Z0-9_]+")
_PROMQL_WORDS = {"on", "ignoring", "group_left", "group_right", "by", "without", "and", "or",
                 "unless", "bool", "offset"}  # fmt: skip


def _gnmic_series(prefix: str, path: str, target: str | None) -> dict[str, set[str]]:
    """Metric name -> labels for one update of subscribed ``path`` (one port / key value)."""
    labels = {"source", "subscription_name"} | ({"target"} if target else set())
    for element, keys in re.findall(r"([^/\[]+)((?:\[[^\]]*\])+)", path):
        # gNMIc's GetLabels: each run of characters other than [a-zA-Z0-9_] one "_"
        labels |= {_RUN.sub("_", f"{element}_{key}") for key in re.findall(r"\[([^=]+)=", keys)}
    values = [re.sub(r"\[[^\]]*\]", "", path)]
    if target and "/Ethernet*" in path:  # SONiC virtual path: {"Ethernet0": {field: "0"}}
        field = path.rsplit("/", 1)[1]
        port = "Ethernet0:3" if field == "Queues" else "Ethernet0"
        field = "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS" if field == "Queues" else field
        values = [f"{path}/{port}/{field}"]
    return {f"{prefix}_" + _RUN.sub("_", value).lstrip("_"): labels for value in values}


def _collected(config: dict) -> tuple[dict[str, set[str]], dict[str, str]]:
    prefix = config["outputs"]["prometheus"]["metric-prefix"]
    series: dict[str, set[str]] = {}
    subscription: dict[str, str] = {}
    for name, sub in config["subscriptions"].items():
        for path in sub["paths"]:
            for metric, labels in _gnmic_series(prefix, path, sub.get("target")).items():
                assert metric not in subscription, f"{metric} in two subscriptions"
                series[metric], subscription[metric] = labels, name
    return series, subscription


def _selectors(expr: str) -> list[tuple[str, str]]:
    """(metric name or "~" + __name__ regex, its label matchers) of every selector in ``expr``."""
    expr = re.sub(r"\b(on|ignoring|by|without)\s*\([^)]*\)", " ", expr)  # label lists
    expr = re.sub(r"\[\d+[smhd](:\d*[smhd]?)?\]", "", expr)  # range windows, subqueries
    expr = re.sub(r',\s*"[^"]*"', "", expr)  # string arguments (label_replace)
    expr = re.sub(r"[a-zA-Z_]+\s*\(", "(", expr)  # function names
    found = []
    for name, matchers in re.findall(r"([a-zA-Z_:][a-zA-Z0-9_:]*)?(\{[^}]*\})?", expr):
        if (not name and not matchers) or name in _PROMQL_WORDS:
            continue
        if not name:
            regex = re.search(r'__name__=~"([^"]+)"', matchers)
            assert regex, f"selector without a metric name in {expr!r}"
            name = "~" + regex.group(1)
        found.append((name, matchers))
    return found


def _check_rules(plan) -> int:
    """Every selector of every rule is a series the plan's collectors make; every two-sided
    comparison is matched one-to-one (or many-to-one) on labels both sides carry."""
    rules = prometheus_rules(plan)
    ethernet = any(os_name != "infiniband" for os_name in plan.ports_by_os)
    series, subscription = _collected(gnmic_config(plan)) if ethernet else ({}, {})
    strings_as_labels = ethernet and gnmic_config(plan)["outputs"]["prometheus"].get(
        "strings-as-labels"
    )
    checked = 0
    for group in rules["groups"]:
        for rule in group["rules"]:
            expr = rule["expr"]
            assert not re.search(r'=~"\.[*+]"|severity=\*|=~""', expr), expr  # no wildcard joins
            used = []
            for name, matchers in _selectors(expr):
                if group["name"] == "fabric-infiniband":
                    assert name in IB_EXPORTER, name
                    continue
                if name.startswith("~"):
                    hits = [m for m in series if re.fullmatch(name[1:], m)]
                    assert hits, f"{name} matches no collected series"
                    name = hits[0]
                assert name in series, f"{rule['alert']}: {name} is not collected"
                labels = set(series[name])
                if "oper_status" in matchers:  # a string value: a label only with this flag
                    assert strings_as_labels
                    labels.add("oper_status")
                for label in re.findall(r"([a-zA-Z_]+)\s*[!=]~?", matchers):
                    assert label == "__name__" or label in labels, (rule["alert"], label)
                used.append((name, labels, matchers))
                checked += 1
            if len(used) == 2:  # a vector match: on(...) names labels both sides carry, and
                on = re.search(r"\bon\(([^)]*)\)", expr)  # the right side is one per match
                assert on, f"{rule['alert']}: a vector match without on(...)"
                keys = {k.strip() for k in on.group(1).split(",")}
                (left, left_labels, _), (right, right_labels, right_matchers) = used
                assert keys <= left_labels and keys <= right_labels, (rule["alert"], keys)
                fixed = set(re.findall(r'([a-z_]+)=~?"[^"]*"', right_matchers))
                assert right_labels - keys - fixed == {"subscription_name"}, right_labels
                assert subscription[right] and "threshold_severity" in fixed
                many = left_labels - keys - {"subscription_name"}
                assert ("group_left" in expr) == bool(many), (rule["alert"], many)
            assert len(used) <= 2
    return checked


def test_rules_read_only_collected_series_matched_one_to_one(spectrum, lit, facts):
    assert _check_rules(telemetry_plan(spectrum, lit)) >= 8  # Cumulus: OpenConfig paths
    sonic = telemetry_plan(_fabric(facts, "juniper-jvd-qfx5240", 4), facts)
    assert set(sonic.ports_by_os) == {"sonic"} and _check_rules(sonic) >= 1
    assert _check_rules(telemetry_plan(_fabric(facts, "h100-superpod-1su", 8), facts)) == 0
    rules = {r["alert"]: r["expr"] for g in prometheus_rules(telemetry_plan(spectrum, lit))[
        "groups"] for r in g["rules"]}  # fmt: skip
    assert "on(source, component_name)" in rules["FabricModuleTemperatureHigh"]
    assert "group_left" in rules["FabricRxPowerBelowModuleThreshold"]
    assert gnmic_metric("/a/b[c=*]/d-e") == "fabric_a_b_d_e"
    assert gnmic_labels("/a/x:b[c=*]/d[e=1][f=2]/g") == {
        "b_c", "d_e", "d_f", "source", "subscription_name"
    }  # fmt: skip


def test_promtool_accepts_the_rules(spectrum, lit, facts):
    promtool = shutil.which("promtool")
    if promtool is None:
        if os.environ.get("CI"):
            pytest.fail("promtool missing in CI (.ci/run installs Debian's prometheus)")
        pytest.skip("promtool not installed (apt-get install prometheus); CI runs this check")
    plans = [telemetry_plan(spectrum, lit, name="evil\n- alert: Injected"),
             telemetry_plan(_fabric(facts, "juniper-jvd-qfx5240", 4), facts),
             telemetry_plan(_fabric(facts, "h100-superpod-1su", 8), facts)]  # fmt: skip
    for plan in plans:
        text = "".join(prometheus_rules_chunks(plan))
        done = subprocess.run(
            [promtool, "check", "rules", "/dev/stdin"], input=text, text=True, capture_output=True
        )
        assert done.returncode == 0, done.stdout + done.stderr


def test_gnmic_subscriptions(spectrum, facts):
    config = yaml.safe_load("".join(gnmic_chunks(telemetry_plan(spectrum, facts))))
    subs = config["subscriptions"]
    assert subs and config["outputs"]["prometheus"]["metric-prefix"] == "fabric"
    for sub in subs.values():
        assert sub["mode"] == "stream" and sub["paths"]
        assert sub["stream-mode"] in ("sample", "on-change")
        if sub["stream-mode"] == "sample":
            assert sub["sample-interval"] == "10s"
    paths = [p for sub in subs.values() for p in sub["paths"]]
    assert "/interfaces/interface[name=*]/state/counters/in-octets" in paths


def test_eos_pfc_counters_are_aristas_openconfig_augment(facts):
    """EOS streams PFC frames per priority under Arista's augment of OpenConfig; its gNMI path
    report lists ``interfaces/interface/ethernet/pfc/priorities/priority/state/in-frames,leaf,
    read,uint64,oc-yang:counter64`` (aristanetworks/yang 63be023a, EOS-4.36.1F/pathreport.csv;
    the model's list key is ``index``, arista-intf-augments.yang)."""
    plan = telemetry_plan(_fabric(facts, "arista-7060x6-rail", 8), facts)
    assert set(plan.ports_by_os) == {"eos"} and plan.lossless_priority == 3
    config = gnmic_config(plan)
    paths = [p for sub in config["subscriptions"].values() for p in sub["paths"]]
    base = "/interfaces/interface[name=*]/ethernet/pfc/priorities/priority[index=3]/state/"
    assert base + "in-frames" in paths and base + "out-frames" in paths
    storm = {r["alert"]: r for g in prometheus_rules(plan)["groups"] for r in g["rules"]}[
        "FabricPfcPauseStorm"]  # fmt: skip
    # gNMIc's name for the path (keys dropped, runs of other characters one "_") and its key
    assert storm["expr"] == (
        "increase(fabric_interfaces_interface_ethernet_pfc_priorities_priority_state_in_frames"
        '{priority_index="3"}[1m]) > 60000'
    )
    assert storm["for"] == "2m" and _check_rules(plan) >= 8
    for counter in plan.counters:  # the page links each source: a URL of the augment's repo
        if counter.key in ("pfc_rx", "pfc_tx"):
            keys = counter.paths["eos"].source.split("; ")
            assert all(SOURCES[k].startswith("https://github.com/aristanetworks/") for k in keys)


def test_infiniband_plan_uses_perfquery_and_refuses_gnmi(facts):
    fabric = _fabric(facts, "h100-superpod-1su", 8)
    plan = telemetry_plan(fabric, facts)
    assert set(plan.ports_by_os) == {"infiniband"} and plan.pre_fec_ber_max is None
    names = {c.paths["infiniband"].path for c in plan.counters}
    assert {"perfquery: PortXmitWait", "perfquery: SymbolErrorCounter"} <= names
    rules = yaml.safe_load("".join(prometheus_rules_chunks(plan)))["groups"]
    assert [g["name"] for g in rules] == ["fabric-infiniband"]
    assert any("infiniband_switch_port_link_downed_total" in r["expr"] for r in rules[0]["rules"])
    with pytest.raises(TelemetryError) as refused:
        gnmic_chunks(plan)
    assert refused.value.code == "not-ethernet" and not math.isnan(plan.samples_per_s)
