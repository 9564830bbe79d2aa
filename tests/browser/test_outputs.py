"""Outputs in Chromium: from the design page to the BOM, download the cabling plan, upload an
edited plan (a bad row is shown by number, a good edit becomes a new revision)."""

import csv
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from planner.domain.outputs import CABLING_COLUMNS, csv_lines
from tests.services.test_outputs import SPEC


@pytest.fixture
def live_catalog(transactional_db, seed_catalog):
    return seed_catalog


def _write(path: Path, rows: list[dict]) -> None:
    lines = csv_lines(CABLING_COLUMNS, ([r[c] for c in CABLING_COLUMNS] for r in rows))
    path.write_text("".join(lines), encoding="utf-8")


def test_download_the_cabling_plan_and_upload_an_edit(
    live_catalog, browser_login, live_server, django_user_model, tmp_path
):
    from planner.designs.services import design_create

    carol = django_user_model.objects.get(username="carol")
    design = design_create(owner=carol, spec_document=SPEC)
    links = sum(design.revisions.get(number=1).summary["links"].values())
    page = browser_login
    page.goto(f"{live_server.url}/designs/{design.pk}/")
    page.get_by_test_id("outputs-link").click()
    expect(page).to_have_url(re.compile(rf"/designs/{design.pk}/revisions/1/outputs/$"))
    expect(page.get_by_test_id("bom")).to_contain_text("MMA4Z00-NS")

    page.get_by_label("Transceiver").fill("5")
    page.get_by_role("button", name="Apply spares (%)").click()
    expect(page).to_have_url(re.compile(r"spares_transceiver=5"))

    with page.expect_download() as info:
        page.get_by_test_id("download-cabling-csv").click()
    download = info.value
    assert download.suggested_filename == f"design-{design.pk}-r1-cabling.csv"
    saved = tmp_path / "plan.csv"
    download.save_as(saved)
    with saved.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        rows = list(reader)
    assert reader.fieldnames == list(CABLING_COLUMNS)
    assert len(rows) == links

    good_port = rows[2]["a_port"]
    rows[2]["a_port"] = "99"
    _write(saved, rows)
    page.get_by_label("Edited cabling plan (CSV)").set_input_files(str(saved))
    page.get_by_role("button", name="Upload and save as a new revision").click()
    problems = page.get_by_test_id("import-problems")
    expect(problems).to_contain_text("Nothing was saved")
    expect(problems).to_contain_text("row 4, a_port")

    rows[2]["a_port"] = good_port
    rows[2]["run_length_m"] = "8.5"
    _write(saved, rows)
    page.get_by_label("Edited cabling plan (CSV)").set_input_files(str(saved))
    page.get_by_role("button", name="Upload and save as a new revision").click()
    expect(page).to_have_url(re.compile(rf"/designs/{design.pk}/revisions/2/outputs/$"))
    expect(page.get_by_role("status")).to_contain_text("revision 2: 1 changed")
