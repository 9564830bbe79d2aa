"""A telemetry plan written out: gNMIc collector config, Prometheus alert rules, plan rows.

Split from :mod:`planner.domain.outputs.telemetry`, which builds the
:class:`~planner.domain.outputs.telemetry.TelemetryPlan` (counters, paths, thresholds and their
sources); here are the metric names gNMIc gives those paths and the files that carry the plan
to a collector and to Prometheus, streamed in chunks."""

from __future__ import annotations

import re
from collections.abc import Iterator

import yaml

from planner.domain.outputs.config.text import safe_comment
from planner.domain.outputs.telemetry import (
    _JOIN,
    _SEVERITY_MATCH,
    _SONIC_PORT,
    ALERT_FOR,
    ALERT_SEVERITY,
    FORMAT,
    METRIC_PREFIX,
    OS_TITLES,
    PFC_STORM_FOR,
    PFC_STORM_FRAMES_PER_MIN,
    RATE_WINDOW,
    SUBQUERY_STEP,
    CounterSpec,
    TelemetryError,
    TelemetryPlan,
)

__all__ = [
    "gnmic_chunks",
    "gnmic_config",
    "gnmic_metric",
    "plan_rows",
    "prometheus_rules",
    "prometheus_rules_chunks",
]


_KEYS = re.compile(r"\[[^\]]*\]")


#: gNMIc's metricNameRegex (gnmic-prometheus-code): a run of these becomes one underscore.
_NON_ALNUM = re.compile(r"[^a-zA-Z0-9_]+")


IB_METRICS = {
    "xmit_discards": "infiniband_switch_port_transmit_discards_total",
    "rcv_errors": "infiniband_switch_port_receive_errors_total",
    "symbol_errors": "infiniband_switch_port_symbol_error_total",
    "link_downed": "infiniband_switch_port_link_downed_total",
}


def gnmic_metric(path: str, prefix: str = METRIC_PREFIX) -> str:
    """The metric name gNMIc's Prometheus output gives ``path`` (keys stripped, each run of
    characters other than ``[a-zA-Z0-9_]`` one underscore, leading ones dropped, joined to the
    prefix with one; gnmic-prometheus "Metric Naming").

    >>> gnmic_metric("/interfaces/interface[name=*]/state/counters/in-octets")
    'fabric_interfaces_interface_state_counters_in_octets'
    """
    body = _NON_ALNUM.sub("_", _KEYS.sub("", path)).lstrip("_")
    return f"{prefix}_{body}" if prefix else body


def gnmic_labels(path: str) -> set[str]:
    """The labels gNMIc's Prometheus output gives a series of ``path``: ``source``,
    ``subscription_name`` and ``<element>_<key>`` per key (gnmic-prometheus "Metric Labels").

    >>> sorted(gnmic_labels("/components/component[name=*]/state/temperature/instant"))
    ['component_name', 'source', 'subscription_name']
    """
    return {"source", "subscription_name"} | set(_key_labels(path))


def _key_labels(path: str) -> dict[str, str]:
    """``<element>_<key>`` label -> the key's value in ``path`` (``*`` for a wildcard).

    >>> _key_labels("/a/priorities/priority[index=3]/state/in-frames")
    {'priority_index': '3'}
    """
    labels = {}
    for element, keys in re.findall(r"([^/\[]+)((?:\[[^\]]*\])+)", path):
        for key, value in re.findall(r"\[([^=\]]+)=([^\]]*)\]", keys):
            labels[_NON_ALNUM.sub("_", f"{element.split(':')[-1]}_{key}")] = value
    return labels


def _selector(counter: CounterSpec, os_name: str) -> str | None:
    where = counter.paths.get(os_name)
    if where is None or not where.path or where.path.startswith(("perfquery", "mlxlink")):
        return None
    if where.target == "COUNTERS_DB" and where.path.startswith(_SONIC_PORT):
        # The virtual path's value is {"Ethernet0": {field: value}, ...}: gNMIc flattens it
        # under the path, so the port sits in the name (gnmic-flattener, gnmic-prometheus-code).
        field_name = where.path.removeprefix(_SONIC_PORT)
        base = gnmic_metric(where.path)
        return f'{{__name__=~"{base}_Ethernet[0-9]+_{field_name}"}}'
    if where.target:
        return None
    # A key the path fixes (the lossless priority) is a label matcher too: the rule reads that
    # priority only, even from a collector that subscribes to every priority.
    fixed = [f'{k}="{v}"' for k, v in _key_labels(where.path).items() if v != "*"]
    return gnmic_metric(where.path) + (f"{{{', '.join(fixed)}}}" if fixed else "")


