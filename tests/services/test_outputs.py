"""Outputs services (planner.outputs.services): BOM of a revision, downloads, the cabling plan
round trip
(download, edit, re-import as a new revision), bad rows, stale bases, broken revisions, CLI."""

from __future__ import annotations

import csv
import io
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError

from planner.audit.models import AuditActionChoices, AuditEvent
from planner.designs.bom import OutputError, revision_bom
from planner.designs.models import DesignRevision
from planner.designs.selectors import revision_fabric
from planner.designs.services import RevisionConflict, design_create
from planner.domain.outputs import CABLING_COLUMNS, NETBOX_CABLE_COLUMNS, csv_lines
from planner.domain.outputs.netbox_bundle import BUNDLE_FILES
from planner.outputs import services as outputs
from tests.factories import ONE_SU_SPEC

SPEC = {**ONE_SU_SPEC, "media": {"server-leaf": "MMF", "leaf-spine": "MMF"}}


@pytest.fixture
def design(seed_catalog, user):
    return design_create(owner=user, spec_document=SPEC)


def _download(user, design, number=1, fmt="cabling-csv", **kwargs) -> str:
    revision = design.revisions.get(number=number)
    export = outputs.revision_export(user=user, design=design, revision=revision, fmt=fmt, **kwargs)
    return "".join(export.chunks)


