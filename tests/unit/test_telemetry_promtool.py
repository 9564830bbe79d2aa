"""The exported Prometheus alert rules run by the real ``promtool test rules`` (Debian's
prometheus package; CI installs it): every alert of the presets' rule files fires on its fault
and stays quiet otherwise, a single event of a counter included, with two ports of a switch
reporting (one label set per port). The test file is generated here from the plan's own metric
names, so a renamed metric or a changed rule fails it."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from planner.domain.outputs.telemetry import telemetry_plan
from planner.domain.outputs.telemetry_files import (
    IB_METRICS,
    gnmic_metric,
    prometheus_rules,
    prometheus_rules_chunks,
)
from tests.unit.test_telemetry_plan import _fabric, lit, spectrum  # noqa: F401 (fixtures)

STEP = "15s"  # the test's scrape interval
QUIET = "0+0x80"  # 20 minutes of a counter that does not move


def _promtool() -> str:
    promtool = shutil.which("promtool")
    if promtool is None:
        if os.environ.get("CI"):
            pytest.fail("promtool missing in CI (.ci/run installs Debian's prometheus)")
        pytest.skip("promtool not installed (apt-get install prometheus); CI runs this check")
    return promtool


def _series(name: str, labels: dict[str, str]) -> str:
    body = ", ".join(f'{k}="{v}"' for k, v in labels.items())
    return f"{name}{{{body}}}"


class Cases:
    """promtool test groups for one rule file; ``covered`` the alerts given a case."""

    def __init__(self, rules: dict):
        self.rules = {r["alert"]: r for g in rules["groups"] for r in g["rules"]}
        self.tests: list[dict] = []
        self.covered: set[str] = set()

    def add(self, alert, series, fires, quiet, labels=None):
        """``series``: [(series text, promtool values)]; ``fires``/``quiet``: eval times at
        which the alert is/is not firing; ``labels``: the firing alert's series labels."""
        rule = self.rules[alert]
        expected = [{
            "exp_labels": {**(labels or {}), **rule["labels"]},
            "exp_annotations": rule["annotations"],
        }]  # fmt: skip
        checks = [{"eval_time": t, "alertname": alert, "exp_alerts": expected} for t in fires]
        checks += [{"eval_time": t, "alertname": alert, "exp_alerts": []} for t in quiet]
        self.tests.append({
            "interval": STEP,
            "input_series": [{"series": s, "values": v} for s, v in series],
            "alert_rule_test": checks,
        })  # fmt: skip
        self.covered.add(alert)


def _port(os_name: str, switch: str, port: str) -> dict[str, str]:
    sub = f"fabric-{os_name}-10s"
    if os_name == "sonic":
        return {"source": switch, "subscription_name": sub, "target": "COUNTERS_DB"}
    return {"source": switch, "subscription_name": sub, "interface_name": port}


def _metric(plan, key: str, os_name: str, port: str) -> str:
    """The series name gNMIc gives counter ``key`` of ``port`` (SONiC: the port in the name)."""
    where = next(c for c in plan.counters if c.key == key).paths[os_name]
    if os_name == "sonic":
        field = where.path.rsplit("/", 1)[1]
        return f"{gnmic_metric(where.path)}_{port}_{field}"
    return gnmic_metric(where.path)


def _event_counter(cases, alert, name_of, labels_of):
    """One event on one of two ports: fires at once, clears after the window; the other
    port (a non-zero but flat counter) stays quiet."""
    series = [
        (_series(name_of("p1"), labels_of("p1")), "0+0x40 1+0x40"),  # +1 at 10m
        (_series(name_of("p2"), labels_of("p2")), "7+0x80"),
    ]
    cases.add(alert, series, fires=["10m15s", "11m", "14m"], quiet=["5m", "9m45s", "16m"],
              labels=labels_of("p1", firing=True))  # fmt: skip