def _increase(metric: str, window: str) -> str:
    """``increase`` of a counter over ``window``, one series per port: a SONiC selector (the
    port in the metric name, which ``increase`` drops) first gets the port as label
    ``interface_name``, or two ports of a switch would give one label set (an evaluation error).
    """
    if not metric.startswith("{"):
        return f"increase({metric}[{window}])"
    names = re.search(r'__name__=~"([^"]+)"', metric)
    port = names.group(1).replace("Ethernet[0-9]+", "(Ethernet[0-9]+)", 1) if names else ""
    if "(" not in port:
        raise ValueError(f"no port in the selector {metric!r}")
    labelled = f'label_replace({metric}, "interface_name", "$1", "__name__", "{port}")'
    return f"increase({labelled}[{window}:{SUBQUERY_STEP}])"


def _rule(
    alert, expr, summary, *, severity="warning", description="", hold=ALERT_FOR, **labels
) -> dict:
    """One alerting rule; ``hold`` is its ``for`` (None for an event counter: one event fires,
    as ``increase`` over the window stays above 0 for the window's length)."""
    annotations = {"summary": summary}
    if description:
        annotations["description"] = description
    rule = {"alert": alert, "expr": expr}
    if hold:
        rule["for"] = hold
    rule["labels"] = {"severity": severity, **labels}
    rule["annotations"] = annotations
    return rule


def _rx_classes(plan: TelemetryPlan) -> str:
    """The per-class expectations behind the single Rx threshold, in words."""
    known = [r for r in plan.rx if r.rx_min_dbm is not None]
    parts = [f"{r.tier} {r.transmitter} -> {r.receiver}: {r.rx_min_dbm:g} dBm" for r in known[:8]]
    more = f"; {len(known) - 8:,} more classes" if len(known) > 8 else ""
    return (
        "One conservative threshold for every port: the lowest class's worst case. The series "
        "do not tell a port's link class (their labels are the target and the switch's "
        "transceiver name), so no per-class rule. Classes: " + "; ".join(parts) + more + "."
    )


def prometheus_rules(plan: TelemetryPlan) -> dict:
    """The alerting rules of ``plan`` as a Prometheus rule-file document (``groups``).

    Long because: each alert is a few lines of expression and text, listed in the order the
    file shows them, per operating system (``tests/unit/test_telemetry_promtool.py`` has a
    promtool case for each).
    """
    groups = []
    by_key = {c.key: c for c in plan.counters}
    for os_name in sorted(plan.ports_by_os):
        if os_name == "infiniband":
            continue
        rules = []

        def sel(key, os_name=os_name):
            counter = by_key.get(key)
            return _selector(counter, os_name) if counter else None

        if (metric := sel("fec_uncorrectable")) is not None:
            rules.append(_rule(
                "FabricFecUncorrectable", f"{_increase(metric, RATE_WINDOW)} > 0",
                "Uncorrectable FEC codewords (expected 0: each is a lost frame)",
                severity="critical", hold=None,
            ))  # fmt: skip
        if plan.transport == "roce":
            for key in ("in_discards", "out_discards"):
                if (metric := sel(key)) is not None:
                    rules.append(_rule(
                        f"FabricDiscards{'In' if key == 'in_discards' else 'Out'}",
                        f"{_increase(metric, RATE_WINDOW)} > 0",
                        "Discards on a RoCE fabric (the lossless class should drop none; "
                        "check which class dropped)", hold=None,
                    ))  # fmt: skip
            if (metric := sel("pfc_rx")) is not None:
                rules.append(_rule(
                    "FabricPfcPauseStorm",
                    f"{_increase(metric, '1m')} > {PFC_STORM_FRAMES_PER_MIN}",
                    f"Over {PFC_STORM_FRAMES_PER_MIN:,} PFC pause frames received per minute "
                    f"for {PFC_STORM_FOR} on the lossless priority: a pause storm (a stuck "
                    "receiver); the PFC watchdog should act",
                    description="Threshold an estimate: a third of the frame rate that holds "
                    "a 100 Gb/s priority paused at the largest pause (65,535 quanta of 512 bit "
                    "times, IEEE 802.1Qbb); normal PFC use comes in millisecond bursts.",
                    severity="critical", hold=PFC_STORM_FOR,
                ))  # fmt: skip
        if plan.pre_fec_ber_max is not None and (metric := sel("pre_fec_ber")) is not None:
            rules.append(_rule(
                "FabricPreFecBerHigh", f"{metric} > {plan.pre_fec_ber_max:g}",
                f"Pre-FEC BER over {plan.pre_fec_ber_max:g}, the RS(544,514) limit of "
                "100G-per-lane PAM4 optics",
            ))  # fmt: skip
        if (metric := sel("rx_power")) is not None and not metric.startswith("{"):
            if plan.rx_floor_dbm is not None:
                rules.append(_rule(
                    "FabricRxPowerBelowDesign", f"{metric} < {plan.rx_floor_dbm:g}",
                    f"Receive power under {plan.rx_floor_dbm:g} dBm, the design's lowest "
                    "expected worst case of any link class (Tx min minus the worst link's loss)",
                    description=_rx_classes(plan),
                ))  # fmt: skip
            if (threshold := sel("rx_power_threshold")) is not None:
                rules.append(_rule(
                    "FabricRxPowerBelowModuleThreshold",
                    f"{metric} < {_JOIN} group_left {threshold}{{{_SEVERITY_MATCH}}}",
                    f"Receive power under the module's own {ALERT_SEVERITY} lower threshold",
                ))  # fmt: skip
        temperature = sel("temperature")
        threshold = sel("temperature_threshold")
        if temperature and threshold and not temperature.startswith("{"):
            rules.append(_rule(
                "FabricModuleTemperatureHigh",
                f"{temperature} > {_JOIN} {threshold}{{{_SEVERITY_MATCH}}}",
                f"Module temperature over the module's own {ALERT_SEVERITY} threshold (CMIS)",
            ))  # fmt: skip
        if (metric := sel("oper_status")) is not None:
            rules.append(_rule(
                "FabricLinkDown", f'{metric}{{oper_status!="UP"}} > 0',
                "A linked port is not up", severity="critical", hold=None,
            ))  # fmt: skip
        if rules:
            groups.append({"name": f"fabric-{os_name}", "rules": rules})
    if "infiniband" in plan.ports_by_os:
        rules = [
            _rule(
                f"Fabric{key.title().replace('_', '')}",
                f"increase({metric}[{RATE_WINDOW}]) > 0",
                f"{by_key[key].title}: expected {by_key[key].expected}",
                severity="critical" if key == "link_downed" else "warning",
                hold=None,
            )
            for key, metric in IB_METRICS.items()
            if key in by_key
        ]
        groups.append({"name": "fabric-infiniband", "rules": rules})
    return {"groups": groups}


