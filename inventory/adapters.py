"""Catalog rows as the plain part records the pure catalog code reads.

:func:`part_record` is the one place a row becomes a record; the converters of
:mod:`inventory.library.facts` turn records into the facts the compatibility rules judge,
for the "works with" lists, media selection and the design validator alike.
"""

from __future__ import annotations

from inventory.library.facts import optics_facts_of
from inventory.models import CatalogPart


def part_record(part: CatalogPart) -> dict:
    """``part`` as a plain record: identity, its spec values, provenance and sources.

    Keys: ``category``, ``slug``, ``manufacturer`` (slug), ``name``, ``part_number``, every
    spec field, ``provenance`` and ``sources``; a transceiver also has its optical budget facts
    (:func:`inventory.library.facts.optics_facts_of`). Select the manufacturer
    with the rows (``select_related("manufacturer")``) to read many parts in one query.
    """
    record = {
        "category": part.CATEGORY,
        "slug": part.slug,
        "manufacturer": part.manufacturer.slug,
        "name": part.name,
        "part_number": part.part_number,
        **part.spec_values(),
        "provenance": part.provenance or {},
        "sources": part.sources or {},
    }
    if part.CATEGORY == "transceiver":
        record.update(optics_facts_of(record))
    return record
