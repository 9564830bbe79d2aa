"""Edits of price books and their offers (audited for the book's readers only).

Whole price lists come in through :mod:`inventory.services.imports` and go out through
:mod:`inventory.services.exports`; these are the edits of one book or one offer.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from inventory.models import Price, PriceBook
from inventory.services.common import (
    PRICE_CHANGED,
    CatalogConflict,
    audit,
    field_changes,
    plain_values,
)

__all__ = [
    "price_archive",
    "price_book_delete",
    "price_book_save",
    "price_delete",
    "price_restore",
    "price_save",
]


PRICE_BOOK_FIELDS = ("slug", "name", "currency", "kind", "description", "team")


def _book_values(book: PriceBook) -> dict:
    values = plain_values(book, [name for name in PRICE_BOOK_FIELDS if name != "team"])
    values["team"] = book.team.slug if book.team_id else None
    return values


@transaction.atomic
def price_book_save(*, book: PriceBook, actor=None) -> PriceBook:
    """Validate and save a price book; the change is audited (old -> new per field), for
    readers of the book only (the event carries the book's team)."""
    stored = PriceBook.objects.filter(pk=book.pk).select_related("team").first()
    before = _book_values(stored) if book.pk and stored else {}
    book.full_clean()
    book.save()
    changes = field_changes(before, _book_values(book))
    if changes:
        audit(
            actor,
            PRICE_CHANGED,
            f"{'Created' if not before else 'Changed'} price book {book.slug}",
            team=book.team if book.team_id else (stored.team if stored else None),
            object_type="price-book",
            object_ref=book.slug,
            details={"change": "created" if not before else "updated", "fields": changes},
        )
    return book


@transaction.atomic
def price_book_delete(*, book: PriceBook, actor=None) -> None:
    """Delete a price book and its offers, unless a quote is priced from it.

    Raises
    ------
    CatalogConflict
        Quotes are priced from the book.
    """
    quotes = book.quotes.count()
    if quotes:
        raise CatalogConflict(
            f"{quotes} quote{'s are' if quotes != 1 else ' is'} priced from {book.slug}; "
            "it cannot be deleted.",
            field="slug",
            count=quotes,
        )
    values, team = _book_values(book), book.team
    prices, _ = book.prices.all().delete()
    book.delete()
    audit(
        actor,
        PRICE_CHANGED,
        f"Deleted price book {values['slug']} and its {prices} price{'s' if prices != 1 else ''}",
        team=team,
        object_type="price-book",
        object_ref=values["slug"],
        details={
            "change": "deleted",
            "fields": {name: {"old": value, "new": None} for name, value in values.items()},
            "prices_deleted": prices,
        },
    )


def _price_values(price: Price) -> dict:
    values = plain_values(price, Price.OFFER_FIELDS)
    values["book"] = price.book.slug if price.book_id else None
    return values


@transaction.atomic
def price_save(*, price: Price, actor=None) -> Price:
    """Validate and save one offer; the change is audited with old -> new prices, for readers
    of its book only."""
    stored = Price.objects.filter(pk=price.pk).select_related("book").first() if price.pk else None
    before = _price_values(stored) if stored else {}
    price.full_clean()
    price.save()
    changes = field_changes(before, _price_values(price))
    if changes:
        books = {price.book, stored.book if stored else price.book}
        for book in books:
            audit(
                actor,
                PRICE_CHANGED,
                f"{'Added' if stored is None else 'Changed'} the price of {price.part_slug} in "
                f"{book.slug}",
                team=book.team,
                object_type="price",
                object_ref=str(price.pk),
                details={
                    "change": "created" if stored is None else "updated",
                    "book": book.slug,
                    "part": price.part_slug,
                    "fields": changes,
                },
            )
    return price


@transaction.atomic
def price_delete(*, price: Price, actor=None) -> None:
    """Delete one offer; audited with its old values, for readers of its book only."""
    values, book, pk = _price_values(price), price.book, price.pk
    price.delete()
    audit(
        actor,
        PRICE_CHANGED,
        f"Deleted the price of {values['part_slug']} in {book.slug}",
        team=book.team,
        object_type="price",
        object_ref=str(pk),
        details={
            "change": "deleted",
            "book": book.slug,
            "part": values["part_slug"],
            "fields": {name: {"old": value, "new": None} for name, value in values.items()},
        },
    )


def _archive_values(price: Price) -> dict:
    return {
        "archived": price.is_archived,
        "archived_at": price.archived_at.isoformat() if price.archived_at else None,
        "archived_by": price.archived_by.get_username() if price.archived_by_id else None,
    }


def _set_archived(price: Price, *, archived: bool, actor) -> Price:
    stored = Price.objects.select_for_update(of=("self",)).select_related("book", "archived_by")
    stored = stored.get(pk=price.pk)
    if stored.is_archived == archived:
        return stored  # already so: nothing to write or audit
    before = _archive_values(stored)
    stored.archived_at = timezone.now() if archived else None
    stored.archived_by = actor if archived and getattr(actor, "pk", None) else None
    stored.save(update_fields=["archived_at", "archived_by"])
    verb = "Archived" if archived else "Restored"
    audit(
        actor,
        PRICE_CHANGED,
        f"{verb} the offer of {stored.part_slug} in {stored.book.slug}",
        team=stored.book.team,
        object_type="price",
        object_ref=str(stored.pk),
        details={
            "change": "archived" if archived else "restored",
            "book": stored.book.slug,
            "part": stored.part_slug,
            "fields": field_changes(before, _archive_values(stored)),
        },
    )
    return stored


@transaction.atomic
def price_archive(*, price: Price, actor=None) -> Price:
    """Archive one offer: it stays in its book (who and when kept) but prices nothing
    (:meth:`inventory.models.PriceQuerySet.for_pricing`); audited old -> new, for readers of
    its book only. Archiving an archived offer changes nothing."""
    return _set_archived(price, archived=True, actor=actor)


@transaction.atomic
def price_restore(*, price: Price, actor=None) -> Price:
    """Restore an archived offer: it prices things again; audited old -> new."""
    return _set_archived(price, archived=False, actor=actor)
