"""A PATCH that names no field it may change is a 400 on every writable route, in JSON, form
and multipart bodies alike, and changes nothing stored (it used to be a 200 empty update).
The rule itself: tests/unit/test_api_patch_fields.py."""

from __future__ import annotations

import json
from urllib.parse import urlencode

import pytest
from django.test.client import BOUNDARY, MULTIPART_CONTENT, encode_multipart

from tests.factories import TINY_SPEC

CATALOG = {
    "manufacturer": ("/api/inventory/manufacturers/nvidia/", "name"),
    "transceiver": ("/api/inventory/transceivers/MMA4Z00-NS/", "name"),
    "switch": ("/api/inventory/switches/QM9700/", "name"),
    "price-book": (None, "name"),
    "price": (None, "price"),
}
BODIES = {
    "json": lambda data: (json.dumps(data), "application/json"),
    "form": lambda data: (urlencode(data), "application/x-www-form-urlencoded"),
    "multipart": lambda data: (encode_multipart(BOUNDARY, data), MULTIPART_CONTENT),
}


def _patch(client, url, fmt, data):
    body, content_type = BODIES[fmt](data)
    return client.generic("PATCH", url, body, content_type=content_type)


def _catalog_url(what):
    from inventory.models import Price, PriceBook

    url, field = CATALOG[what]
    if what == "price-book":
        url = f"/api/inventory/price-books/{PriceBook.objects.first().slug}/"
    if what == "price":
        url = f"/api/inventory/prices/{Price.objects.first().pk}/"
    return url, field


@pytest.mark.parametrize("fmt", list(BODIES))
@pytest.mark.parametrize("what", list(CATALOG))
def test_a_catalog_patch_naming_no_field_is_a_400(api_client, catalog_editor, what, fmt):
    url, field = _catalog_url(what)
    before = api_client.get(url).json()
    assert field in before

    response = _patch(api_client, url, fmt, {"colour": "red", "id": "7"})
    assert response.status_code == 400, response.content
    problems = response.json()
    assert problems["non_field_errors"][0].startswith("No field to change")
    assert field in problems["non_field_errors"][0]
    assert problems["colour"] == ["Unknown field: it is not one of this object's fields."]
    assert problems["id"] == ["Read-only: it cannot be changed."]

    empty = _patch(api_client, url, fmt, {})
    assert empty.status_code == 400, empty.content
    assert list(empty.json()) == ["non_field_errors"]
    assert api_client.get(url).json() == before


def test_a_catalog_patch_naming_a_field_still_changes_it(api_client, catalog_editor):
    url = "/api/inventory/manufacturers/nvidia/"
    response = _patch(api_client, url, "multipart", {"name": "NVIDIA Corp.", "colour": "red"})
    assert response.status_code == 200, response.content
    assert api_client.get(url).json()["name"] == "NVIDIA Corp."


@pytest.mark.parametrize("fmt", list(BODIES))
def test_a_design_or_quote_patch_naming_no_field_is_a_400(api_client, user, seed_catalog, fmt):
    from inventory.models import PriceBook
    from planner.designs.services import design_create
    from planner.quotes.services import quote_create

    design = design_create(owner=user, spec_document=TINY_SPEC)
    book = PriceBook.objects.first()
    quote = quote_create(design=design, actor=user, customer="ACME", price_book=book)
    design_url = f"/api/planner/designs/{design.pk}/"
    quote_url = f"{design_url}quotes/{quote.pk}/"

    for url, field in ((design_url, "name"), (quote_url, "customer")):
        before = api_client.get(url).json()
        response = _patch(api_client, url, fmt, {"nmae": "typo"})
        assert response.status_code == 400, response.content
        assert field in response.json()["non_field_errors"][0]
        assert response.json()["nmae"] == ["Unknown field: it is not one of this object's fields."]
        assert api_client.get(url).json() == before
