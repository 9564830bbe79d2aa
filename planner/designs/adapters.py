"""Between the catalog tables and the pure design domain, and between fabrics and bytes.

- :func:`catalog_facts` reads every catalog part once (one query per category) into the
  :class:`~planner.domain.catalog.CatalogFacts` the generators and media selection use, and
  keeps the result per process while :func:`catalog_fingerprint` is unchanged.
- :func:`catalog_fingerprint` changes whenever a catalog part is added, changed or removed.
- :func:`price_table` reads a price book's offers into the rule that picks one per BOM line;
  :func:`price_of_factory` turns it into ``price_of(slug) -> float | None``;
  :func:`exchange_rates` reads the rates into a currency valid on a day.
- :func:`fabric_pack` / :func:`fabric_unpack` store a fabric as zlib-compressed JSON;
  :func:`fabric_part_names` reads the catalog names a stored fabric uses without unpacking it.
"""

from __future__ import annotations

import hashlib
import json
import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable, Collection
from datetime import date
from decimal import Decimal

from django.db import connection

from inventory.adapters import part_record
from inventory.models import CATEGORY_MODELS, Price, PriceBook
from inventory.selectors import exchange_rates_valid_on
from inventory.services import SEED_PRICE_BOOK
from planner.domain.catalog import CatalogFacts, CatalogLookupError, device_from_spec
from planner.domain.fabric import Fabric
from planner.domain.outputs.quote import ExchangeRate, PriceOffer, PriceTable
from planner.domain.settings import FabricSettings

DEVICE_CATEGORIES = ("switch", "server")
PACK_LEVEL = 6


#: Catalog facts read, by (catalog fingerprint, for_new, keep): a page, export or job reads
#: the whole catalog (about 50 ms on PostgreSQL with the seed catalog) once per process and
#: catalog state; the fingerprint (one aggregate per category) says when it changed.
_FACTS_CACHE: OrderedDict[tuple, CatalogFacts] = OrderedDict()
_FACTS_CACHE_SIZE = 8
_FACTS_LOCK = threading.Lock()


def catalog_facts(*, for_new: bool = False, keep: Collection[str] = ()) -> CatalogFacts:
    """The catalog's facts (:func:`read_catalog_facts`), read once per catalog state.

    The result is shared by every caller until the catalog changes: treat it as read-only.
    """
    key = (catalog_fingerprint(), for_new, frozenset(keep) if for_new else frozenset())
    with _FACTS_LOCK:
        facts = _FACTS_CACHE.get(key)
        if facts is not None:
            _FACTS_CACHE.move_to_end(key)
            return facts
    facts = read_catalog_facts(for_new=for_new, keep=keep)
    with _FACTS_LOCK:
        _FACTS_CACHE[key] = facts
        while len(_FACTS_CACHE) > _FACTS_CACHE_SIZE:
            _FACTS_CACHE.popitem(last=False)
    return facts


def read_catalog_facts(*, for_new: bool = False, keep: Collection[str] = ()) -> CatalogFacts:
    """Device models (switches and servers) and raw part records of the whole catalog.

    Parts are keyed by slug and by each alias (a slug wins over another part's alias, unless
    the slug's part is archived and the alias's is not: a part superseded by a family that
    took its name as an alias, such as 980-9I570-00N030 by MFP7E10-Nxxx). Each
    record holds the spec values plus the part's ``provenance`` ({field path: {source, grade,
    ...}}) and ``sources``, so that engines can grade every figure they use.

    Archived parts are included (old revisions still read, export, price and validate with
    them) unless ``for_new``: then they are left out, so that nothing new picks them, except
    the names in ``keep`` (parts an edited revision already used), and
    ``facts.archived`` names the ones left out (so that a spec naming one is told so).
    """
    facts = CatalogFacts()
    aliases: list[tuple[str, str]] = []
    archived: set[str] = set()
    kept = set(keep)
    for category, model in CATEGORY_MODELS.items():
        for part in model.objects.select_related("manufacturer").order_by("slug"):
            if for_new and part.archived:
                names = {part.slug, *(part.aliases or [])}
                if not names & kept:
                    facts.archived.update(dict.fromkeys(names, category))
                    continue
            record = part_record(part)
            facts.parts[part.slug] = record
            if part.archived:
                archived.add(part.slug)
            if category in DEVICE_CATEGORIES:
                facts.devices[part.slug] = device_from_spec(part.slug, category, record, part.name)
            aliases.extend((alias, part.slug) for alias in part.aliases or [])
    for alias, slug in aliases:
        if alias in archived and slug not in archived:
            facts.parts[alias] = facts.parts[slug]  # the live part that took its name
        facts.parts.setdefault(alias, facts.parts[slug])
        if slug in facts.devices:
            facts.devices.setdefault(alias, facts.devices[slug])
    return facts


