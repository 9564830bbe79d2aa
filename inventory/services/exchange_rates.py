"""Edits of the exchange-rate table (catalog editors; audited).

A sent quote keeps the rate it was sent with in its snapshot, so changing or deleting a rate
moves draft quotes only.
"""

from __future__ import annotations

from django.db import transaction

from inventory.models import ExchangeRate
from inventory.services.common import PRICE_CHANGED, audit, field_changes, plain_values

__all__ = ["exchange_rate_delete", "exchange_rate_save"]


def _values(rate: ExchangeRate) -> dict:
    values = plain_values(rate, ExchangeRate.RATE_FIELDS)
    if rate.rate is not None:  # every digit (plain() keeps two)
        values["rate"] = format(rate.rate.normalize(), "f")
    return values


@transaction.atomic
def exchange_rate_save(*, rate: ExchangeRate, actor=None) -> ExchangeRate:
    """Validate and save an exchange rate; the change is audited (old -> new per field).

    Raises
    ------
    django.core.exceptions.ValidationError
        A field is missing or out of range, or the pair already has a rate that day (keyed
        by the field); nothing is saved.
    """
    stored = ExchangeRate.objects.filter(pk=rate.pk).first() if rate.pk else None
    before = _values(stored) if stored else {}
    rate.full_clean()
    rate.save()
    changes = field_changes(before, _values(rate))
    if changes:
        audit(
            actor,
            PRICE_CHANGED,
            f"{'Added' if stored is None else 'Changed'} the exchange rate {rate.pair} "
            f"from {rate.valid_from}",
            object_type="exchange-rate",
            object_ref=str(rate.pk),
            details={"change": "created" if stored is None else "updated", "fields": changes},
        )
    return rate


@transaction.atomic
def exchange_rate_delete(*, rate: ExchangeRate, actor=None) -> None:
    """Delete an exchange rate (sent quotes keep the rate they were sent with); audited."""
    values, pk, pair = _values(rate), rate.pk, rate.pair
    rate.delete()
    audit(
        actor,
        PRICE_CHANGED,
        f"Deleted the exchange rate {pair} from {values['valid_from']}",
        object_type="exchange-rate",
        object_ref=str(pk),
        details={
            "change": "deleted",
            "fields": {name: {"old": value, "new": None} for name, value in values.items()},
        },
    )
