"""``manage.py fabric``: summary JSON, exit status and messages, generate --save."""

from __future__ import annotations

import json
from unittest import mock

import pytest
from django.core.management import ManagementUtility
from django.db import connections

from planner.designs.models import Design
from planner.domain.presets import EXAMPLES_DIR

FOUR_SU = EXAMPLES_DIR / "h100-superpod-4su.yaml"


def fabric(*args) -> int:
    """Run ``manage.py fabric ARGS`` as the shell does; returns the exit status.

    (The command closes database connections when it ends, as it should in a shell; here that
    would close the test's transaction, so closing is skipped.)
    """
    with mock.patch.object(connections, "close_all"):
        try:
            ManagementUtility(["manage.py", "fabric", *map(str, args)]).execute()
        except SystemExit as exc:
            return exc.code or 0
    return 0


def test_summary_of_the_4su_example_matches_table_4(seed_catalog, capsys):
    assert fabric("summary", FOUR_SU) == 0
    summary = json.loads(capsys.readouterr().out)
    for key in ("gpus", "servers", "switches", "links", "transceivers", "cables"):
        assert key in summary
    assert summary["gpus"] == 1016
    assert summary["servers"] == 127
    # RA-11333-001 Table 4, 4 SU: 32 leaf, 16 spine, 1,020 node+UFM -> leaf, 1,024 leaf-spine.
    assert summary["switches"] == {"leaf": 32, "spine": 16, "core": 0}
    assert summary["links"] == {"server-leaf": 1020, "leaf-spine": 1024, "spine-core": 0}
    assert all(isinstance(n, int) and n > 0 for n in summary["transceivers"].values())
    assert all(isinstance(n, int) and n > 0 for n in summary["cables"].values())


def test_malformed_yaml_exits_nonzero_with_the_line(seed_catalog, tmp_path, capsys):
    spec = tmp_path / "bad.yaml"
    spec.write_text("name: x\ntopology: [rail\n")
    assert fabric("summary", spec) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "bad.yaml" in captured.err and "malformed" in captured.err


def test_infeasible_spec_exits_nonzero_naming_the_field(seed_catalog, tmp_path, capsys):
    spec = tmp_path / "big.yaml"
    spec.write_text(
        "name: big\ntopology: rail-optimized\nserver: DGX-H100\nservers: 512\ntiers: 2\n"
        "switches: {leaf: QM9700}\n"
    )
    assert fabric("summary", spec) == 1
    err = capsys.readouterr().err
    assert "tiers: 4,096 GPUs" in err and "need 3 tiers" in err


def test_invalid_spec_lists_every_problem(seed_catalog, tmp_path, capsys):
    spec = tmp_path / "invalid.json"
    spec.write_text('{"name": "x", "topology": "ring", "server": "DGX-H100", "servers": -1}')
    assert fabric("summary", spec) == 1
    err = capsys.readouterr().err
    assert "topology:" in err and "servers:" in err


def test_unreadable_file_exits_nonzero(db, tmp_path, capsys):
    assert fabric("summary", tmp_path / "missing.yaml") == 1
    assert "cannot read" in capsys.readouterr().err


def test_generate_save_stores_a_design_for_the_owner(seed_catalog, user, capsys):
    assert fabric("generate", FOUR_SU, "--save", "--owner", "alice") == 0
    design = Design.objects.get(pk=int(capsys.readouterr().out.strip()))
    assert design.owner == user
    assert design.revisions.get().summary["gpus"] == 1016


def test_generate_save_defaults_to_the_first_superuser(seed_catalog, django_user_model, capsys):
    assert fabric("generate", FOUR_SU, "--save") == 1
    assert "no superuser" in capsys.readouterr().err
    admin = django_user_model.objects.create_superuser("root", "", "pw-root-123!")
    assert fabric("generate", FOUR_SU, "--save") == 0
    assert Design.objects.get(pk=int(capsys.readouterr().out.strip())).owner == admin
    assert fabric("generate", FOUR_SU, "--save", "--owner", "nobody") == 1
    assert "--owner" in capsys.readouterr().err


def test_generate_without_save_prints_the_summary(seed_catalog, capsys):
    assert fabric("generate", FOUR_SU) == 0
    assert json.loads(capsys.readouterr().out)["gpus"] == 1016
    assert not Design.objects.exists()


@pytest.mark.parametrize("args", [[], ["export"]])
def test_unknown_action_is_a_usage_error(args, capsys):
    assert fabric(*args) != 0


# --- validate and power (the code of the jobs of the same names, run synchronously) ----------


def test_validate_json_prints_the_problems_and_exits_0_when_it_finds_some(seed_catalog, capsys):
    assert fabric("validate", FOUR_SU, "--json") == 0
    report = json.loads(capsys.readouterr().out)
    assert report["problems"], "the 4 SU example has at least warnings (unknown figures)"
    for problem in report["problems"]:
        assert {"code", "severity", "message", "element_ids", "suggestion"} <= set(problem)
        assert problem["severity"] in {"error", "warning", "info"}
    assert not Design.objects.exists()  # nothing stored


def test_validate_text_output(seed_catalog, capsys):
    assert fabric("validate", FOUR_SU) == 0
    out = capsys.readouterr().out
    assert "problem(s):" in out or out.strip() == "No problems."