def _ethernet_cases(plan, os_name: str) -> Cases:
    cases = Cases(prometheus_rules(plan))
    a, b = {"sonic": ("Ethernet0", "Ethernet8"), "eos": ("Ethernet1/1", "Ethernet2/1")}.get(
        os_name, ("swp1", "swp2")
    )
    ports = {"p1": a, "p2": b}

    def labels_of(p, firing=False):
        labels = _port(os_name, "leaf01", ports[p])
        if os_name == "sonic" and firing:
            labels["interface_name"] = ports[p]  # the rule puts the port back as a label
        return labels

    alerts = {
        "FabricFecUncorrectable": "fec_uncorrectable",
        "FabricDiscardsIn": "in_discards",
        "FabricDiscardsOut": "out_discards",
    }
    for alert, key in alerts.items():
        if alert in cases.rules:

            def name_of(p, key=key):
                return _metric(plan, key, os_name, ports[p])

            if key == "fec_uncorrectable" and os_name != "sonic":  # per module, not port

                def labels_of_module(p, firing=False):
                    return {"source": "leaf01", "subscription_name": f"fabric-{os_name}-10s",
                            "component_name": f"{ports[p]}-xcvr"}  # fmt: skip

                _event_counter(cases, alert, name_of, labels_of_module)
            else:
                _event_counter(cases, alert, name_of, labels_of)
    if "FabricPfcPauseStorm" in cases.rules:
        name = {p: _metric(plan, "pfc_rx", os_name, port) for p, port in ports.items()}

        lossless = str(plan.lossless_priority if plan.lossless_priority is not None else 3)

        def pfc(p, firing=False, priority=lossless):
            if os_name == "sonic":
                return labels_of(p, firing)
            keys = {  # the path's keys as gNMIc labels them, <element>_<key> (gnmic-prometheus)
                # Cumulus 5.14: /qos/interfaces/interface[interface-id]/…/switch-priority[priority]
                "nvue": {"interface_interface_id": ports[p], "switch_priority_priority": priority},
                # EOS path report: interfaces/interface/ethernet/pfc/priorities/priority/state/
                # in-frames (list keys name and index; aristanetworks/yang EOS-4.36.1F)
                "eos": {"interface_name": ports[p], "priority_index": priority},
            }[os_name]
            return {"source": "leaf01", "subscription_name": f"fabric-{os_name}-1s", **keys}

        per_step = 100_000 // 4  # a 100k-frames/min storm, scraped every 15 s
        normal = 5_000 // 4  # normal PFC use: 5,000 frames/min (83/s), sustained
        storm = [
            (_series(name["p1"], pfc("p1")), f"0+0x20 0+{per_step}x60"),  # from 5m on
            (_series(name["p2"], pfc("p2")), f"0+{normal}x80"),
        ]
        cases.add("FabricPfcPauseStorm", storm, fires=["8m15s", "15m"], quiet=["4m", "6m", "7m30s"],
                  labels=pfc("p1", True))  # fmt: skip
        burst = [  # one busy minute, then normal use: not a storm
            (_series(name["p1"], pfc("p1")), f"0+0x20 0+{per_step}x4 100000+{normal}x56"),
            (_series(name["p2"], pfc("p2")), f"0+{normal}x80"),
        ]
        cases.add("FabricPfcPauseStorm", burst, fires=[], quiet=["5m", "6m", "7m", "9m", "15m"])
        if os_name != "sonic":  # the path names the priority: a collector subscribed to every
            other = str((int(lossless) + 1) % 8)  # priority storms on another one: quiet
            cases.add("FabricPfcPauseStorm", [
                (_series(name["p1"], pfc("p1", priority=other)), f"0+0x20 0+{per_step}x60"),
                (_series(name["p1"], pfc("p1")), f"0+{normal}x80"),
            ], fires=[], quiet=["8m15s", "15m"])  # fmt: skip
    if os_name == "sonic":
        return cases

    def module(port, **more):
        return {"source": "leaf01", "subscription_name": f"fabric-{os_name}-10s",
                "component_name": f"{port}-xcvr", **more}  # fmt: skip

    level = ["11m", "18m"], ["5m", "9m"]  # a fault from 5m on fires after 'for' (5m)
    if "FabricPreFecBerHigh" in cases.rules:
        name = _metric(plan, "pre_fec_ber", os_name, a)
        bad = plan.pre_fec_ber_max * 2
        cases.add("FabricPreFecBerHigh", [
            (_series(name, module(a)), f"1e-06x20 {bad}x60"),
            (_series(name, module(b)), "1e-06x80"),
        ], *level, labels=module(a))  # fmt: skip
        cases.add("FabricPreFecBerHigh", [  # one bad reading: a level alert holds for 'for'
            (_series(name, module(a)), f"1e-06x20 {bad} 1e-06x60"),
        ], fires=[], quiet=["5m15s", "12m"])  # fmt: skip
    rx = _metric(plan, "rx_power", os_name, a)
    if "FabricRxPowerBelowDesign" in cases.rules:
        low = plan.rx_floor_dbm - 1
        cases.add("FabricRxPowerBelowDesign", [
            (_series(rx, module(a, channel_index="1")), f"-2x20 {low:g}x60"),
            (_series(rx, module(b, channel_index="1")), "-2x80"),
        ], *level, labels=module(a, channel_index="1"))  # fmt: skip
    warning = "openconfig-alarm-types:WARNING"
    if "FabricRxPowerBelowModuleThreshold" in cases.rules:
        threshold = _metric(plan, "rx_power_threshold", os_name, a)
        thresholds = [
            (_series(threshold, {**module(port), "subscription_name": "fabric-thresholds",
                                 "threshold_severity": severity}), f"{value}x80")
            for port in (a, b)
            for severity, value in ((warning, -10), ("CRITICAL", -12))
        ]  # fmt: skip
        cases.add("FabricRxPowerBelowModuleThreshold", [
            (_series(rx, module(a, channel_index="1")), "-2x20 -11x60"),  # under WARNING
            (_series(rx, module(b, channel_index="1")), "-9x80"),  # above it
            *thresholds,
        ], *level, labels=module(a, channel_index="1"))  # fmt: skip
    if "FabricModuleTemperatureHigh" in cases.rules:
        temperature = _metric(plan, "temperature", os_name, a)
        threshold = _metric(plan, "temperature_threshold", os_name, a)
        cases.add("FabricModuleTemperatureHigh", [
            (_series(temperature, module(a)), "50x20 78x60"),
            (_series(temperature, module(b)), "50x80"),
            *[(_series(threshold, {**module(port), "subscription_name": "fabric-thresholds",
                                   "threshold_severity": severity}), f"{value}x80")
              for port in (a, b) for severity, value in (("WARNING", 75), ("CRITICAL", 80))],
        ], *level, labels={"source": "leaf01", "component_name": f"{a}-xcvr"})  # fmt: skip
    if "FabricLinkDown" in cases.rules:
        name = _metric(plan, "oper_status", os_name, a)

        def status(port, state):
            return _series(name, {**_port(os_name, "leaf01", port), "oper_status": state})

        cases.add("FabricLinkDown", [  # one link-down of 30 s at 10m, the series then expires
            (status(a, "UP"), "1x40 _x2 1x38"),
            (status(a, "DOWN"), "_x40 1x2"),
            (status(b, "UP"), "1x80"),
        ], fires=["10m", "10m30s"], quiet=["5m", "9m45s", "17m"],
           labels={**_port(os_name, "leaf01", a), "oper_status": "DOWN"})  # fmt: skip
    return cases


