"""Import NetBox devicetype-library files (switches and NICs) into the catalog.

All-or-nothing like every catalog import: every file is read and checked first, then
manufacturers are resolved (missing ones created) and the parts written through
:func:`inventory.services.parts_import` in one transaction. Any problem in any file refuses the
whole import with :class:`~inventory.services.CatalogImportError`, listing every problem.
"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.text import slugify

from inventory.library.files import PartRecord
from inventory.library.netbox import SOURCE_KEY, NetboxFileError, parse_devicetype
from inventory.models import CATEGORY_MODELS, Manufacturer
from inventory.services import CatalogImportError, ImportProblem, ImportReport, parts_import

__all__ = ["netbox_import", "netbox_import_text"]

YAML_SUFFIXES = {".yaml", ".yml"}


def _max_bytes() -> int:
    return int(settings.CATALOG_IMPORT_MAX_BYTES)


def _too_big(origin: str, size: int) -> ImportProblem:
    return ImportProblem(
        origin,
        "",
        f"file is {size} bytes, above the import limit of {_max_bytes()} bytes "
        "(CATALOG_IMPORT_MAX_BYTES)",
    )


def _files(paths: list[Path]) -> tuple[list[Path], list[ImportProblem]]:
    """Files named directly, and ``*.yaml``/``*.yml`` under folders (hidden ones skipped)."""
    files: list[Path] = []
    problems: list[ImportProblem] = []
    for path in map(Path, paths):
        if path.is_dir():
            found = sorted(
                item
                for item in path.rglob("*")
                if item.is_file()
                and item.suffix.lower() in YAML_SUFFIXES
                and not any(part.startswith(".") for part in item.relative_to(path).parts)
            )
            if not found:
                problems.append(ImportProblem(str(path), "", "no .yaml or .yml files in folder"))
            files.extend(found)
        elif path.is_file():
            files.append(path)
        else:
            problems.append(ImportProblem(str(path), "", "no such file or folder"))
    unique: dict[Path, Path] = {}
    for item in files:
        unique.setdefault(item.resolve(), item)
    return list(unique.values()), problems


def _read(path: Path) -> tuple[str | None, ImportProblem | None]:
    origin = str(path)
    size = path.stat().st_size
    if size > _max_bytes():
        return None, _too_big(origin, size)
    try:
        return path.read_bytes().decode("utf-8-sig"), None
    except UnicodeDecodeError:
        return None, ImportProblem(origin, "", "not UTF-8 text")
    except OSError as exc:
        return None, ImportProblem(origin, "", f"cannot be read: {exc.strerror or exc}")


def _problems(exc: NetboxFileError) -> list[ImportProblem]:
    return [
        ImportProblem(f"{exc.origin} line {p.line}" if p.line else exc.origin, p.field, p.message)
        for p in exc.problems
    ]


def _resolve_manufacturers(
    records: list[PartRecord], report: ImportReport
) -> tuple[dict[str, Manufacturer], list[ImportProblem]]:
    """Match each NetBox manufacturer name to ours (name, case-insensitive, or slug); create
    the missing ones with a slugified name. Runs inside the caller's transaction."""
    known = list(Manufacturer.objects.all())
    resolved: dict[str, Manufacturer] = {}
    problems: list[ImportProblem] = []
    for record in records:
        name = str(record.identity["manufacturer"])
        key = name.lower()
        if key in resolved:
            continue
        slug = slugify(name)
        match = next((m for m in known if m.name.lower() == key), None) or next(
            (m for m in known if m.slug.lower() in {key, slug}), None
        )
        if match is None:
            match = Manufacturer(slug=slug, name=name)
            try:
                match.full_clean()
            except ValidationError as exc:
                problems.append(
                    ImportProblem(
                        record.origin,
                        "manufacturer",
                        f"cannot create {name!r}: {' '.join(exc.messages)}",
                    )
                )
                continue
            match.save()
            known.append(match)
            report.warnings.append(f"created manufacturer {name} (slug {slug})")
        resolved[key] = match
    return resolved, problems


