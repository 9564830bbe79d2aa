"""Read catalog YAML files (the seed catalog and users' own) into plain records.

Pure: returns :class:`PartRecord` objects; the Django service writes them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

from inventory.library.documents import DocumentError, load_yaml
from inventory.library.optics import OPTICS_FILE, OpticsFileError, OpticsTable, read_optics
from inventory.library.provenance import ProvenanceError, split_provenance
from inventory.library.schema import FILES, FLATTENED, IDENTITY_FIELDS, SPEC_FIELDS


class CatalogFileError(ValueError):
    """A catalog file cannot be read; the message names the file, entry and field."""

    def __init__(self, message: str, *, field: str = ""):
        super().__init__(message)
        self.field = field


@dataclass
class PartRecord:
    """One part read from a file: identity, spec values, sources and provenance."""

    category: str
    slug: str
    identity: dict
    spec: dict
    sources: dict
    provenance: dict
    origin: str = ""


@dataclass
class PriceRecord:
    part: str
    price: float
    currency: str
    seller: str = ""
    url: str = ""
    date: str = ""
    grade: str = "secondary"
    note: str = ""
    condition: str = "new"
    length_m: float | None = None


@dataclass
class CatalogFiles:
    manufacturers: list[dict] = field(default_factory=list)
    parts: list[PartRecord] = field(default_factory=list)
    price_book: dict | None = None
    prices: list[PriceRecord] = field(default_factory=list)
    #: The folder's optics reference table (``optics.yaml``), None when it has none.
    optics: OpticsTable | None = None


#: libyaml's parser where PyYAML has it (the PyPI wheels do): the same safe subset, ~6x faster.
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _load_yaml(path: Path):
    """A catalog file's YAML, read within :mod:`inventory.library.documents`' limits."""
    try:
        return load_yaml(path.read_text(encoding="utf-8"), loader=_SAFE_LOADER)
    except DocumentError as exc:
        raise CatalogFileError(f"{path.name}: {exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark else ""
        raise CatalogFileError(
            f"{path.name}{where}: malformed YAML: {getattr(exc, 'problem', exc)}"
        ) from exc
    except UnicodeDecodeError as exc:
        raise CatalogFileError(f"{path.name}: not UTF-8 text") from exc


def _flatten(category: str, values: dict, provenance: dict) -> None:
    for prefix in FLATTENED.get(category, ()):
        nested = values.pop(prefix, None)
        if nested is None:
            continue
        if not isinstance(nested, dict):
            raise CatalogFileError(f"{prefix} must be an object")
        for key, value in nested.items():
            values[f"{prefix}_{key}"] = value
        for path in [p for p in provenance if p == prefix or p.startswith(prefix + ".")]:
            record = provenance.pop(path)
            if path == prefix:
                for key in nested:
                    provenance.setdefault(f"{prefix}_{key}", record)
            else:
                provenance[f"{prefix}_{path[len(prefix) + 1 :]}"] = record


def part_from_entry(category: str, entry: dict, origin: str) -> PartRecord:
    """Turn one file entry into a :class:`PartRecord`, checking its keys and provenance."""
    if not isinstance(entry, dict):
        raise CatalogFileError(f"{origin}: each entry must be a mapping")
    slug = entry.get("slug")
    where = f"{origin} {slug or '(no slug)'}"
    if not slug or not isinstance(slug, str):
        raise CatalogFileError(f"{where}: slug is required")
    try:
        values, provenance = split_provenance(entry)
    except ProvenanceError as exc:
        raise CatalogFileError(f"{where}: field {exc.field}: {exc}") from exc
    try:
        _flatten(category, values, provenance)
    except CatalogFileError as exc:
        raise CatalogFileError(f"{where}: {exc}") from exc
    sources = values.pop("sources")
    allowed = set(IDENTITY_FIELDS) | set(SPEC_FIELDS[category])
    unknown = sorted(str(key) for key in set(values) - allowed)
    if unknown:
        raise CatalogFileError(f"{where}: unknown field(s) {', '.join(unknown)} for a {category}")
    identity = {key: values[key] for key in IDENTITY_FIELDS if key in values}
    spec = {key: values[key] for key in SPEC_FIELDS[category] if key in values}
    return PartRecord(
        category=category,
        slug=slug,
        identity=identity,
        spec=spec,
        sources=sources,
        provenance=provenance,
        origin=origin,
    )


def read_catalog_folder(folder: Path) -> CatalogFiles:
    """Read ``manufacturers.yaml``, one file per category, ``optics.yaml`` (the optics
    reference table, :mod:`inventory.library.optics`) and ``prices.yaml`` from ``folder``.

    Missing category files are allowed (an empty category).

    Raises
    ------
    CatalogFileError
        Malformed YAML, an entry without slug, an unknown field, a bad provenance reference,
        a bad optics fact (negative loss, unknown fiber grade; ``field`` names it).
    """
    folder = Path(folder)
    result = CatalogFiles()
    manufacturers_path = folder / "manufacturers.yaml"
    if manufacturers_path.exists():
        data = _load_yaml(manufacturers_path) or []
        if isinstance(data, dict) and all(isinstance(value, dict) for value in data.values()):
            data = [{"slug": key, **value} for key, value in data.items()]
        if not isinstance(data, list):
            raise CatalogFileError(
                "manufacturers.yaml: expected a list of {slug, name, url} (or a mapping by slug)"
            )
        for index, item in enumerate(data):
            if not isinstance(item, dict) or not item.get("slug") or not item.get("name"):
                raise CatalogFileError(
                    f"manufacturers.yaml entry {index + 1}: slug and name are required"
                )
        result.manufacturers = data
    for category, filename in FILES.items():
        path = folder / filename
        if not path.exists():
            continue
        entries = _load_yaml(path) or []
        if not isinstance(entries, list):
            raise CatalogFileError(f"{filename}: expected a list of parts")
        for entry in entries:
            result.parts.append(part_from_entry(category, entry, filename))
    optics_path = folder / OPTICS_FILE
    if optics_path.exists():
        try:
            result.optics = read_optics(optics_path)
        except OpticsFileError as exc:
            raise CatalogFileError(str(exc), field=exc.field) from None
    prices_path = folder / "prices.yaml"
    if prices_path.exists():
        data = _load_yaml(prices_path) or {}
        if not isinstance(data, dict):
            raise CatalogFileError("prices.yaml: expected a mapping with book and prices")
        book = data.get("book")
        if book is not None and not (
            isinstance(book, dict)
            and all(isinstance(book.get(key), str) and book[key] for key in ("slug", "name"))
        ):
            raise CatalogFileError("prices.yaml book: a mapping with slug and name is required")
        result.price_book = book
        rows = data.get("prices") or []
        if not isinstance(rows, list):
            raise CatalogFileError("prices.yaml prices: expected a list of prices")
        for index, row in enumerate(rows):
            if not isinstance(row, dict) or not all(isinstance(key, str) for key in row):
                raise CatalogFileError(f"prices.yaml price {index + 1}: expected a mapping")
            try:
                result.prices.append(PriceRecord(**row))
            except TypeError as exc:
                raise CatalogFileError(f"prices.yaml price {index + 1}: {exc}") from exc
    return result