def catalog_fingerprint() -> str:
    """A short hash that changes when any catalog part is added, saved or deleted.

    Built from each category's row count, id sum and latest ``updated`` time (one aggregate
    query over every category's table), so results computed from :func:`catalog_facts` can be
    reused only while the catalog is unchanged. Parts change through services, which save them
    (a bulk ``QuerySet.update`` would leave ``updated`` alone: the product never does one on
    parts).
    """
    quote = connection.ops.quote_name
    selects = []
    for category, model in CATEGORY_MODELS.items():
        pk = quote(model._meta.pk.column)
        updated = quote(model._meta.get_field("updated").column)
        selects.append(
            f"SELECT '{category}', COUNT({pk}), SUM({pk}), MAX({updated}) "
            f"FROM {quote(model._meta.db_table)}"
        )
    with connection.cursor() as cursor:
        cursor.execute(" UNION ALL ".join(selects))
        rows = {row[0]: row[1:] for row in cursor.fetchall()}
    digest = hashlib.sha256()
    for category in CATEGORY_MODELS:
        count, ids, latest = rows[category]
        latest = latest.isoformat() if hasattr(latest, "isoformat") else (latest or "")
        digest.update(f"{category}:{count}:{ids or 0}:{latest}|".encode())
    return digest.hexdigest()[:16]


def price_table(book: PriceBook) -> PriceTable:
    """Every offer of ``book`` as a :class:`~planner.domain.outputs.quote.PriceTable`.

    The one price lookup of the app: quotes and the revision diff choose a line's offer with
    it, and :func:`price_of_factory` takes its lowest new offers. Cables and fibers bring their
    catalog lengths (a part made in one length takes an offer that names no length).
    """
    offers = [
        PriceOffer(
            part=row.part_slug,
            amount=Decimal(row.price),
            currency=row.currency,
            condition=row.condition,
            length_m=row.length_m,
            seller=row.seller,
            as_of=row.as_of,
            source_url=row.source_url,
            reference=str(row.pk),
            grade=row.grade,
            note=row.note,
        )
        for row in Price.objects.for_pricing().filter(book=book).order_by("pk")
    ]
    lengths = {
        slug: value or []
        for category in ("cable", "fiber")
        for slug, value in CATEGORY_MODELS[category].objects.values_list("slug", "lengths_m")
    }
    return PriceTable(offers, part_lengths_m=lengths)


def exchange_rates(to_currency: str, day: date) -> dict[str, ExchangeRate]:
    """The exchange rates into ``to_currency`` valid on ``day``, by the currency they convert
    from (:func:`inventory.selectors.exchange_rates_valid_on`), as the quote domain's
    :class:`~planner.domain.outputs.quote.ExchangeRate` (the rate without trailing zeros)."""
    return {
        code: ExchangeRate(
            from_currency=row.from_currency,
            to_currency=row.to_currency,
            rate=Decimal(format(row.rate.normalize(), "f")),
            valid_from=row.valid_from.isoformat(),
            source=row.source,
            source_url=row.source_url,
            reference=str(row.pk),
        )
        for code, row in exchange_rates_valid_on(to_currency, day).items()
    }


