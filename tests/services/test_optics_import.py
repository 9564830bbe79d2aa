"""Importing optics facts (issue 19): bad facts are refused naming the field and the row or
part, and nothing of the import is kept; good facts are stored and read back."""

from __future__ import annotations

import csv
import io
import shutil

import pytest

from inventory.adapters import part_record
from inventory.models import Transceiver
from inventory.services import catalog_import_csv
from inventory.services.common import CatalogImportError
from inventory.services.imports import SEED_FOLDER, catalog_load

COLUMNS = ["slug", "name", "manufacturer", "media", "phy", "channel_il_max_db", "fec", "sources"]
SOURCES = '{"ds": {"url": "https://example.org/sheet", "grade": "datasheet"}}'


def _csv(*rows: dict) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow(
            {"name": row["slug"], "manufacturer": "nvidia", "media": "smf", "sources": SOURCES}
            | row
        )
    return out.getvalue()


GOOD = {"slug": "TEST-DR8-GOOD", "phy": "800GBASE-DR8", "channel_il_max_db": '{"OS2": 3.0}'}


@pytest.mark.parametrize(
    ("bad", "field", "words"),
    [
        ({"channel_il_max_db": '{"OS9": 3.0}'}, "channel_il_max_db", "unknown fiber grade"),
        ({"channel_il_max_db": '{"OS2": -1.5}'}, "channel_il_max_db", "greater than 0"),
        ({"channel_il_max_db": '{"OS2": "three"}'}, "channel_il_max_db", "a number of dB"),
        ({"fec": "rs-528"}, "fec", ""),
    ],
)
def test_a_bad_fact_refuses_the_whole_csv_naming_row_and_field(seed_catalog, bad, field, words):
    before = Transceiver.objects.count()
    text = _csv(GOOD, {"slug": "TEST-DR8-BAD", "phy": "800GBASE-DR8"} | bad)
    with pytest.raises(CatalogImportError) as caught:
        catalog_import_csv(category="transceiver", text=text, origin="optics.csv")
    problems = caught.value.problems
    # the row and the part; a bad fec is also outside the column's choices (two messages)
    assert {(p.where, p.field) for p in problems} == {("optics.csv row 3 TEST-DR8-BAD", field)}
    assert any(words in p.message for p in problems)
    assert Transceiver.objects.count() == before  # the good row 2 was not kept either
    assert not Transceiver.objects.filter(slug="TEST-DR8-GOOD").exists()


def test_good_facts_are_stored_and_reach_the_domain_record(seed_catalog):
    text = _csv(GOOD | {"fec": "host-rs544"})
    catalog_import_csv(category="transceiver", text=text, origin="optics.csv")
    part = Transceiver.objects.select_related("manufacturer").get(slug="TEST-DR8-GOOD")
    record = part_record(part)
    assert record["channel_il_max_db"] == {"OS2": 3.0}
    assert (record["phy"], record["fec"], record["linear"]) == ("800GBASE-DR8", "host-rs544", False)
    assert record["rated_with_patch_panels"] == 0 and record["reach_m_by_grade"] is None


def test_seed_channel_limits_are_stored(seed_catalog):
    part = Transceiver.objects.get(slug="Ascent-400G-OSFP-SR8")
    assert part.channel_il_max_db == {"OM3": 1.8, "OM4": 1.9}
    assert part.provenance["channel_il_max_db"]["grade"] == "inferred"


def test_a_folder_with_bad_optics_facts_is_refused_before_any_write(seed_catalog, tmp_path):
    folder = tmp_path / "catalog"
    shutil.copytree(SEED_FOLDER, folder)
    optics = folder / "optics.yaml"
    optics.write_text(optics.read_text().replace("worst: {value: 3.5,", "worst: {value: -3.5,", 1))
    (folder / "transceivers.yaml").write_text(
        (folder / "transceivers.yaml")
        .read_text()
        .replace("name: NVIDIA MMA4Z00-NS 800G", "name: Renamed", 1)
    )
    with pytest.raises(CatalogImportError) as caught:
        catalog_load(folder)
    (problem,) = caught.value.problems
    assert problem.field == "fiber_grades.OM3.attenuation_db_per_km.worst"
    assert "optics.yaml" in problem.message and "negative" in problem.message
    assert not Transceiver.objects.filter(name__startswith="Renamed").exists()
