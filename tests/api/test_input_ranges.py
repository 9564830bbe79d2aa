"""Issue 34: every number stored is finite and inside its physical range, whatever the way in
(API, catalog CSV import, price book CSV), refused naming the field and row; a part's source URL
is a web address; a CSV import writes each part's change to the part's history."""

from __future__ import annotations

import csv
import io
import json

import pytest
import yaml

from inventory.models import CableAssembly, Price, PriceBook
from inventory.services import (
    SEED_PRICE_BOOK,
    catalog_export_csv,
    catalog_import_csv,
    price_book_export_csv,
    price_book_import_csv,
)
from inventory.services.common import CatalogImportError
from planner.audit.log import part_history_for
from planner.designs.services import design_create
from tests.factories import TINY_SPEC

CABLE = "MCP7Y00-N001"  # a seed DAC


def _cable_csv_with(slug: str, **cells) -> str:
    """The cable export with one row's cells changed (as an editor's spreadsheet would)."""
    rows = list(csv.DictReader(io.StringIO(catalog_export_csv("cable"))))
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]))
    writer.writeheader()
    for row in rows:
        if row["slug"] == slug:
            writer.writerow({**row, **cells})
    return out.getvalue()


@pytest.mark.parametrize("value", ["NaN", "inf", "-inf", "1e308", "-1"])
def test_a_csv_import_refuses_a_length_out_of_range_naming_row_and_field(
    seed_catalog, api_client, value
):
    before = CableAssembly.objects.get(slug=CABLE).max_length_m
    with pytest.raises(CatalogImportError) as caught:
        catalog_import_csv(category="cable", text=_cable_csv_with(CABLE, max_length_m=value))
    problems = [p for p in caught.value.problems if p.field == "max_length_m"]
    assert problems and "row 2" in problems[0].where, caught.value.problems
    assert CableAssembly.objects.get(slug=CABLE).max_length_m == before
    assert api_client.get("/api/inventory/cables/").status_code == 200


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"max_length_m": 1e308}, "max_length_m"),
        ({"max_length_m": -3}, "max_length_m"),
        ({"lengths_m": [1, 1e300]}, "lengths_m"),
        ({"latency_ns": 1e300}, "latency_ns"),
        ({"sources": {"ds": {"url": "javascript:alert(1)", "grade": "datasheet"}}}, "sources"),
        ({"sources": {"ds": {"url": "data:text/html,x", "grade": "datasheet"}}}, "sources"),
    ],
)
def test_an_api_patch_out_of_range_is_400_naming_the_field(
    seed_catalog, api_client, catalog_editor, body, field
):
    before = CableAssembly.objects.get(slug=CABLE)
    response = api_client.patch(f"/api/inventory/cables/{CABLE}/", body, format="json")
    assert response.status_code == 400, response.content
    assert field in response.json()
    after = CableAssembly.objects.get(slug=CABLE)
    assert (after.max_length_m, after.sources) == (before.max_length_m, before.sources)
    assert api_client.get(f"/api/inventory/cables/{CABLE}/").status_code == 200


def test_a_csv_import_writes_each_changed_part_to_its_history(seed_catalog, user):
    cable = CableAssembly.objects.get(slug=CABLE)
    old_length, old_notes = cable.max_length_m, cable.notes
    catalog_import_csv(
        category="cable",
        text=_cable_csv_with(CABLE, max_length_m="1.5", notes="re-measured"),
        origin="cables.csv",
        actor=user,
    )
    event = part_history_for(user, CableAssembly.objects.get(slug=CABLE)).first()
    assert event.actor == user and "cables.csv" in event.summary
    fields = event.details["fields"]
    assert fields["max_length_m"] == {"old": old_length, "new": 1.5}
    assert fields["notes"]["new"] == "re-measured"  # the log shortens long texts
    assert fields["notes"]["old"][:100] == old_notes[:100] != "re-measured"
    assert set(fields) == {"max_length_m", "notes"}


