"""Fault injection: the database connection is lost in the middle of an import.

On PostgreSQL a second connection kills the import's server process
(``pg_terminate_backend``) after some rows were already written in the import's transaction;
on SQLite the import's database handle is closed under it. Either way the import fails with a
database error (the upload page and API answer 500, nothing else to say) and a fresh
connection finds the catalog and the price book exactly as they were: the transaction that
held the written rows was never committed.

Transactional tests (the ``transactional_db`` fixture): the import must really commit or not,
and the check reads through a new connection.
"""

from __future__ import annotations

import csv
import io

import pytest
from django.db import DatabaseError, connection, connections

from inventory.models import CATEGORY_MODELS, Price, PriceBook
from inventory.services import (
    SEED_PRICE_BOOK,
    catalog_export_csv,
    catalog_import_csv,
    price_book_export_csv,
    price_book_import_csv,
    price_book_import_preview,
)

Switch = CATEGORY_MODELS["switch"]


def _lose_the_connection() -> None:
    """Cut the default connection as a crash or a network fault would."""
    if connection.vendor == "postgresql":
        import psycopg

        pid = connection.connection.info.backend_pid
        settings = connection.settings_dict
        with psycopg.connect(
            dbname=settings["NAME"],
            user=settings["USER"] or None,
            password=settings["PASSWORD"] or None,
            host=settings["HOST"] or None,
            port=settings["PORT"] or None,
            autocommit=True,
        ) as killer:
            killed = killer.execute("SELECT pg_terminate_backend(%s)", [pid]).fetchone()[0]
        assert killed, "the import's backend was not terminated"
    else:
        connection.connection.close()  # the sqlite3 handle: its open transaction is dropped


def _fresh_read(query):
    """Run ``query()`` on a brand-new connection (not the one that was cut)."""
    connection.close()
    try:
        return query()
    finally:
        connections.close_all()


def _renamed(text: str, prefix: str) -> str:
    """A catalog CSV whose rows all get a new name: every row is an update."""
    header, *rows = csv.reader(io.StringIO(text))
    name = header.index("name")
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        row[name] = f"{prefix} {row[name]}"
        writer.writerow(row)
    return out.getvalue()


def test_a_lost_connection_mid_catalog_import_stores_no_row(
    transactional_db, seed_catalog, monkeypatch
):
    from inventory.services import imports

    names_before = dict(Switch.objects.values_list("slug", "name"))
    text = _renamed(catalog_export_csv("switch"), "Renamed")
    written = []
    upsert = imports.part_upsert

    def upsert_then_fail(record, **kwargs):
        problems = upsert(record, **kwargs)
        written.append(record.slug)
        if len(written) == 3:  # three rows saved in the import's transaction, then the fault
            _lose_the_connection()
        return problems

    monkeypatch.setattr(imports, "part_upsert", upsert_then_fail)
    try:
        with pytest.raises(DatabaseError):
            catalog_import_csv(category="switch", text=text, origin="switches.csv")
    finally:
        monkeypatch.undo()
    assert len(written) == 3
    names_after = _fresh_read(lambda: dict(Switch.objects.values_list("slug", "name")))
    assert names_after == names_before  # none of the three saved renames survived
    assert not any(name.startswith("Renamed") for name in names_after.values())


def test_a_lost_connection_mid_price_import_keeps_the_old_prices(
    transactional_db, seed_catalog, monkeypatch
):
    book = PriceBook.objects.get(slug=SEED_PRICE_BOOK)
    before = sorted(Price.objects.filter(book=book).values_list("part_slug", "price", "seller"))
    text = price_book_export_csv(book).replace(",USD,", ",EUR,")  # every row changes
    # another currency is another offer: the USD ones are removed, the EUR ones added
    added = len(price_book_import_preview(book=book, text=text).added)
    bulk_create = Price.objects.bulk_create
    calls = []

    def fail_after_the_delete(objects, **kwargs):
        # The importer has deleted the book's removed prices in its transaction by now.
        calls.append(len(objects))
        _lose_the_connection()
        return bulk_create(objects, **kwargs)

    monkeypatch.setattr(Price.objects, "bulk_create", fail_after_the_delete)
    try:
        with pytest.raises(DatabaseError):
            price_book_import_csv(book=book, text=text, origin="prices.csv", confirm_removals=True)
    finally:
        monkeypatch.undo()
    assert calls and calls[0] == added > 0
    after = _fresh_read(
        lambda: sorted(Price.objects.filter(book=book).values_list("part_slug", "price", "seller"))
    )
    assert after == before
