"""Telemetry plan (planner.domain.outputs.telemetry): counts per port and module, the expected
receive power from the optical budget, and the two exports (Prometheus rules, gNMIc
subscriptions) checked as YAML documents of their formats."""

from __future__ import annotations

import math
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
    TelemetryError,
    gnmic_chunks,
    gnmic_metric,
    prometheus_rules_chunks,
    telemetry_plan,
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
    per = {s: sum(c.scope == s for c in plan.counters) for s in ("port", "lane", "module")}
    assert plan.series == plan.ports * per["port"] + plan.lanes * per["lane"] + (
        plan.modules * per["module"]
    )
    assert plan.samples_per_s == pytest.approx(plan.series / 10)
    assert plan.bytes_per_day == pytest.approx(plan.series / 10 * 86_400 * 2)
    fast = telemetry_plan(spectrum, facts, pfc_ecn_interval_s=1)
    pfc_ecn = sum(c.fast for c in fast.counters) * fast.ports
    assert fast.samples_per_s == pytest.approx(plan.samples_per_s + pfc_ecn * (1 - 0.1))
    assert plan.pre_fec_ber_max == KP4_PRE_FEC_BER  # 100G-per-lane PAM4 optics
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
    for rule in rules:
        assert set(rule) == {"alert", "expr", "for", "labels", "annotations"}
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
    promtool = shutil.which("promtool")
    if promtool:
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