def _replacements(records: list[PartRecord], replace_existing: bool) -> list[ImportProblem]:
    """Parts already in the catalog from other sources are not overwritten unless asked."""
    if replace_existing:
        return []
    problems = []
    for record in records:
        part = CATEGORY_MODELS[record.category].objects.filter(slug=record.slug).first()
        others = sorted(set(part.sources or {}) - {SOURCE_KEY}) if part else []
        if others:
            problems.append(
                ImportProblem(
                    f"{record.origin} {record.slug}",
                    "slug",
                    f"{record.slug} is already in the catalog with other sources "
                    f"({', '.join(others)}); NetBox's secondary data would replace its values. "
                    "Refused; import with --replace (replace_existing=True) to overwrite it.",
                )
            )
    return problems


def _import(
    texts: list[tuple[str, str]],
    problems: list[ImportProblem],
    *,
    category: str | None,
    replace_existing: bool,
    actor=None,
) -> ImportReport:
    report = ImportReport()
    records: list[PartRecord] = []
    for origin, text in texts:
        try:
            result = parse_devicetype(text, origin, category=category)
        except NetboxFileError as exc:
            problems.extend(_problems(exc))
            continue
        records.append(result.record)
        report.warnings.extend(f"{origin}: {warning}" for warning in result.warnings)
    with transaction.atomic():
        manufacturers, manufacturer_problems = _resolve_manufacturers(records, report)
        problems.extend(manufacturer_problems)
        problems.extend(_replacements(records, replace_existing))
        if records:
            try:
                parts_import(
                    records,
                    manufacturers=manufacturers,
                    report=report,
                    actor=actor,
                    source=", ".join(origin for origin, _ in texts)[:60],
                )
            except CatalogImportError as exc:
                problems.extend(exc.problems)
        if problems:  # raising inside the block rolls back the manufacturers too
            raise CatalogImportError(problems)
    return report


def netbox_import(
    paths: list[Path], *, category: str | None = None, replace_existing: bool = False
) -> ImportReport:
    """Import NetBox device-type / module-type YAML files as switches or NICs.

    Parameters
    ----------
    paths : list of Path
        Files and folders; folders are searched recursively for ``*.yaml`` and ``*.yml``.
    category : {"switch", "nic"}, optional
        Category of every file; by default each file's category follows the heuristic of
        :func:`inventory.library.netbox.parse_devicetype`.
    replace_existing : bool, default False
        Overwrite a part already in the catalog from other (e.g. datasheet) sources. By
        default such a part refuses the import; parts imported earlier from NetBox alone are
        always updated.

    Returns
    -------
    ImportReport
        Counts created / updated / unchanged; ``warnings`` (prefixed with the file) list what
        each file could not give, and manufacturers created.

    Raises
    ------
    CatalogImportError
        Every problem of every file (too big, not UTF-8, malformed YAML, wrong types,
        unmappable interfaces, failed validation); nothing is written.
    """
    files, problems = _files(paths)
    texts: list[tuple[str, str]] = []
    for path in files:
        text, problem = _read(path)
        if problem:
            problems.append(problem)
        else:
            texts.append((str(path), text))
    if not files and not problems:
        raise CatalogImportError([ImportProblem("", "", "no files given")])
    return _import(texts, problems, category=category, replace_existing=replace_existing)


def netbox_import_text(
    *,
    name: str,
    text: str,
    category: str | None = None,
    replace_existing: bool = False,
    actor=None,
) -> ImportReport:
    """Import one uploaded NetBox YAML file (browser or API).

    Parameters
    ----------
    name : str
        The uploaded file's name, used in messages and in the source title.
    text : str
        The file's content.
    category, replace_existing
        As for :func:`netbox_import`.
    actor
        The user importing, recorded in the audit log.

    Returns
    -------
    ImportReport

    Raises
    ------
    CatalogImportError
        As for :func:`netbox_import`; nothing is written.
    """
    size = len(text.encode("utf-8"))
    if size > _max_bytes():
        raise CatalogImportError([_too_big(name, size)])
    return _import(
        [(name, text)], [], category=category, replace_existing=replace_existing, actor=actor
    )
