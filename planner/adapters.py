"""Between the catalog tables and the pure design domain, and between fabrics and bytes.

- :func:`catalog_facts` reads every catalog part once (one query per category) into the
  :class:`~planner.domain.catalog.CatalogFacts` the generators and media selection use.
- :func:`catalog_fingerprint` changes whenever a catalog part is added, changed or removed.
- :func:`price_of_factory` turns a price book into ``price_of(slug) -> float | None``.
- :func:`fabric_pack` / :func:`fabric_unpack` store a fabric as zlib-compressed JSON.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from collections.abc import Callable
from decimal import Decimal

from django.db.models import Count, Max, Min, Sum

from inventory.models import CATEGORY_MODELS, Price, PriceBook
from inventory.services import SEED_PRICE_BOOK
from planner.domain.catalog import CatalogFacts, CatalogLookupError, device_from_spec
from planner.domain.fabric import Fabric

DEVICE_CATEGORIES = ("switch", "server")
PACK_LEVEL = 6


def catalog_facts() -> CatalogFacts:
    """Device models (switches and servers) and raw part records of the whole catalog.

    Parts are keyed by slug and by each alias (a slug wins over another part's alias). Each
    record holds the spec values plus the part's ``provenance`` ({field path: {source, grade,
    ...}}) and ``sources``, so that engines can grade every figure they use.
    """
    facts = CatalogFacts()
    aliases: list[tuple[str, str]] = []
    for category, model in CATEGORY_MODELS.items():
        for part in model.objects.select_related("manufacturer").order_by("slug"):
            spec = part.spec_values()
            facts.parts[part.slug] = {
                "category": category,
                "slug": part.slug,
                "manufacturer": part.manufacturer.slug,
                **spec,
                "provenance": part.provenance or {},
                "sources": part.sources or {},
            }
            if category in DEVICE_CATEGORIES:
                facts.devices[part.slug] = device_from_spec(part.slug, category, spec, part.name)
            aliases.extend((alias, part.slug) for alias in part.aliases or [])
    for alias, slug in aliases:
        facts.parts.setdefault(alias, facts.parts[slug])
        if slug in facts.devices:
            facts.devices.setdefault(alias, facts.devices[slug])
    return facts


def catalog_fingerprint() -> str:
    """A short hash that changes when any catalog part is added, saved or deleted.

    Built from each category's row count, id sum and latest ``updated`` time (one aggregate
    query per category), so results computed from :func:`catalog_facts` can be reused only
    while the catalog is unchanged.
    """
    digest = hashlib.sha256()
    for category, model in CATEGORY_MODELS.items():
        row = model.objects.aggregate(count=Count("pk"), ids=Sum("pk"), latest=Max("updated"))
        latest = row["latest"].isoformat() if row["latest"] else ""
        digest.update(f"{category}:{row['count']}:{row['ids'] or 0}:{latest}|".encode())
    return digest.hexdigest()[:16]


def price_of_factory(book_slug: str | None = None) -> Callable[[str], float | None]:
    """``price_of(slug)``: the lowest new-condition price of a part in a price book.

    Only offers in the book's own currency count (no conversion); a part without one is
    unpriced (``None``). ``book_slug`` defaults to the seed reseller book; when that book is
    not loaded every part is unpriced.

    Raises
    ------
    CatalogLookupError
        ``book_slug`` was given and no such price book exists (the field is ``price_book``).
    """
    book = PriceBook.objects.filter(slug=book_slug or SEED_PRICE_BOOK).first()
    if book is None:
        if book_slug:
            raise CatalogLookupError(f"price_book: no price book {book_slug!r} in the catalog")
        return lambda slug: None
    rows = (
        Price.objects.filter(book=book, condition="new", currency=book.currency)
        .values("part_slug")
        .annotate(lowest=Min("price"))
    )
    prices: dict[str, float] = {row["part_slug"]: float(Decimal(row["lowest"])) for row in rows}
    return prices.get


def _json_default(value):
    if hasattr(value, "item"):  # NumPy scalars
        return value.item()
    if hasattr(value, "tolist"):  # NumPy arrays
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def fabric_pack(fabric: Fabric) -> bytes:
    """``Fabric.to_dict()`` as compact JSON, zlib-compressed (level 6)."""
    text = json.dumps(fabric.to_dict(), separators=(",", ":"), default=_json_default)
    return zlib.compress(text.encode(), PACK_LEVEL)


def fabric_unpack(data: bytes | memoryview) -> Fabric:
    """The fabric stored by :func:`fabric_pack`."""
    return Fabric.from_dict(json.loads(zlib.decompress(bytes(data))))