def _header(plan: TelemetryPlan, what: str) -> list[str]:
    lines = [
        f"# {what}",
        f"# Design: {safe_comment(plan.name)}"
        + (f", revision {plan.revision}" if plan.revision is not None else ""),
        f"# Format: {FORMAT}",
        f"# Ports {plan.ports:,}, modules {plan.modules:,}, lanes {plan.lanes:,}; "
        f"{plan.samples_per_s:,.1f} samples/s, {plan.bytes_per_day / 1e9:,.3f} GB/day at "
        f"{plan.bytes_per_sample:g} bytes/sample (Prometheus storage docs: 1-2).",
        f"# Alert 'for' ({ALERT_FOR}, levels only: one event of a counter fires) and rate "
        f"windows ({RATE_WINDOW}) are a choice, not a sourced figure.",
    ]
    lines += [f"# Note: {safe_comment(n)}" for n in plan.notes]
    return lines


def _yaml(document: dict) -> str:
    return yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=120)


def prometheus_rules_chunks(plan: TelemetryPlan) -> Iterator[str]:
    """The Prometheus rule file (YAML) of ``plan``."""
    header = _header(
        plan,
        "Prometheus alerting rules (metric names: gNMIc Prometheus output, "
        f"metric-prefix {METRIC_PREFIX}; InfiniBand: infiniband_exporter)",
    )
    yield "\n".join(header) + "\n"
    yield _yaml(prometheus_rules(plan))


