"""Counter snapshots (issue 23 items 5-6): the parser (CSV and JSON, bad rows named) and the
measured overlay's math (utilization, errors, Rx margin against the optical budget)."""

from __future__ import annotations

import json
import math
from types import SimpleNamespace

import numpy as np
import pytest

from planner.domain.asbuilt.counter_overlay import (
    PortRef,
    counter_overlay,
    fabric_resolver,
    resolve_rows,
    rx_expectation,
)
from planner.domain.asbuilt.counters import CountersError, parse_counters
from planner.domain.fabric import FabricBuilder
from planner.domain.physical.budget import compute_budgets
from planner.domain.physical.channels import point_to_point_channels
from planner.domain.physical.optics_tables import tables_for

pytestmark = pytest.mark.unit

# Test modules (made-up figures, not catalog data): a far end launching at least -3.0 dBm per
# lane and a receiver whose sensitivity is -7.0 dBm, over single-mode fibre.
MODULE = {
    "slug": "test-fr4",
    "category": "transceiver",
    "pmd": "FR4",
    "speed_gbps": 400,
    "media": "smf",
    "fiber_grades": ["OS2"],
    "channel_il_max_db": {"OS2": 4.0},
    "tx_avg_min_dbm": -3.0,
    "rx_avg_min_dbm": -7.0,
}
FIBRE = {"slug": "test-os2", "category": "fiber", "fiber_type": "smf", "fiber_grade": "OS2"}


def _fabric():
    """leaf-1 ports 1-2 to spine-1 ports 1-2 (400G), 500 m and 1,000 m of OS2."""
    builder = FabricBuilder()
    leaf = builder.add_nodes(["leaf-1"], role="leaf", model="L", ports=4, ports_per_cage=1)
    spine = builder.add_nodes(["spine-1"], role="spine", model="S", ports=4, ports_per_cage=1)
    builder.add_links(
        [leaf[0]] * 2, [0, 1], [spine[0]] * 2, [0, 1], tier="leaf-spine", plane=0, speed_gbps=400
    )
    fabric = builder.build({})
    fabric.parts = ["test-fr4", "test-os2"]
    fabric.link_a_part = np.zeros(2, np.int32)
    fabric.link_b_part = np.zeros(2, np.int32)
    fabric.link_cable_part = np.ones(2, np.int32)
    fabric.link_length_m = np.array([500.0, 1000.0])
    return fabric


@pytest.fixture(scope="module")
def fabric():
    return _fabric()


def _problems(text, fmt):
    with pytest.raises(CountersError) as caught:
        parse_counters(text, fmt)
    return [p.as_dict() for p in caught.value.problems]


# --- parser -------------------------------------------------------------------------------


def test_csv_reads_bytes_timestamps_and_lanes():
    text = (
        "device,port,timestamp_start,timestamp_end,rx_bytes,tx_bytes,fec_corrected,"
        "rx_power_dbm_lane1,rx_power_dbm_lane2,tx_power_dbm,temperature_c\n"
        "leaf-1,1,2026-12-01T10:00:00Z,2026-12-01T10:00:10Z,1000,2000,7,-2.5,-3.1,-1;-1.2,41.5\n"
        "leaf-1,2,,,,,,,,,\n"
    )
    rows = parse_counters(text, "counters-csv").rows
    first = rows[0]
    assert (first.row, first.device, first.port, first.interval_s) == (2, "leaf-1", "1", 10.0)
    assert (first.rx_bytes, first.tx_bytes, first.fec_corrected) == (1000, 2000, 7)
    assert first.rx_power_dbm == (-2.5, -3.1) and first.tx_power_dbm == (-1.0, -1.2)
    assert first.temperature_c == 41.5 and rows[1].rx_bytes is None


def test_json_list_map_and_wrapper():
    entry = {"interval_s": 5, "rx_util_pct": 40, "rx_power_dbm": [-2, "-inf"]}
    as_list = parse_counters(
        json.dumps([{"device": "leaf-1", "port": "1", **entry}]), "counters-json"
    )
    as_map = parse_counters(json.dumps({"leaf-1": {"swp1": entry}}), "counters-json")
    wrapped = parse_counters(
        json.dumps({"design": "pod A", "devices": {"leaf-1": {"1": entry}}}), "counters-json"
    )
    assert as_list.rows[0].rx_power_dbm == (-2.0, -math.inf)
    assert as_map.rows[0].port == "swp1" and as_map.rows[0].rx_util_pct == 40
    assert wrapped.design == "pod A" and wrapped.rows[0].device == "leaf-1"


def test_malformed_csv_rows_are_named():
    text = (
        "device,port,interval_s,rx_bytes,rx_power_dbm\n"
        "leaf-1,1,10,lots,-2\n"
        "leaf-1,2,0,5,-2\n"
        "leaf-1,3,10,-4,\n"
        ",4,10,1,\n"
        "leaf-1,5,,100,\n"
        "leaf-1,6,10,1,-2;x\n"
        "leaf-1,6,10,1,\n"
    )
    found = {(p["row"], p["field"], p["code"]) for p in _problems(text, "counters-csv")}
    assert found == {
        (2, "rx_bytes", "not-a-count"),
        (3, "interval_s", "bad-interval"),
        (4, "rx_bytes", "negative"),
        (5, "device", "missing"),
        (6, "interval_s", "missing-interval"),
        (7, "rx_power_dbm", "not-a-number"),
    }
    problems = _problems("device,port,rx_byts\nleaf-1,1,3\n", "counters-csv")
    assert problems[0]["row"] == 1 and problems[0]["code"] == "unknown-column"
    assert "rx_byts" in problems[0]["message"]
    dup = _problems("device,port\nleaf-1,1\nleaf-1,1\n", "counters-csv")
    assert dup[0]["row"] == 3 and dup[0]["code"] == "duplicate" and "row 2" in dup[0]["message"]