def _infiniband_cases(plan) -> Cases:
    cases = Cases(prometheus_rules(plan))
    for key, metric in IB_METRICS.items():
        alert = f"Fabric{key.title().replace('_', '')}"
        if alert not in cases.rules:
            continue

        def labels_of(p, firing=False):
            return {"guid": "0x98039b0300671234", "port": {"p1": "1", "p2": "2"}[p],
                    "switch": "ib-leaf01"}  # fmt: skip

        _event_counter(cases, alert, lambda p, metric=metric: metric, labels_of)
    return cases


def _run(tmp_path: Path, name: str, plan, cases: Cases, promtool: str):
    rules = tmp_path / f"{name}.rules.yaml"
    rules.write_text("".join(prometheus_rules_chunks(plan)))
    checked = subprocess.run([promtool, "check", "rules", str(rules)], capture_output=True,
                             text=True)  # fmt: skip
    assert checked.returncode == 0, checked.stdout + checked.stderr
    test = tmp_path / f"{name}.test.yaml"
    test.write_text(yaml.safe_dump({
        "rule_files": [rules.name], "evaluation_interval": STEP, "tests": cases.tests,
    }, sort_keys=False))  # fmt: skip
    done = subprocess.run([promtool, "test", "rules", test.name], cwd=tmp_path,
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert set(cases.rules) == cases.covered, set(cases.rules) - cases.covered


def test_every_alert_fires_on_its_fault_and_only_then(tmp_path, spectrum, lit, facts):  # noqa: F811
    promtool = _promtool()
    plans = {
        "nvue": telemetry_plan(spectrum, lit),
        "sonic": telemetry_plan(_fabric(facts, "juniper-jvd-qfx5240", 4), facts),
        "eos": telemetry_plan(_fabric(facts, "arista-7060x6-rail", 8), facts),
    }
    for os_name, plan in plans.items():
        assert set(plan.ports_by_os) == {os_name}
        _run(tmp_path, os_name, plan, _ethernet_cases(plan, os_name), promtool)
    ib = telemetry_plan(_fabric(facts, "h100-superpod-1su", 8), facts)
    _run(tmp_path, "infiniband", ib, _infiniband_cases(ib), promtool)
    alerts = {os: set(_ethernet_cases(p, os).rules) for os, p in plans.items()}
    # a pause-storm rule for every Ethernet OS (issue 38 item 5), each proven above
    assert "FabricPfcPauseStorm" in alerts["nvue"] & alerts["sonic"] & alerts["eos"]
