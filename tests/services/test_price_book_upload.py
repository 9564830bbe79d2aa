"""Price book uploads: a preview of what a file adds, changes and removes before anything is
written; a file that removes many offers needs a second confirmation (issue 37, item 3)."""

import csv
import io

import pytest

from inventory.models import Price, PriceBook
from inventory.services import (
    SEED_PRICE_BOOK,
    CatalogImportError,
    RemovalsNotConfirmed,
    price_book_export_csv,
    price_book_import_csv,
    price_book_import_preview,
)
from planner.audit.models import AuditEvent


@pytest.fixture
def book(seed_catalog):
    return PriceBook.objects.get(slug=SEED_PRICE_BOOK)


def _rows(text: str) -> tuple[list[str], list[dict]]:
    reader = csv.DictReader(io.StringIO(text))
    return list(reader.fieldnames), list(reader)


def _text(header: list[str], rows: list[dict]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=header, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def test_preview_counts_one_change_one_addition_one_removal_and_writes_nothing(book):
    header, rows = _rows(price_book_export_csv(book))
    before = book.prices.count()
    assert before == len(rows) > 12
    changed_part = rows[0]["part"]
    rows[0]["price"] = str(float(rows[0]["price"]) + 10)
    removed_part = rows.pop(1)["part"]
    rows.append({**rows[2], "seller": "A new seller"})
    preview = price_book_import_preview(book=book, text=_text(header, rows), origin="p.csv")
    assert (len(preview.added), len(preview.changed), len(preview.removed)) == (1, 1, 1)
    assert preview.unchanged == before - 2
    assert preview.rows == before
    assert not preview.removes_many
    assert preview.changed[0][0].part_slug == changed_part
    assert preview.removed[0].part_slug == removed_part
    (change,) = preview.changed_fields()
    assert set(change["fields"]) == {"price"}
    assert book.prices.count() == before
    assert price_book_export_csv(book) != _text(header, rows)  # nothing written


def test_header_only_file_needs_confirmation_and_then_removes_everything(book, user):
    header, _ = _rows(price_book_export_csv(book))
    before = book.prices.count()
    empty = _text(header, [])
    preview = price_book_import_preview(book=book, text=empty)
    assert len(preview.removed) == before and preview.removes_many
    with pytest.raises(RemovalsNotConfirmed) as caught:
        price_book_import_csv(book=book, text=empty, origin="empty.csv", actor=user)
    assert caught.value.problems[0].field == "confirm_removals"
    assert f"removes {before:,} of the book's {before:,} offers" in str(caught.value)
    assert book.prices.count() == before
    assert not AuditEvent.objects.filter(object_type="price-book").exists()
    assert price_book_import_csv(book=book, text=empty, actor=user, confirm_removals=True) == 0
    assert book.prices.count() == 0
    event = AuditEvent.objects.get(object_type="price-book")
    assert event.details["removed"] == before and event.details["removals_confirmed"] is True


@pytest.mark.parametrize(("removed", "asks"), [(1, False), (5, True)])
def test_removing_more_than_ten_percent_asks_again(book, removed, asks):
    header, rows = _rows(price_book_export_csv(book))
    small = _text(header, rows[:20])
    mine = PriceBook.objects.create(slug="mine", name="Mine")
    price_book_import_csv(book=mine, text=small)
    fewer = _text(header, rows[removed:20])
    preview = price_book_import_preview(book=mine, text=fewer)
    assert len(preview.removed) == removed
    assert preview.removes_many is asks  # 20 offers: 2 or more removed is over 10 %
    if asks:
        with pytest.raises(RemovalsNotConfirmed):
            price_book_import_csv(book=mine, text=fewer)
    else:
        assert price_book_import_csv(book=mine, text=fewer) == 20 - removed


def test_unchanged_and_changed_offers_keep_their_id(book, user):
    header, rows = _rows(price_book_export_csv(book))
    ids = set(book.prices.values_list("pk", flat=True))
    rows[3]["note"] = "Checked again"
    price_book_import_csv(book=book, text=_text(header, rows), origin="b.csv", actor=user)
    assert set(book.prices.values_list("pk", flat=True)) == ids
    assert book.prices.filter(note="Checked again").count() == 1
    event = AuditEvent.objects.get(object_type="price-book")
    assert (event.details["changed"], event.details["added"], event.details["removed"]) == (
        1,
        0,
        0,
    )
    assert event.details["parts"] == [rows[3]["part"]]


def test_an_unreadable_file_is_refused_in_the_preview_as_in_the_import(book):
    with pytest.raises(CatalogImportError) as caught:
        price_book_import_preview(book=book, text="part,price\nNOT-A-PART,10\n", origin="x.csv")
    assert [(p.where, p.field) for p in caught.value.problems] == [("x.csv row 2", "part")]
    assert Price.objects.filter(book=book).count() > 0


def test_the_catalog_command_asks_for_confirm_removals(book, tmp_path):
    from django.core.management import CommandError, call_command

    header, _ = _rows(price_book_export_csv(book))
    path = tmp_path / "empty.csv"
    path.write_text(_text(header, []))
    before = book.prices.count()
    with pytest.raises(CommandError, match="--confirm-removals"):
        call_command("catalog", "prices", "import", SEED_PRICE_BOOK, str(path))
    assert book.prices.count() == before
    call_command("catalog", "prices", "import", SEED_PRICE_BOOK, str(path), "--confirm-removals")
    assert book.prices.count() == 0