def gnmic_config(plan: TelemetryPlan) -> dict:
    """gNMIc subscriptions (and the Prometheus output they feed) of ``plan``."""
    subscriptions: dict[str, dict] = {}
    for os_name in sorted(plan.ports_by_os):
        if os_name == "infiniband":
            continue
        groups: dict[tuple, list[str]] = {}
        for counter in plan.counters:
            where = counter.paths.get(os_name)
            if where is None or not where.path or where.path.startswith(("perfquery", "mlxlink")):
                continue
            interval = plan.pfc_ecn_interval_s if counter.fast else plan.interval_s
            key = (where.target, counter.mode, interval if counter.mode == "sample" else None)
            path = where.path.replace("{lane}", "*")
            if path not in groups.setdefault(key, []):
                groups[key].append(path)
        for (target, mode, interval), paths in groups.items():
            name = f"fabric-{os_name}" + (f"-{target.lower()}" if target else "")
            name += "-on-change" if mode == "on_change" else f"-{interval:g}s"
            entry: dict = {"paths": paths, "mode": "stream"}
            if target:
                entry["target"] = target
            entry["stream-mode"] = "on-change" if mode == "on_change" else "sample"
            if mode == "sample":
                entry["sample-interval"] = f"{interval:g}s"
            else:
                # Re-sent every interval even when unchanged (gnmic-subscriptions), so gNMIc's
                # Prometheus cache does not expire a link that stays down.
                entry["heartbeat-interval"] = f"{plan.interval_s:g}s"
            subscriptions[name] = entry
    return {
        "subscriptions": subscriptions,
        "outputs": {
            "prometheus": {
                "type": "prometheus",
                "listen": ":9804",
                "path": "/metrics",
                "metric-prefix": METRIC_PREFIX,
                "append-subscription-name": False,
                # oper-status is a string: exported (value 1, label oper_status) only with this.
                "strings-as-labels": True,
                # gNMIc drops a series not updated for 'expiration' (default 60s): keep each
                # for three of the longest intervals (a choice), never less than the default.
                "expiration": f"{max(60.0, 3 * max(plan.interval_s, plan.pfc_ecn_interval_s)):g}s",
            }
        },
    }


def gnmic_chunks(plan: TelemetryPlan) -> Iterator[str]:
    """The gNMIc subscription file (YAML) of ``plan``; targets (switch addresses) are left for
    the operator to add under ``targets:``.

    Raises
    ------
    TelemetryError
        ``not-ethernet``: no switch of the design is a gNMI target (InfiniBand).
    """
    if not any(os_name != "infiniband" for os_name in plan.ports_by_os):
        raise TelemetryError(
            "not-ethernet",
            "This design's switches run InfiniBand: they are not gNMI targets. Collect their "
            "perfquery counters (UFM or infiniband_exporter) and mlxlink module data; download "
            "the Prometheus rules instead.",
        )
    return _gnmic_lines(plan)


def _gnmic_lines(plan: TelemetryPlan) -> Iterator[str]:
    header = _header(plan, "gNMIc subscriptions (gNMI Subscribe, STREAM mode)")
    header.append("# Add the switches under 'targets:' (address:port, credentials).")
    if "infiniband" in plan.ports_by_os:
        header.append("# InfiniBand switches are not gNMI targets: collect perfquery counters "
                      "(infiniband_exporter) and mlxlink module data.")  # fmt: skip
    yield "\n".join(header) + "\n"
    yield _yaml(gnmic_config(plan))


def plan_rows(plan: TelemetryPlan) -> list[dict]:
    """One row per counter for a page: title, scope, unit, series, interval, samples/s, the
    path per OS of the design (``paths``: ``[(os title, path or note, source)]``), expected."""
    rows = []
    for counter in plan.counters:
        expected = counter.expected
        if counter.key == "rx_power" and plan.rx_floor_dbm is not None:
            expected = f"≥ {plan.rx_floor_dbm:g} dBm (design's worst link)"
        if counter.key == "pre_fec_ber" and plan.pre_fec_ber_max is not None:
            expected = f"≤ {plan.pre_fec_ber_max:g} (RS(544,514), 100G/lane PAM4)"
        if counter.key in ("in_octets", "out_octets") and plan.utilization:
            expected = (
                "; ".join(
                    f"{tier}: max {row.get('max', 0) * 100:.0f} %"
                    for tier, row in plan.utilization.items()
                    if "max" in row
                )
                + " of line rate (simulated)"
            )
        paths = []
        for os_name in sorted(plan.ports_by_os):
            where = counter.paths.get(os_name)
            if where is None:
                continue
            text = where.path or where.note
            if where.path and where.target:
                text = f"{where.target}: {where.path}"
            if where.path and where.note and not where.note.startswith("OpenConfig"):
                text = f"{text} ({where.note})"
            paths.append((OS_TITLES[os_name], text, where.source))
        rows.append(
            {
                "key": counter.key,
                "title": counter.title,
                "scope": counter.scope,
                "unit": counter.unit,
                "series": plan.instances(counter),
                "interval_s": plan.pfc_ecn_interval_s if counter.fast else plan.interval_s,
                "samples_per_s": plan.counter_rate(counter),
                "expected": expected or "—",
                "paths": paths,
            }
        )
    return rows
