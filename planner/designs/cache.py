"""What is derived from an immutable revision, kept in Django's cache.

A revision never changes, so what is derived from it (its downloads, its expected failures,
its cost) is the same on every request while the catalog and the price book it was derived
with are unchanged. The key of each entry names everything the output depends on:

- the revision: its id and creation time (:func:`revision_ref`; an id can come back after a
  rollback, its creation time does not);
- the catalog: :func:`planner.designs.adapters.catalog_fingerprint`, which changes when any
  part is added, saved or deleted (one aggregate query, so every process sees a change at
  once, whatever cache backend it uses);
- for anything priced, the book and its offers: :func:`price_fingerprint` (the book's id and
  currency and a hash of every offer's part, amount, currency, condition, length, grade,
  seller, date, URL and note: all a quote prints), so a price added, edited or deleted gives
  a new key;
- the request's own parameters (spares, design name, ...).

The cache never decides who sees a price: callers check the price right on every request
and only then ask for a priced value, keyed by the book the user may read.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from django.core.cache import cache

from inventory.models import Price, PriceBook
from planner.designs.adapters import catalog_fingerprint

T = TypeVar("T")

#: How long an entry is kept (entries are never stale: a change gives a new key).
CACHE_SECONDS = 24 * 3600
#: Text outputs up to this size are kept (zlib-compressed; a 4 SU cabling plan is 0.45 MB of
#: text, 40 kB compressed); larger ones stream as before, computed on each request.
TEXT_MAX_CHARS = 8 * 1024 * 1024
VERSION = "v1"


def revision_ref(revision) -> str:
    """The revision's id and creation time, as a key part."""
    created = revision.created.timestamp() if revision.created else 0
    return f"{revision.pk}@{created}"


def price_fingerprint(book: PriceBook) -> str:
    """A short hash that changes when ``book``'s currency or any of its offers changes."""
    digest = hashlib.sha256(f"{book.pk}:{book.currency}|".encode())
    rows = Price.objects.for_pricing().filter(book=book).order_by("pk")
    for row in rows.values_list(
        "pk",
        "part_category",
        "part_slug",
        "price",
        "currency",
        "condition",
        "length_m",
        "grade",
        "seller",
        "as_of",
        "source_url",
        "note",
    ):
        digest.update(repr(row).encode())
    return digest.hexdigest()[:16]


def output_key(kind: str, parts: Iterable) -> str:
    """The cache key of output ``kind`` given what it depends on (``parts``, JSON-able), the
    catalog's fingerprint included."""
    body = json.dumps([catalog_fingerprint(), *parts], sort_keys=True, default=str)
    return f"planner:output:{VERSION}:{kind}:{hashlib.sha256(body.encode()).hexdigest()}"


def cached(kind: str, parts: Iterable, compute: Callable[[], T]) -> T:
    """``compute()``, or its earlier result for the same ``kind`` and ``parts``
    (:func:`output_key`). ``None`` results are not kept."""
    key = output_key(kind, parts)
    found = cache.get(key)
    if found is not None:
        return found
    value = compute()
    if value is not None:
        cache.set(key, value, CACHE_SECONDS)
    return value


def cached_text(key: str) -> str | None:
    """The text kept under ``key`` by :func:`keep_text`, or ``None``."""
    packed = cache.get(key)
    return None if packed is None else zlib.decompress(packed).decode()


def keep_text(key: str, chunks: Iterator[str]) -> Iterator[str]:
    """Pass ``chunks`` through; once they are all sent, keep their text under ``key`` (unless
    it is longer than :data:`TEXT_MAX_CHARS`, or the client went away before the end)."""
    kept: list[str] | None = []
    size = 0
    for chunk in chunks:
        if kept is not None:
            size += len(chunk)
            if size > TEXT_MAX_CHARS:
                kept = None
            else:
                kept.append(chunk)
        yield chunk
    if kept is not None:
        cache.set(key, zlib.compress("".join(kept).encode(), 1), CACHE_SECONDS)
