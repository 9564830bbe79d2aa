"""How completely a price book prices every preset: the price-coverage report.

Each preset (``planner/domain/examples``) is built as the wizard would save it (the media
chosen with the spec's own price book, the seed one by default), its bill of materials is
priced at the book as a quote of new parts in the book's currency would be (offers in another
currency converted at today's exchange rates), and its lines are counted by grade: list,
reseller, estimate, unpriced (:mod:`planner.domain.outputs.price_coverage`).

Built fabrics are kept per catalog fingerprint and the report per book's price fingerprint
and day (:mod:`planner.designs.cache`), so the page costs one build of the presets (about
3 s) after a catalog or price change, and a cache read after that.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from django.core.cache import cache

from inventory.models import Price, PriceBook
from planner.designs.adapters import catalog_facts, exchange_rates, price_of_factory, price_table
from planner.designs.cache import cached, output_key, price_fingerprint
from planner.domain.outputs.bom import BillOfMaterials, bill_of_materials
from planner.domain.outputs.price_coverage import PriceCoverage, price_coverage
from planner.domain.outputs.quote import bom_cost
from planner.domain.pipeline import build_fabric
from planner.domain.presets import Preset, load_presets
from planner.domain.spec import parse_spec

__all__ = ["PresetCoverage", "preset_boms", "price_book_coverage"]


@dataclass(frozen=True)
class PresetCoverage:
    """One preset's bill at one book: its lines by grade, or why it could not be built."""

    slug: str
    name: str
    coverage: PriceCoverage | None
    error: str = ""

    def as_dict(self) -> dict:
        return {
            "preset": self.slug,
            "name": self.name,
            "error": self.error,
            **(self.coverage.as_dict() if self.coverage else {}),
        }


def _preset_bom(preset: Preset, facts) -> BillOfMaterials | str:
    spec = parse_spec(preset.spec)
    try:
        fabric = build_fabric(spec, facts, price_of=price_of_factory(spec.price_book))
    except ValueError as exc:  # FabricError, CatalogLookupError, SpecError
        return f"not built: {exc}"
    return bill_of_materials(fabric, facts)


def preset_boms(presets: tuple[Preset, ...] | None = None) -> dict[str, BillOfMaterials | str]:
    """Each preset's bill of materials (or why it could not be built), by slug; kept in the
    cache while the catalog (and so every preset's build) is unchanged."""
    presets = load_presets() if presets is None else presets
    key = output_key("preset-boms", [p.slug for p in presets])
    found = cache.get(key)
    if found is None:
        facts = catalog_facts()
        found = {preset.slug: _preset_bom(preset, facts) for preset in presets}
        cache.set(key, found, 24 * 3600)
    return found


def price_book_coverage(
    book: PriceBook, *, day: date | None = None, presets: tuple[Preset, ...] | None = None
) -> list[PresetCoverage]:
    """Every preset's lines at ``book`` by grade (module docstring), presets in order."""
    presets = load_presets() if presets is None else presets
    day = day or date.today()

    def compute() -> list[PresetCoverage]:
        boms = preset_boms(presets)
        table = price_table(book)
        rates = exchange_rates(book.currency, day)
        notes = {
            str(pk): note
            for pk, note in Price.objects.for_pricing()
            .filter(book=book, grade="estimate")
            .values_list("pk", "note")
        }
        rows = []
        for preset in presets:
            bom = boms[preset.slug]
            if isinstance(bom, str):
                rows.append(PresetCoverage(preset.slug, preset.name, None, bom))
                continue
            priced = bom_cost(bom, table=table, currency=book.currency, rates=rates)
            rows.append(
                PresetCoverage(preset.slug, preset.name, price_coverage(priced, notes=notes))
            )
        return rows

    parts = ["price-coverage", book.pk, price_fingerprint(book), day.isoformat()]
    return cached("price-coverage", [*parts, [p.slug for p in presets]], compute)