def price_of_factory(book_slug: str | None = None) -> Callable[[str], float | None]:
    """``price_of(slug)``: the lowest new-condition price of a part in a price book, seen
    prices only (an offer graded ``estimate`` never steers the media choice).

    Only offers in the book's own currency count (no conversion), at any length; a part
    without one is unpriced (``None``). ``book_slug`` defaults to the seed reseller book; when
    that book is not loaded every part is unpriced.

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
    table = price_table(book)

    def price_of(slug: str) -> float | None:
        offer = table.lowest(slug, currency=book.currency, condition="new", seen_only=True)
        return None if offer is None else float(offer.amount)

    return price_of


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


#: Keys at the head of a packed fabric: the catalog parts it names, its measured facts and its
#: settings (``to_dict`` writes them first; a fabric stored before the settings were kept
#: apart has no ``settings``).
_HEAD_KEYS = ("models", "parts", "info", "settings")
_OLD_HEAD_KEYS = ("models", "parts", "info")
_INFLATE_CHUNK = 1 << 16


def _parse_head(text: str) -> dict | None:
    """The :data:`_HEAD_KEYS` of the start of a packed fabric's JSON; ``None`` if ``text``
    ends before them. Raises ``ValueError`` if the document does not start as
    :func:`fabric_pack` writes it."""
    decoder = json.JSONDecoder()
    head: dict = {}
    position = 1  # after "{"
    try:
        while len(head) < len(_HEAD_KEYS):
            key, position = decoder.raw_decode(text, position)
            if text[position] != ":":
                raise ValueError("not a packed fabric")
            if key not in _HEAD_KEYS and key != "format" and set(_OLD_HEAD_KEYS) <= set(head):
                return head  # stored before the settings were kept apart
            value, position = decoder.raw_decode(text, position + 1)
            if text[position] not in ",}":
                raise ValueError("not a packed fabric")
            position += 1
            if key in _HEAD_KEYS:
                head[key] = value
            elif key != "format":
                raise ValueError("not a packed fabric")
    except (json.JSONDecodeError, IndexError):
        return None
    return head


def _fabric_head(data: bytes) -> dict:
    """``models``, ``parts`` and ``info`` of a packed fabric, inflating only as much of the
    stream as they need (they come before the node and link columns); read from the whole
    document if it is not laid out as :func:`fabric_pack` writes it."""
    inflater = zlib.decompressobj()
    raw = inflater.decompress(data, _INFLATE_CHUNK)
    try:
        while True:
            head = _parse_head(raw.decode("utf-8", errors="ignore"))
            if head is not None:
                return head
            if not inflater.unconsumed_tail:
                break
            raw += inflater.decompress(inflater.unconsumed_tail, _INFLATE_CHUNK)
    except ValueError:
        pass
    document = json.loads(zlib.decompress(data))
    return {key: document.get(key) for key in _HEAD_KEYS}


def _head_settings(head: dict) -> FabricSettings:
    if head.get("settings") is not None:
        return FabricSettings.from_dict(head["settings"])
    return FabricSettings.from_info(dict(head.get("info") or {}))[0]


def fabric_settings(data: bytes | memoryview) -> FabricSettings:
    """A packed fabric's settings (transport, networks, layout ...), read from the head of
    the stored document only (see :func:`_fabric_head`): cheap for any size of fabric. A
    fabric stored before they were kept apart has them upgraded from its ``info``."""
    return _head_settings(_fabric_head(bytes(data)))


def fabric_settings_from_start(start: bytes | memoryview) -> FabricSettings | None:
    """The settings from the first bytes of a packed fabric (a database read of only its
    start); ``None`` when they end before them, or are not the start of a packed fabric."""
    try:
        raw = zlib.decompressobj().decompress(bytes(start))
        head = _parse_head(raw.decode("utf-8", errors="ignore"))
    except (zlib.error, ValueError):
        return None
    return None if head is None else _head_settings(head)


def fabric_part_names(data: bytes | memoryview) -> set[str]:
    """Catalog names a packed fabric uses: its device models, media parts and rack type.

    Reads only the head of the stored document (see :func:`_fabric_head`), so it is cheap
    even for a 100,000-GPU fabric.
    """
    head = _fabric_head(bytes(data))
    names = {str(name) for name in head.get("models") or []}
    names |= {str(name) for name in head.get("parts") or []}
    rack = (_head_settings(head).layout or {}).get("rack")
    if rack:
        names.add(str(rack))
    return names