def test_power_json_matches_the_hand_count(seed_catalog, capsys):
    assert fabric("power", FOUR_SU, "--json") == 0
    report = json.loads(capsys.readouterr().out)
    # tests/unit/test_power.py: 127 x 10,200 + 48 x 747 + 1,536 x 15 W + 4 UFM-side modules x
    # 9 W (980-9I51A unknown).
    assert report["total_w"] == 1_354_332
    assert report["by_category"] == {
        "servers": 1_295_400,
        "switches": 35_856,
        "transceivers": 23_076,
        "cables": 0,
    }
    # The example's 40.8 kW SuperPOD rack holds 4 DGX: 127 servers need 32 server racks.
    server_racks = [r for r in report["racks"] if r["kind"] == "server"]
    assert len(server_racks) == 32
    assert {"rack", "power_w", "limit_w"} <= set(report["racks"][0])
    assert max(r["power_w"] for r in server_racks) <= server_racks[0]["limit_w"] == 40_800
    # Graded from the database catalog's provenance, as from the seed files.
    assert report["confidence"]["datasheet"] > 0 and report["confidence"]["secondary"] > 0.9


def test_power_with_pue_and_text_output(seed_catalog, capsys):
    assert fabric("power", FOUR_SU, "--pue", "1.25") == 0
    out = capsys.readouterr().out
    assert "Total 1,354.3 kW" in out and "Facility at PUE 1.25: 1,692.9 kW" in out
    assert fabric("power", FOUR_SU, "--pue", "0.8") == 1
    assert "--pue" in capsys.readouterr().err


@pytest.mark.parametrize("action", ["validate", "power"])
def test_validate_and_power_exit_1_when_they_cannot_run(action, seed_catalog, tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\ntopology: [rail\n")
    assert fabric(action, bad, "--json") == 1
    assert "malformed" in capsys.readouterr().err
    infeasible = tmp_path / "big.yaml"
    infeasible.write_text(
        "name: big\ntopology: rail-optimized\nserver: DGX-H100\nservers: 512\ntiers: 2\n"
        "switches: {leaf: QM9700}\n"
    )
    assert fabric(action, infeasible, "--json") == 1
    captured = capsys.readouterr()
    assert captured.out == "" and "cannot be built" in captured.err
    assert fabric(action, tmp_path / "missing.yaml") == 1
    assert "cannot read" in capsys.readouterr().err


# --- simulate --------------------------------------------------------------------------------

ONE_SU_SPEC = EXAMPLES_DIR / "h100-superpod-1su.yaml"


def test_simulate_json_has_the_bandwidth_figures(seed_catalog, capsys):
    assert fabric("simulate", ONE_SU_SPEC, "--traffic", "all-reduce", "--routing", "rail",
                  "--seed", 1, "--json") == 0  # fmt: skip
    result = json.loads(capsys.readouterr().out)
    for key in (
        "completion_time_s",
        "algbw_gbps",
        "busbw_gbps",
        "bound_busbw_gbps",
        "max_link_utilization",
    ):
        assert isinstance(result[key], float)
    assert result["busbw_gbps"] == pytest.approx(400, rel=1e-6)


def test_simulate_dump_flows_writes_links_and_paths(seed_catalog, tmp_path, capsys):
    out = tmp_path / "flows.json"
    assert fabric("simulate", ONE_SU_SPEC, "--traffic", "permutation", "--routing", "ecmp",
                  "--seed", 3, "--size-bytes", 1e6, "--dump-flows", out, "--json") == 0  # fmt: skip
    dump = json.loads(out.read_text())
    links = {link["id"]: link["capacity_bps"] for link in dump["links"]}
    assert links and all(capacity > 0 for capacity in links.values())
    assert dump["flows"]
    for flow in dump["flows"]:
        assert set(flow) == {"id", "size_bytes", "start_s", "links", "finish_s"}
        assert flow["size_bytes"] == 1e6 and flow["finish_s"] > flow["start_s"]
        assert flow["links"] and all(link in links for link in flow["links"])
        assert flow["links"][0].endswith(":up") and flow["links"][-1].endswith(":down")


def test_simulate_dump_flows_refuses_adaptive_routing(seed_catalog, tmp_path, capsys):
    out = tmp_path / "flows.json"
    code = fabric("simulate", ONE_SU_SPEC, "--routing", "adaptive", "--dump-flows", out)
    assert code != 0
    assert "single-path" in capsys.readouterr().err
    assert not out.exists()


def test_simulate_takes_the_transport_modes_and_prints_the_congestion(seed_catalog, capsys):
    assert fabric("simulate", ONE_SU_SPEC, "--traffic", "incast", "--routing", "adaptive",
                  "--pfc-mode", "lossy", "--size-bytes", 1e6) == 0  # fmt: skip
    text = capsys.readouterr().out
    assert "spraying routing" in text  # the old name runs as the mode it is now
    assert "hot ports (lossy; ECN marks, no pause spreads)" in text
    assert fabric("simulate", ONE_SU_SPEC, "--traffic", "incast", "--size-bytes", 1e6) == 0
    text = capsys.readouterr().out  # an InfiniBand SuperPOD: its adaptive routing and credits
    assert "ib-ar routing" in text and "(credit; pause reaches" in text
    assert fabric("simulate", ONE_SU_SPEC, "--routing", "ecmp", "--flowlets", 4) != 0
    assert "--flowlets is for --routing flowlet" in capsys.readouterr().err
