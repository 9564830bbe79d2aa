"""Property tests (Hypothesis) of the CSV importers: catalog parts and price books.

Rows start from what the export writes for the seed catalog, then cells, rows and columns are
changed at random. Whatever comes in, an import either succeeds or raises
:class:`CatalogImportError` whose problems name the file and, for a row, its row number; never
another exception (which the upload page and API would turn into a 500). All or nothing: when
an import is refused, the database is as it was, although the good rows of the same file
would have created or updated parts.

Each example runs in a savepoint that is rolled back afterwards, so every example starts from
the seed; the check that a refused import left nothing behind runs inside that savepoint,
where only the importer's own rollback can have removed its writes.
"""

from __future__ import annotations

import csv
import io
import os
import re

import pytest
from django.db import transaction
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from inventory.models import CATEGORY_MODELS, Price, PriceBook
from inventory.services import (
    PRICE_COLUMNS,
    SEED_PRICE_BOOK,
    CatalogImportError,
    catalog_export_csv,
    catalog_import_csv,
    csv_columns,
    part_as_dict,
    price_book_export_csv,
    price_book_import_csv,
)

IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}
CATEGORIES = ("switch", "transceiver", "cable")
BOUNDED = settings(
    max_examples=40,
    deadline=None,
    derandomize=IN_CI,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
CELLS = (
    st.text(max_size=16)
    | st.sampled_from(["", "true", "nan", "inf", "-1", "1e400", "9" * 30, "[]", "{}", "null"])
    | st.from_regex(r"-?\d{1,6}(\.\d{1,4})?", fullmatch=True)
)


def _rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def _csv(rows: list[list[str]]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


@st.composite
def changed_tables(draw, table: list[list[str]]) -> str:
    """``table`` (header + rows) with a few cells, rows or columns changed, as CSV text."""
    header, rows = list(table[0]), [list(row) for row in table[1:]]
    rows = draw(st.lists(st.sampled_from(rows), min_size=1, max_size=5)) if rows else [[]]
    rows = [list(row) for row in rows]
    for _ in range(draw(st.integers(1, 4))):
        action = draw(
            st.sampled_from(["cell", "cell", "name", "drop-cell", "extra-cell", "column"])
        )
        row = draw(st.sampled_from(rows))
        if action == "cell" and row:
            row[draw(st.integers(0, len(row) - 1))] = draw(CELLS)
        elif action == "name" and "name" in header and len(row) > header.index("name"):
            row[header.index("name")] = draw(st.text(min_size=1, max_size=30))  # a good update
        elif action == "drop-cell" and row:
            row.pop()
        elif action == "extra-cell":
            row.append(draw(CELLS))
        elif action == "column" and header:
            index = draw(st.integers(0, len(header) - 1))
            header[index] = draw(st.sampled_from(["", "unknown", header[index].upper(), "slug"]))
    return _csv([header, *rows])


def _catalog_state(category: str) -> list[dict]:
    model = CATEGORY_MODELS[category]
    return [part_as_dict(part) for part in model.objects.select_related("manufacturer")]


def _prices(book: PriceBook) -> list[tuple]:
    return sorted(Price.objects.filter(book=book).values_list("part_slug", *PRICE_COLUMNS[2:]))


def _assert_problems_locate(error: CatalogImportError, origin: str, rows: int) -> None:
    assert error.problems and str(error)
    for problem in error.problems:
        assert problem.where.startswith(origin), problem
        assert problem.message.strip(), problem
        number = re.search(r" row (\d+)", problem.where)
        if number:
            assert 1 <= int(number.group(1)) <= rows + 1, problem


@pytest.fixture
def exported(seed_catalog):
    """The seed catalog as the exports write it: per category, and the seed price book."""
    tables = {category: _rows(catalog_export_csv(category)) for category in CATEGORIES}
    book = PriceBook.objects.get(slug=SEED_PRICE_BOOK)
    tables["prices"] = _rows(price_book_export_csv(book))
    return tables


@BOUNDED
@given(data=st.data())
def test_a_catalog_csv_imports_or_is_refused_with_row_numbers_and_writes_nothing(exported, data):
    category = data.draw(st.sampled_from(CATEGORIES))
    table = exported[category]
    text = data.draw(changed_tables(table) | st.text(max_size=200), label="csv")
    origin = f"{category}.csv"
    with transaction.atomic():
        before = _catalog_state(category)
        try:
            report = catalog_import_csv(category=category, text=text, origin=origin)
            event(f"imported: {report.updated} updated, {report.created} created")
        except CatalogImportError as error:
            event("refused")
            _assert_problems_locate(error, origin, rows=text.count("\n") + 1)
            assert _catalog_state(category) == before  # nothing of the good rows was kept
        transaction.set_rollback(True)


@BOUNDED
@given(data=st.data())
def test_a_price_book_csv_imports_or_is_refused_with_row_numbers_and_writes_nothing(exported, data):
    book = PriceBook.objects.get(slug=SEED_PRICE_BOOK)
    text = data.draw(changed_tables(exported["prices"]) | st.text(max_size=200), label="csv")
    with transaction.atomic():
        before = _prices(book)
        try:
            count = price_book_import_csv(book=book, text=text, origin="prices.csv")
            event("imported")
        except CatalogImportError as error:
            event("refused")
            _assert_problems_locate(error, "prices.csv", rows=text.count("\n") + 1)
            assert _prices(book) == before  # the old prices are all still there, no new ones
        else:
            assert Price.objects.filter(book=book).count() == count
        transaction.set_rollback(True)


def test_the_columns_the_strategies_start_from_are_the_importers(exported):
    """The generated tables begin as real exports: the importers' own columns."""
    for category in CATEGORIES:
        assert exported[category][0] == csv_columns(category)
    assert exported["prices"][0] == PRICE_COLUMNS