def test_malformed_json_is_named():
    assert _problems("{not json", "counters-json")[0]["code"] == "bad-json"
    assert _problems("42", "counters-json")[0]["code"] == "bad-json"
    bad = _problems(
        json.dumps([{"device": "leaf-1", "port": "1", "rx_util_pct": 130}]), "counters-json"
    )
    assert (bad[0]["row"], bad[0]["field"], bad[0]["code"]) == (1, "rx_util_pct", "out-of-range")
    assert "leaf-1 port 1" in bad[0]["message"]
    unknown = _problems(json.dumps({"leaf-1": {"1": {"rx_bites": 3}}}), "counters-json")
    assert unknown[0]["field"] == "rx_bites" and unknown[0]["code"] == "unknown-field"
    assert _problems("[]", "counters-json")[0]["code"] == "empty"


# --- resolving ------------------------------------------------------------------------------


def test_unknown_names_and_another_design(fabric):
    resolve = fabric_resolver(fabric)
    rows = parse_counters("device,port\nleaf-1,swp2\nspine-1,1\nleaf-1,4\n", "counters-csv").rows
    ends, uncabled = resolve_rows(rows, resolve)
    assert set(ends) == {PortRef(1, "a"), PortRef(0, "b")}
    assert [r.port for r in uncabled] == ["4"]
    bad = parse_counters("device,port\nleaf-9,1\nleaf-1,99\n", "counters-csv").rows
    with pytest.raises(CountersError) as caught:
        resolve_rows(bad, resolve)
    found = {(p.row, p.field, p.code) for p in caught.value.problems}
    assert found == {(2, "device", "unknown-device"), (3, "port", "unknown-port")}
    other = parse_counters("device,port\ngpu-77,1\nleaf-x,2\n", "counters-csv").rows
    with pytest.raises(CountersError) as caught:
        resolve_rows(other, resolve)
    assert [p.code for p in caught.value.problems] == ["other-design"]


# --- overlay math ---------------------------------------------------------------------------


def test_margin_is_measured_minus_budget_expectation(fabric):
    parts = {"test-fr4": MODULE, "test-os2": FIBRE}
    facts = SimpleNamespace(parts=parts)
    tables = tables_for(None)
    budgets = compute_budgets(fabric, facts, point_to_point_channels(fabric), tables)
    worst_db_per_km = float(tables.fiber_grades["OS2"]["attenuation_db_per_km"]["worst"])
    # expected Rx = far end's minimum launch power - worst-case loss (fibre only, point to point)
    expected = [-3.0 - 0.5 * worst_db_per_km, -3.0 - 1.0 * worst_db_per_km]
    snapshot = (
        "device,port,interval_s,rx_bytes,tx_bytes,fec_uncorrected,rx_power_dbm\n"
        "leaf-1,1,10,250000000000,0,0,-2.0;-3.0\n"  # 200 Gb/s of 400: 50 %; weakest lane -3.0
        "spine-1,2,10,,,3,-8.0\n"  # under the -7.0 dBm sensitivity
    )
    ends, _ = resolve_rows(parse_counters(snapshot, "counters-csv").rows, fabric_resolver(fabric))
    overlay = counter_overlay(fabric, ends, rx_expectation(fabric, budgets, parts))
    first, second = overlay["links"]["link:0"], overlay["links"]["link:1"]
    assert first["util"] == pytest.approx(0.5) and first["util_ba"] == pytest.approx(0.5)
    assert first["util_ab"] == 0.0  # leaf-1's tx
    assert first["a"]["expected_rx_dbm"] == pytest.approx(expected[0], abs=0.01)
    assert first["a"]["margin_db"] == pytest.approx(-3.0 - expected[0], abs=0.01)
    assert first["a"]["sensitivity_dbm"] == -7.0
    assert second["b"]["margin_db"] == pytest.approx(-8.0 - expected[1], abs=0.01)
    assert second["errors"] == {"fec_uncorrected": 3}
    assert second["flags"] == ["rx-below-sensitivity", "rx-below-expected", "fec-uncorrected"]
    assert first["flags"] == (["rx-below-expected"] if first["a"]["margin_db"] < 0 else [])
    assert overlay["flagged"][0]["link"] == "link:1" and overlay["flagged"][0]["b_port"] == 2


def test_unknown_figures_leave_margin_blank(fabric):
    parts = {"test-fr4": {**MODULE, "tx_avg_min_dbm": None, "rx_avg_min_dbm": None}}
    parts["test-os2"] = FIBRE
    budgets = compute_budgets(
        fabric, SimpleNamespace(parts=parts), point_to_point_channels(fabric), tables_for(None)
    )
    rows = parse_counters(
        "device,port,rx_power_dbm,util_pct\nleaf-1,1,-30,12.5\n", "counters-csv"
    ).rows
    ends, _ = resolve_rows(rows, fabric_resolver(fabric))
    entry = counter_overlay(fabric, ends, rx_expectation(fabric, budgets, parts))["links"]["link:0"]
    assert entry["a"]["expected_rx_dbm"] is None and entry["a"]["margin_db"] is None
    assert entry["flags"] == [] and entry["util"] == 0.125
