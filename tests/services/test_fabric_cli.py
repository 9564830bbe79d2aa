"""``manage.py fabric``: summary JSON, exit status and messages, generate --save."""

from __future__ import annotations

import json
from unittest import mock

import pytest
from django.core.management import ManagementUtility
from django.db import connections

from planner.domain.presets import EXAMPLES_DIR
from planner.models import Design

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
