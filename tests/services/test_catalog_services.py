"""Catalog services: seed loading, CSV/JSON round trips, all-or-nothing imports."""

import json

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command

from inventory.models import CATEGORY_MODELS, Price, PriceBook, SwitchModel, Transceiver
from inventory.services import (
    SEED_PRICE_BOOK,
    CatalogImportError,
    catalog_export_csv,
    catalog_export_json,
    catalog_import_csv,
    catalog_load,
    part_delete,
    part_get,
    price_book_export_csv,
    price_book_import_csv,
)
from tests import factories


def _snapshot():
    return {category: catalog_export_csv(category) for category in CATEGORY_MODELS}


def _count():
    return sum(model.objects.count() for model in CATEGORY_MODELS.values())


@pytest.fixture
def seeded(seed_catalog):
    return seed_catalog


def test_seed_load_is_idempotent(seed_catalog):
    # The session's load went into an empty database, so its report counts creations.
    assert seed_catalog.created == _count() >= 100
    book = PriceBook.objects.get(slug=SEED_PRICE_BOOK)
    ids = sorted(book.prices.values_list("id", flat=True))
    again = catalog_load()
    assert (again.created, again.updated, again.unchanged) == (0, 0, seed_catalog.created)
    assert sorted(book.prices.values_list("id", flat=True)) == ids  # prices untouched too


def test_seed_values_and_provenance_are_stored(seeded):
    qm = SwitchModel.objects.get(slug="QM9700")
    assert (qm.power_typical_w, qm.power_max_w, qm.port_count, qm.port_speed_gbps) == (
        747,
        1720,
        64,
        400,
    )
    assert qm.provenance["power_typical_w"]["grade"] == "secondary"
    assert qm.sources[qm.provenance["power_typical_w"]["source"]]["grade"] == "secondary"
    assert "OSFP" in qm.form_factors.split(",")


def test_seed_price_book(seeded):
    book = PriceBook.objects.get(slug=SEED_PRICE_BOOK)
    assert book.name == "Reseller list prices (public web shops, 2026 snapshots)"
    qm = Price.objects.get(book=book, part_slug="QM9700")
    assert (qm.price, qm.currency, qm.grade) == (32870, "USD", "secondary")
    # A part with no public price has an estimate stating its basis, or no row (unpriced),
    # never a zero.
    q3400 = Price.objects.get(book=book, part_slug="Q3400-RA")
    assert q3400.grade == "estimate" and q3400.note.startswith("Basis: QM9700")
    # the generic cabinet: estimates only (no reseller offer of a data-centre cabinet found),
    # each with its source URL and date (issue 37: every rack line priced)
    cabinets = Price.objects.filter(book=book, part_slug="Rack-cabinet-19in")
    assert cabinets.count() >= 1
    assert all(c.grade == "estimate" and c.source_url and c.as_of for c in cabinets)
    assert not Price.objects.filter(price=0).exists()


def test_part_get_by_alias_and_part_number(seeded):
    assert part_get("980-9I924-00N002").slug == "MCP7Y00-N002"
    assert part_get("980-9I510-00NS00").slug == "MMA4Z00-NS"
    assert part_get("NO-SUCH-PART") is None


@pytest.mark.parametrize("category", sorted(CATEGORY_MODELS))
def test_csv_round_trip_gives_identical_catalog(seeded, category):
    before = _snapshot()
    text = catalog_export_csv(category)
    CATEGORY_MODELS[category].objects.all().delete()
    report = catalog_import_csv(category=category, text=text)
    assert report.created == text.count("\n") - 1 - text.count('\n"')  # rough row count
    assert _snapshot() == before


def test_csv_reimport_unchanged(seeded):
    report = catalog_import_csv(category="transceiver", text=catalog_export_csv("transceiver"))
    assert report.created == report.updated == 0
    assert report.unchanged == Transceiver.objects.count()


def test_json_export_has_slug_category_and_specs(seeded):
    parts = catalog_export_json()
    assert len(parts) == _count()
    by_slug = {p["slug"]: p for p in parts}
    assert by_slug["MMA4Z00-NS"]["category"] == "transceiver"
    assert by_slug["MMA4Z00-NS"]["reach_m"] == 50
    assert by_slug["DGX-H100"]["category"] == "server"
    assert "price" not in json.dumps(by_slug["QM9700"]).lower().replace("provenance", "")


def _csv_with(category, rows: list[dict]) -> str:
    import csv
    import io

    from inventory.services import csv_columns

    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=csv_columns(category))
    writer.writeheader()
    for row in rows:
        writer.writerow(row)
    return out.getvalue()


GOOD_ROW = {
    "slug": "NEW-SR4",
    "name": "New SR4",
    "manufacturer": "acme",
    "aliases": "[]",
    "lifecycle": "shipping",
    "form_factor": "QSFP112",
    "speed_gbps": "400",
    "port_speed_gbps": "400",
    "ports_per_module": "1",
    "media": "mmf",
    "sources": '{"ds": {"url": "https://x", "grade": "datasheet"}}',
    "provenance": '{"speed_gbps": {"source": "ds", "grade": "datasheet"}}',
}