def _rows(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def _upload(rows: list[dict]) -> SimpleUploadedFile:
    body = "".join(csv_lines(CABLING_COLUMNS, ([r[c] for c in CABLING_COLUMNS] for r in rows)))
    return SimpleUploadedFile("plan.csv", body.encode("utf-8"), content_type="text/csv")


def _import(design, user, rows, base=1):
    return outputs.design_import_cabling(
        design=design, user=user, csv_file=_upload(rows), base_revision=base
    )


def test_revision_bom_counts_agree_with_the_stored_summary(design):
    revision = design.revisions.get(number=1)
    bom = revision_bom(revision, spares_pct={"transceiver": 10})
    summary = revision.summary
    modules = sum(line.base_quantity for line in bom.lines if line.category == "transceiver")
    assert modules == sum(summary["transceivers"].values())
    fibers = sum(line.quantity for line in bom.lines if line.category == "fiber")
    assert fibers == sum(summary["cables"].values())
    spared = [line for line in bom.lines if line.category == "transceiver"]
    assert all(line.spares >= 1 for line in spared)


def test_downloads_are_audited(design, user):
    text = _download(user, design)
    assert len(_rows(text)) == revision_fabric(design.revisions.get(number=1)).link_count
    event = AuditEvent.objects.get(action=AuditActionChoices.EXPORT_DOWNLOADED)
    assert event.actor == user and event.design_ref == design.pk
    assert event.details["format"] == "cabling-csv"


def test_cabling_round_trip_makes_a_new_revision_with_the_change(design, user):
    rows = _rows(_download(user, design))
    leaf = rows[0]["b_device"]
    other = next(i for i, r in enumerate(rows) if i and r["b_device"] == leaf)
    rows[0]["b_port"], rows[other]["b_port"] = rows[other]["b_port"], rows[0]["b_port"]
    rows[1]["run_length_m"] = "14.5"
    revision, edit = _import(design, user, rows)
    assert revision.number == 2 and revision.parent == 1 and revision.kind == "edited"
    assert len(edit.changed) == 3
    after = _rows(_download(user, design, number=2))
    assert len(after) == len(rows)
    moved = {r["a_device"] + r["a_port"]: r for r in after}
    assert moved[rows[0]["a_device"] + rows[0]["a_port"]]["b_port"] == rows[0]["b_port"]
    assert moved[rows[1]["a_device"] + rows[1]["a_port"]]["run_length_m"] == "14.5"
    assert AuditEvent.objects.filter(
        action=AuditActionChoices.IMPORT_APPLIED, object_ref="2"
    ).exists()
    assert revision.summary["links"] == design.revisions.get(number=1).summary["links"]


def test_bad_rows_are_reported_by_row_and_nothing_is_written(design, user):
    rows = _rows(_download(user, design))
    rows[2]["a_port"] = "x9"
    rows[7]["b_device"] = "leaf-nowhere"
    with pytest.raises(outputs.CablingImportRejected) as caught:
        _import(design, user, rows)
    found = [(p["row"], p["column"], p["code"]) for p in caught.value.problems]
    assert found == [(4, "a_port", "bad-port"), (9, "b_device", "unknown-device")]
    assert DesignRevision.objects.filter(design=design).count() == 1
    assert not AuditEvent.objects.filter(
        action=AuditActionChoices.IMPORT_APPLIED, design_ref=design.pk
    ).exists()


def test_topology_errors_are_translated_to_rows(design, user):
    rows = _rows(_download(user, design))
    leaf = rows[0]["b_device"]
    other = next(i for i, r in enumerate(rows) if i and r["b_device"] == leaf)
    rows[other]["b_port"] = rows[0]["b_port"]  # two cables in one port
    with pytest.raises(outputs.CablingImportRejected) as caught:
        _import(design, user, rows)
    problems = caught.value.problems
    in_use = [p for p in problems if p["code"] == "port-in-use"]
    assert in_use and in_use[0]["rows"] == [2, other + 2]
    assert in_use[0]["message"].startswith(f"rows 2, {other + 2}: ")
    assert all("link:" not in p["message"] for p in problems)
    assert DesignRevision.objects.filter(design=design).count() == 1


def test_a_stale_base_revision_is_a_conflict(design, user):
    rows = _rows(_download(user, design))
    rows[1]["run_length_m"] = "13"
    _import(design, user, rows)  # revision 2
    rows[1]["run_length_m"] = "12"
    with pytest.raises(RevisionConflict) as caught:
        _import(design, user, rows, base=1)
    assert caught.value.latest == 2
    assert DesignRevision.objects.filter(design=design).count() == 2


def test_an_unchanged_plan_is_refused(design, user):
    rows = _rows(_download(user, design))
    with pytest.raises(outputs.CablingImportRejected) as caught:
        _import(design, user, rows)
    assert caught.value.problems[0]["code"] == "no-changes"


def test_a_broken_revision_fails_cleanly(design, user):
    DesignRevision.objects.filter(design=design, number=1).update(topology=b"not zlib")
    revision = design.revisions.get(number=1)
    for fmt in outputs.DOWNLOAD_FORMATS:
        with pytest.raises(OutputError) as caught:
            outputs.revision_export(user=user, design=design, revision=revision, fmt=fmt)
        assert caught.value.code == "topology-unreadable"
    assert not AuditEvent.objects.filter(action=AuditActionChoices.EXPORT_DOWNLOADED).exists()


def test_cli_exports_a_saved_design_and_a_spec_file(design, tmp_path):
    out = tmp_path / "nb"
    call_command("fabric", "export", str(design.pk), "--format", "netbox", "--out", str(out))
    assert sorted(p.name for p in out.iterdir()) == list(BUNDLE_FILES)
    devices = _rows((out / "07-devices.csv").read_text())
    cables = list(csv.reader(io.StringIO((out / "08-cables.csv").read_text())))
    fabric = revision_fabric(design.revisions.get(number=1))
    assert len(devices) == fabric.node_count
    assert devices[0]["manufacturer"] == "NVIDIA"  # the catalog manufacturer's name
    assert {"name": "NVIDIA", "slug": "nvidia"} in _rows((out / "01-manufacturers.csv").read_text())
    assert cables[0] == [*NETBOX_CABLE_COLUMNS, "tags"]  # the bundle tags every cable
    assert len(cables) == fabric.link_count + 1 and cables[1][-1] == "compute"
    call_command(
        "fabric", "export", str(design.pk), "--format", "netbox", "--out", str(tmp_path / "nb.zip")
    )
    names = zipfile.ZipFile(tmp_path / "nb.zip").namelist()
    assert names == ["00-README.txt", *BUNDLE_FILES]
    spec_file = tmp_path / "spec.yaml"
    spec_file.write_text(
        "name: one\n"
        + "".join(
            f"{k}: {v}\n"
            for k, v in SPEC.items()
            if k in ("topology", "server", "servers", "servers_per_su")
        )
        + "switches: {leaf: QM9700}\n"
    )
    stdout = io.StringIO()
    call_command(
        "fabric",
        "export",
        str(spec_file),
        "--format",
        "bom-csv",
        "--spares",
        "cable=5",
        stdout=stdout,
    )
    bom = _rows(stdout.getvalue())
    assert {"part", "category", "quantity"} <= set(bom[0])
    assert sum(int(r["quantity"]) for r in bom if r["category"] == "server") == 31
    with pytest.raises(CommandError, match="spares"):
        call_command("fabric", "export", str(spec_file), "--format", "bom-csv", "--spares", "x=1")
