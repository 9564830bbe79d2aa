"""A quote's customer address and terms (issue 22 item 3): fields of their own, limited by the
model, moved out of the old multi-line customer field by migration 0008, kept by re-pricing,
changed through the form and the API on drafts only (PATCH names the field; 409 once sent),
documented in the OpenAPI schema."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps
from django.core.exceptions import ValidationError
from rest_framework.test import APIClient

from inventory.models import PriceBook
from inventory.services import price_book_import_csv
from planner.designs.services import design_create
from planner.quotes.models import Quote
from planner.quotes.services import quote_create, quote_reprice, quote_send, quote_update
from tests.factories import ONE_SU_SPEC

MIGRATION = importlib.import_module("planner.quotes.migrations.0004_customer_address_terms")
# Test prices (not real ones).
PRICES_CSV = """part,price,currency,seller,condition,length_m
QM9700,30000,USD,Seller A,new,
"""


def _clean_errors(**fields) -> dict:
    quote = Quote(customer="ACME", currency="USD", **fields)
    with pytest.raises(ValidationError) as caught:
        quote.clean()
    return caught.value.message_dict


def test_model_limits_name_the_field():
    """No database: a name on several lines, an address over 12 lines or 1,000 characters and
    terms over 4,000 characters are refused naming the field; at the limits they pass."""
    errors = _clean_errors(customer_address="\n".join(["x"] * 13), terms="t" * 4001)
    assert errors["customer_address"] == ["The address has 13 lines; at most 12."]
    assert errors["terms"] == ["The terms have 4,001 characters; at most 4,000."]
    errors = _clean_errors(customer_address="a" * 1001)
    assert errors["customer_address"] == ["The address has 1,001 characters; at most 1,000."]
    with pytest.raises(ValidationError) as caught:
        Quote(customer="ACME\n1 Main Street", currency="USD").clean()
    assert "one line" in caught.value.message_dict["customer"][0]
    Quote(
        customer="ACME",
        currency="USD",
        customer_address="\n".join(["Ω" * 70] * 12),
        terms="t" * 4000,
    ).clean()


def test_migration_splits_the_old_customer_field():
    """No database: the first non-blank line is the name, every other line the address."""
    assert MIGRATION.split_customer(" ACME Labs \n1 Main St \r\n\n東京都千代田区\n") == (
        "ACME Labs",
        "1 Main St\n東京都千代田区",
    )
    assert MIGRATION.split_customer("ACME") == ("ACME", "")
    assert MIGRATION.split_customer("\n\nACME\nشارع") == ("ACME", "شارع")


@pytest.fixture
def quote(seed_catalog, user):
    design = design_create(owner=user, spec_document=ONE_SU_SPEC)
    book = PriceBook.objects.create(slug="addr-book", name="Address book", currency="USD")
    price_book_import_csv(book=book, text=PRICES_CSV)
    return quote_create(design=design, actor=user, customer="ACME", price_book=book)


def test_migration_moves_the_address_lines_of_every_quote(quote, user):
    """The data migration's function on stored rows (a draft and a sent one): the lines after
    the first move to customer_address, nothing is lost; backwards they come back."""
    sent = quote_send(
        quote=quote_create(
            design=quote.design, actor=user, customer="Sent Co", price_book=quote.price_book
        ),
        actor=user,
        may_view_prices=True,
        confirm_unpriced=True,
    )
    old = {quote.pk: "ACME Labs\nΑθηνών 12\n\nشارع الملك فهد", sent.pk: "Sent Co\n1 Main St"}
    for pk, customer in old.items():
        Quote.objects.filter(pk=pk).update(customer=customer, customer_address="")
    plain = quote_create(
        design=quote.design, actor=user, customer="Plain", price_book=quote.price_book
    )

    MIGRATION.move_address_out_of_customer(apps, None)
    stored = {q.pk: (q.customer, q.customer_address) for q in Quote.objects.all()}
    assert stored[quote.pk] == ("ACME Labs", "Αθηνών 12\nشارع الملك فهد")
    assert stored[sent.pk] == ("Sent Co", "1 Main St")
    assert stored[plain.pk] == ("Plain", "")

    MIGRATION.put_address_back_into_customer(apps, None)
    back = dict(Quote.objects.values_list("pk", "customer"))
    assert back[quote.pk] == "ACME Labs\nΑθηνών 12\nشارع الملك فهد" and back[plain.pk] == "Plain"


def test_services_keep_the_lines_and_reprice_copies_them(quote, user):
    changed = quote_update(
        quote=quote,
        actor=user,
        customer_address="  1 Main Street  \r\n\r\nSpringfield\n",
        terms="\nPayment: 30 days net.   \n",
    )
    assert changed.customer_address == "1 Main Street\n\nSpringfield"
    assert changed.terms == "Payment: 30 days net."
    with pytest.raises(ValidationError) as caught:
        quote_update(quote=quote, actor=user, customer_address="x\n" * 13)
    assert list(caught.value.message_dict) == ["customer_address"]
    sent = quote_send(quote=changed, actor=user, may_view_prices=True, confirm_unpriced=True)
    new = quote_reprice(quote=sent, actor=user, may_view_prices=True)
    assert (new.customer_address, new.terms) == (changed.customer_address, changed.terms)


def test_api_patch_and_the_form_page(quote, user, prices_visible, client):
    api = APIClient()
    api.force_authenticate(user)
    url = f"/api/planner/designs/{quote.design_id}/quotes/{quote.pk}/"
    body = {"customer_address": "Αθηνών 12\n105 58 Αθήνα", "terms": "Payment: 30 days net."}
    changed = api.patch(url, body, format="json")
    assert changed.status_code == 200, changed.content
    assert {k: changed.json()[k] for k in body} == body
    bad = api.patch(url, {"customer": "ACME\nStreet"}, format="json")
    assert bad.status_code == 400 and "customer_address" in bad.json()["customer"][0]
    too_long = api.patch(url, {"terms": "t" * 4001}, format="json")
    assert too_long.status_code == 400 and "terms" in too_long.json()
    assert api.patch(url, {"customer_adress": "typo"}, format="json").status_code == 400
    assert api.get(f"{url}priced/").json()["customer_address"] == body["customer_address"]

    client.force_login(user)
    edit = f"/designs/{quote.design_id}/quotes/{quote.pk}/edit/"
    page = client.get(edit).content.decode()
    assert 'name="customer_address"' in page and 'name="terms"' in page
    assert "105 58 Αθήνα</textarea>" in page
    form = {
        "customer": "ACME",
        "customer_address": "Straße 1\r\n10115 Berlin",
        "terms": "Delivery: 6 weeks.",
        "revision": 1,
        "price_book": quote.price_book.slug,
        "price_condition": "new",
        "margin_pct": "0",
        "valid_until": quote.valid_until.isoformat(),
    }
    assert client.post(edit, form).status_code == 302
    quote.refresh_from_db()
    assert (quote.customer_address, quote.terms) == ("Straße 1\n10115 Berlin", "Delivery: 6 weeks.")

    api.post(f"{url}send/", {"confirm_unpriced": True}, format="json")
    refused = api.patch(url, {"terms": "Payment on order."}, format="json")
    assert refused.status_code == 409 and refused.json()["status"] == "sent"
    quote.refresh_from_db()
    assert quote.terms == "Delivery: 6 weeks."


def test_schema_documents_address_and_terms():
    """No database: the OpenAPI schema describes both fields in and out, with their limits,
    and the name as one line."""
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)["components"]["schemas"]
    for name in ("QuoteWriteRequest", "PatchedQuoteWriteRequest", "Quote"):
        properties = schema[name]["properties"]
        assert "address" in properties["customer_address"]["description"], name
        assert "warranty" in properties["terms"]["description"], name
    write = schema["QuoteWriteRequest"]["properties"]
    assert write["terms"]["maxLength"] == 4000 and write["customer"]["pattern"] == "^[^\\r\\n]*$"