@pytest.mark.parametrize("length", ["NaN", "1e308", "-2"])
def test_a_price_book_csv_refuses_a_length_out_of_range(seed_catalog, length):
    book = PriceBook.objects.get(slug=SEED_PRICE_BOOK)
    rows = list(csv.DictReader(io.StringIO(price_book_export_csv(book))))
    count = book.prices.count()
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows([rows[0], {**rows[1], "length_m": length}])
    with pytest.raises(CatalogImportError) as caught:
        price_book_import_csv(book=book, text=out.getvalue())
    problems = caught.value.problems
    assert problems and all(p.field == "length_m" and "row 3" in p.where for p in problems)
    assert Price.objects.filter(book=book).count() == count


# --- hostile bodies: a 400 in plain words, never a 500 -------------------------------------------


def _raw_spec_body(servers_literal: str, extra: dict) -> str:
    """A JSON body whose spec holds a number literal as typed (json.dumps cannot write a
    5,000-digit integer: Python's own conversion limit)."""
    body = json.dumps({**extra, "spec": {**TINY_SPEC, "servers": 0}})
    return body.replace('"servers": 0', f'"servers": {servers_literal}')


@pytest.mark.parametrize("literal", ["9" * 5000, "1e308", "-1e308"])
def test_a_huge_number_in_a_spec_is_a_400_on_designs_revisions_and_summary(
    api_client, seed_catalog, user, literal
):
    design = design_create(owner=user, spec_document=TINY_SPEC)
    for url, extra in (
        ("/api/planner/designs/", {}),
        ("/api/planner/summary/", {}),
        (f"/api/planner/designs/{design.pk}/revisions/", {"base_revision": 1}),
    ):
        body = _raw_spec_body(literal, extra)
        response = api_client.post(url, body, content_type="application/json")
        assert response.status_code == 400, (url, response.content[:300])
        # The spec as YAML text (a string the API reads with the spec parser).
        text = yaml.safe_dump({**TINY_SPEC, "servers": 0})
        text = text.replace("servers: 0", f"servers: {literal}")
        response = api_client.post(url, {**extra, "spec": text}, format="json")
        assert response.status_code == 400, (url, response.content[:300])
        words = response.content.decode("utf-8")
        assert "servers" in words or "line " in words, words[:300]
    assert design.revisions.count() == 1


def test_a_counters_json_device_named_by_a_lone_surrogate_is_a_plain_400(
    api_client, seed_catalog, user
):
    design = design_create(owner=user, spec_document=TINY_SPEC)
    text = json.dumps([{"device": "\ud800", "port": "1/1", "interval_s": 10, "rx_bytes": 1}])
    response = api_client.post(
        f"/api/planner/designs/{design.pk}/revisions/1/counters/",
        {"format": "counters-json", "text": text},
        format="json",
    )
    assert response.status_code == 400, response.content[:300]
    assert "lone surrogate" in response.content.decode("utf-8")


def test_the_migration_clears_infinite_numbers_stored_before_the_rules(seed_catalog, api_client):
    """A catalog stored before issue 34 may hold such a number (SQLite stores NaN as null, so
    infinity stands for both here): the migration makes it unknown, and the list answers."""
    import importlib

    from django.apps import apps

    migration = importlib.import_module("inventory.migrations.0011_clear_non_finite_numbers")
    CableAssembly.objects.filter(slug=CABLE).update(max_length_m=float("inf"))
    assert CableAssembly.objects.get(slug=CABLE).max_length_m == float("inf")
    migration.clear_non_finite(apps, None)
    assert CableAssembly.objects.get(slug=CABLE).max_length_m is None
    assert api_client.get("/api/inventory/cables/?page_size=500").status_code == 200


@pytest.mark.parametrize("cell", ["[" * 100_000, "[" + "9" * 5000 + "]", '["\\ud800"]'])
def test_a_hostile_json_cell_in_a_catalog_csv_is_refused_naming_row_and_field(seed_catalog, cell):
    with pytest.raises(CatalogImportError) as caught:
        catalog_import_csv(category="cable", text=_cable_csv_with(CABLE, lengths_m=cell))
    (problem,) = caught.value.problems
    assert (problem.field, problem.where) == ("lengths_m", "catalog.csv row 2")
    problem.message.encode("utf-8")