@pytest.mark.parametrize(
    ("bad", "field", "row_number"),
    [
        ({"speed_gbps": "fast"}, "speed_gbps", 3),
        ({"fiber_grades": "[OM4"}, "fiber_grades", 3),
        ({"reach_m": "0"}, "reach_m", 3),
        ({"power_typical_w": "12", "power_max_w": "9"}, "power_typical_w", 3),
        ({"manufacturer": "nobody"}, "manufacturer", 3),
        ({"slug": "NEW-SR4"}, "slug", 3),  # duplicate slug in the same file
        ({"form_factor": "SFP+"}, "form_factor", 3),
        ({"sources": '{"ds": {"url": "x", "grade": "rumour"}}'}, "sources", 3),
    ],
)
def test_bad_csv_names_row_and_field_and_writes_nothing(empty_catalog, bad, field, row_number):
    factories.manufacturer()
    factories.twin_sr()
    before = _snapshot()
    text = _csv_with("transceiver", [GOOD_ROW, {**GOOD_ROW, "slug": "OTHER", **bad}])
    with pytest.raises(CatalogImportError) as caught:
        catalog_import_csv(category="transceiver", text=text, origin="upload.csv")
    assert any(field in p.field and str(row_number) in p.where for p in caught.value.problems), (
        caught.value.problems
    )
    assert _snapshot() == before
    assert not Transceiver.objects.filter(slug="NEW-SR4").exists()


def test_unknown_column_and_garbage(empty_catalog):
    with pytest.raises(CatalogImportError, match="unknown column"):
        catalog_import_csv(category="switch", text="slug,name,manufacturer,flux\nA,B,C,D\n")
    garbage = "\x00\x01" * (5 * 1024 * 1024)  # 10 MB of binary junk
    with pytest.raises(CatalogImportError):
        catalog_import_csv(category="switch", text=garbage)
    assert _count() == 0


def test_slug_unique_across_categories(db):
    factories.manufacturer()
    factories.twin_sr(slug="SHARED")
    with pytest.raises(ValidationError, match="already a transceiver slug"):
        factories.osfp_switch(slug="SHARED")


def test_delete_removes_prices(seeded):
    part = Transceiver.objects.get(slug="MMA4Z00-NS")
    assert Price.objects.filter(part_slug="MMA4Z00-NS").exists()
    part_delete(part=part)
    assert not Price.objects.filter(part_slug="MMA4Z00-NS").exists()


def test_price_book_csv_round_trip_and_errors(seeded):
    book = PriceBook.objects.get(slug=SEED_PRICE_BOOK)
    text = price_book_export_csv(book)
    mine = PriceBook.objects.create(slug="mine", name="Mine", currency="EUR")
    assert price_book_import_csv(book=mine, text=text) == book.prices.count()
    assert price_book_export_csv(mine) == text
    bad = (
        text
        + "NOT-A-PART,transceiver,10,USD,,,,secondary,new,,\n"
        + "QM9700,switch,abc,USD,,,,secondary,new,,\n"
    )
    with pytest.raises(CatalogImportError) as caught:
        price_book_import_csv(book=mine, text=bad, origin="p.csv")
    wheres = {(p.where, p.field) for p in caught.value.problems}
    rows = text.count("\n")
    assert (f"p.csv row {rows + 1}", "part") in wheres
    assert (f"p.csv row {rows + 2}", "price") in wheres
    assert price_book_export_csv(mine) == text  # nothing changed


def test_catalog_command_json_and_csv_import(seeded, tmp_path, capsys):
    call_command("catalog", "export", "--format", "json")
    parts = json.loads(capsys.readouterr().out)
    assert {"slug", "category"} <= set(parts[0])
    path = tmp_path / "transceivers.csv"
    call_command(
        "catalog", "export", "--format", "csv", "--category", "transceiver", "--out", str(path)
    )
    call_command("catalog", "import", str(path))
    assert "unchanged" in capsys.readouterr().out


# --- formula injection (issue 14): exports neutralise, imports read the value back -------------


def _csv_cells(text: str) -> list[str]:
    import csv

    return [cell for row in csv.reader(text.splitlines()) for cell in row]


def test_catalog_csv_export_neutralises_formula_text_and_round_trips(seeded):
    hostile = '=HYPERLINK("http://evil.example","Click")'
    Transceiver.objects.filter(slug="MMA4Z00-NS").update(name=hostile, description="-rm -rf")
    text = catalog_export_csv("transceiver")
    cells = _csv_cells(text)
    assert "'" + hostile in cells and "'-rm -rf" in cells
    assert hostile not in cells
    catalog_import_csv(category="transceiver", text=text)
    part = Transceiver.objects.get(slug="MMA4Z00-NS")
    assert (part.name, part.description) == (hostile, "-rm -rf")


def test_price_export_neutralises_formula_text_and_round_trips(seeded):
    book = PriceBook.objects.get(slug=SEED_PRICE_BOOK)
    price = book.prices.first()
    price.note, price.seller = "@SUM(A1:A9)", "+1 555 0100"
    price.save()
    text = price_book_export_csv(book)
    cells = _csv_cells(text)
    assert "'@SUM(A1:A9)" in cells and "'+1 555 0100" in cells
    assert "@SUM(A1:A9)" not in cells
    mine = PriceBook.objects.create(slug="mine", name="Mine", currency="EUR")
    price_book_import_csv(book=mine, text=text)
    assert mine.prices.filter(note="@SUM(A1:A9)", seller="+1 555 0100").exists()
