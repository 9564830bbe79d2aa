"""Reference optics facts for loss budgets: fiber grades, connector types, splices, and the
channel insertion-loss limit of each IEEE/MSA PHY.

Read from ``optics.yaml`` in a catalog folder (the seed's by default) into an
:class:`OpticsTable`, checked on the way in: a loss or attenuation that is not a number ≥ 0,
a fiber grade outside the vocabulary or a missing case (``typical``/``worst``) is refused
naming the field. Pure (no Django): the pure domain reaches it as
``planner.domain.catalog.CatalogFacts.optics``.

Shapes (plain dicts, so a budget reads them without this module's classes)::

    fiber_grades = {"OM4": {"family": "mmf", "wavelength_nm": 850,
                            "attenuation_db_per_km": {"typical": 3.0, "worst": 3.5}}, ...}
    connectors = {"mpo12": {"label": "MPO-12", "mated_pair_db": {"typical": 0.5, "worst": 0.75},
                            "low_loss_typical_db": 0.2}, ...}
    splices = {"mmf": {"loss_db": {"typical": 0.3, "worst": None}}, ...}
    phys = {"400GBASE-SR8": {"channel_il_max_db": {"OM3": 1.8, "OM4": 1.9}}, ...}

``worst`` of a splice is None: the sources give one planning figure only (use ``typical``).
Each value's source and grade is in ``provenance`` (dotted path -> {source, grade, note}),
the documents in ``sources``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import yaml

from inventory.library.documents import DocumentError, load_yaml
from inventory.library.provenance import ProvenanceError, split_provenance
from inventory.library.quantities import QUANTITIES, range_problem
from inventory.library.vocab import FIBER_GRADES, values

#: The file in a catalog folder.
OPTICS_FILE = "optics.yaml"
SEED_OPTICS = Path(__file__).resolve().parent / "seed" / OPTICS_FILE
CASES = ("typical", "worst")
FAMILIES = ("mmf", "smf")

#: The catalog's connector vocabulary (:data:`inventory.library.vocab.CONNECTORS`) -> the
#: connector type of the table. Polish (APC/UPC) does not change the loss figures the sources
#: give. CS, SN and MMC are not in the table (no sourced figure): unknown.
CONNECTOR_TYPES = {
    "lc-duplex": "lc",
    "mpo12-apc": "mpo12",
    "mpo12-upc": "mpo12",
    "mpo16-apc": "mpo16",
    "mpo16-upc": "mpo16",
}


class OpticsFileError(ValueError):
    """The optics table cannot be read; ``field`` is the dotted path of the bad value."""

    def __init__(self, message: str, *, field: str = ""):
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class OpticsTable:
    """Fiber attenuation, mated-pair and splice losses, with their provenance."""

    fiber_grades: dict = field(default_factory=dict)
    connectors: dict = field(default_factory=dict)
    splices: dict = field(default_factory=dict)
    sources: dict = field(default_factory=dict)
    provenance: dict = field(default_factory=dict)
    phys: dict = field(default_factory=dict)

    def channel_il_max_db(self, phy: str | None) -> dict:
        """``{fiber grade: dB}``: the channel insertion-loss limit of ``phy`` ({} unknown).

        Examples
        --------
        >>> seed_optics().channel_il_max_db("800GBASE-DR8"), seed_optics().channel_il_max_db("X")
        ({'OS2': 3.0, 'OS1a': 3.0}, {})
        """
        return dict((self.phys.get(phy or "") or {}).get("channel_il_max_db") or {})

    def figure_source(self, path: str) -> tuple[str, str]:
        """``(where, grade)`` of the value at ``path`` (dotted, as in ``provenance``): the
        source's URL (else its title) and the figure's grade; ``("", "")`` when unrecorded.

        Examples
        --------
        >>> seed_optics().figure_source("phys.400GBASE-SR8.channel_il_max_db.OM5")[1]
        'inferred'
        """
        record = self.provenance.get(path)
        if not record:
            return "", ""
        source = self.sources.get(record.get("source") or "") or {}
        return str(source.get("url") or source.get("title") or ""), str(record.get("grade") or "")

    def attenuation_db_per_km(self, grade: str, case: str = "worst") -> float | None:
        """Attenuation of fiber ``grade`` at its wavelength (None: grade not in the table).

        Examples
        --------
        >>> seed_optics().attenuation_db_per_km("OS2"), seed_optics().attenuation_db_per_km("X")
        (0.4, None)
        """
        return ((self.fiber_grades.get(grade) or {}).get("attenuation_db_per_km") or {}).get(case)

    def mated_pair_db(self, connector: str, case: str = "worst") -> float | None:
        """Loss of one mated pair of ``connector`` (a table key or a catalog connector).

        Examples
        --------
        >>> seed_optics().mated_pair_db("mpo12-apc"), seed_optics().mated_pair_db("lc", "typical")
        (0.75, 0.5)
        """
        key = CONNECTOR_TYPES.get(connector, connector)
        return ((self.connectors.get(key) or {}).get("mated_pair_db") or {}).get(case)

    def splice_db(self, family: str, case: str = "typical") -> float | None:
        """Loss of one splice on ``family`` (``mmf``/``smf``); ``worst`` falls back to typical.

        Examples
        --------
        >>> seed_optics().splice_db("smf"), seed_optics().splice_db("mmf", "worst")
        (0.15, 0.3)
        """
        losses = (self.splices.get(family) or {}).get("loss_db") or {}
        value = losses.get(case)
        return losses.get("typical") if value is None else value


def connector_type(connector: str | None) -> str | None:
    """The table's connector type of a catalog connector (None: not in the table).

    Examples
    --------
    >>> connector_type("mpo16-apc"), connector_type("lc-duplex"), connector_type("sn")
    ('mpo16', 'lc', None)
    """
    return CONNECTOR_TYPES.get(connector or "")


def _loss(value, path: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise OpticsFileError(f"{path} must be a number of dB, not {value!r}", field=path)
    if value < 0:
        raise OpticsFileError(f"{path} must not be negative (got {value})", field=path)
    if problem := range_problem(path, value, QUANTITIES["db"]):  # NaN, inf, 1e308 dB
        raise OpticsFileError(problem, field=path)
    return float(value)


def _cases(values_: dict | None, path: str, *, worst_required: bool = True) -> dict:
    if not isinstance(values_, dict):
        raise OpticsFileError(f"{path} must be an object {{typical, worst}}", field=path)
    unknown = sorted(str(key) for key in set(values_) - set(CASES))
    if unknown:
        raise OpticsFileError(f"{path}: unknown case(s) {', '.join(unknown)}", field=path)
    out = {}
    for case in CASES:
        if values_.get(case) is None:
            if case == "typical" or worst_required:
                raise OpticsFileError(f"{path}.{case} is required", field=f"{path}.{case}")
            out[case] = None
            continue
        out[case] = _loss(values_[case], f"{path}.{case}")
    if out["worst"] is not None and out["worst"] < out["typical"]:
        raise OpticsFileError(f"{path}: worst is below typical", field=f"{path}.worst")
    return out


def _mapping(data: dict, key: str) -> dict:
    value = data.get(key) or {}
    if not isinstance(value, dict):
        raise OpticsFileError(f"{key} must be a mapping", field=key)
    return value


def optics_from_data(data) -> OpticsTable:
    """Check and convert the parsed ``optics.yaml``.

    Raises
    ------
    OpticsFileError
        A value that is not a number ≥ 0, an unknown fiber grade or family, a missing case;
        the message names the field (dotted path).

    Examples
    --------
    >>> try:
    ...     optics_from_data({"sources": {"s": {"url": None, "grade": "estimate"}}, "source": "s",
    ...         "fiber_grades": {"OS2": {"family": "smf", "wavelength_nm": 1310,
    ...                          "attenuation_db_per_km": {"typical": -0.4, "worst": 0.4}}}})
    ... except OpticsFileError as exc:
    ...     print(exc.field)
    fiber_grades.OS2.attenuation_db_per_km.typical

    Long because: one pass over the file's sections (fiber grades, connectors, splices), each
    entry checked field by field, so that every problem names its entry and field.
    """
    if not isinstance(data, dict):
        raise OpticsFileError("expected a mapping with sources, fiber_grades, connectors, splices")
    unknown = sorted(str(key) for key in set(data) - {"sources", "source", *_SECTIONS})
    if unknown:
        raise OpticsFileError(f"unknown section(s) {', '.join(unknown)}", field=unknown[0])
    try:
        plain, provenance = split_provenance(data)
    except ProvenanceError as exc:
        raise OpticsFileError(str(exc), field=exc.field) from None
    grades = values(FIBER_GRADES)
    fiber_grades = {}
    for grade, entry in _mapping(plain, "fiber_grades").items():
        path = f"fiber_grades.{grade}"
        if grade not in grades:
            raise OpticsFileError(
                f"{path}: unknown fiber grade {grade!r} (one of {', '.join(sorted(grades))})",
                field=path,
            )
        if not isinstance(entry, dict):
            raise OpticsFileError(f"{path} must be an object", field=path)
        family = entry.get("family")
        if family not in FAMILIES or family != ("smf" if grade.startswith("OS") else "mmf"):
            raise OpticsFileError(f"{path}.family: {family!r} is not {grade}'s", field=path)
        wavelength = entry.get("wavelength_nm")
        if (
            isinstance(wavelength, bool)
            or not isinstance(wavelength, int | float)
            or wavelength <= 0
        ):
            raise OpticsFileError(f"{path}.wavelength_nm must be a number > 0", field=path)
        fiber_grades[grade] = {
            "family": family,
            "wavelength_nm": wavelength,
            "attenuation_db_per_km": _cases(
                entry.get("attenuation_db_per_km"), f"{path}.attenuation_db_per_km"
            ),
        }
    connectors = {}
    for key, entry in _mapping(plain, "connectors").items():
        path = f"connectors.{key}"
        if key not in set(CONNECTOR_TYPES.values()):
            raise OpticsFileError(
                f"{path}: unknown connector type {key!r} "
                f"(one of {', '.join(sorted(set(CONNECTOR_TYPES.values())))})",
                field=path,
            )
        if not isinstance(entry, dict):
            raise OpticsFileError(f"{path} must be an object", field=path)
        connectors[key] = {
            "label": str(entry.get("label") or key),
            "mated_pair_db": _cases(entry.get("mated_pair_db"), f"{path}.mated_pair_db"),
            "low_loss_typical_db": (
                None
                if entry.get("low_loss_typical_db") is None
                else _loss(entry["low_loss_typical_db"], f"{path}.low_loss_typical_db")
            ),
        }
    splices = {}
    for family, entry in _mapping(plain, "splices").items():
        path = f"splices.{family}"
        if family not in FAMILIES:
            raise OpticsFileError(f"{path}: unknown fiber family {family!r} (mmf, smf)", field=path)
        loss = (entry or {}).get("loss_db") if isinstance(entry, dict) else None
        cases = loss if isinstance(loss, dict) else {"typical": loss}
        splices[family] = {"loss_db": _cases(cases, f"{path}.loss_db", worst_required=False)}
    phys = {
        str(phy): _phy(entry, f"phys.{phy}", grades)
        for phy, entry in _mapping(plain, "phys").items()
    }
    return OpticsTable(
        fiber_grades, connectors, splices, plain.get("sources") or {}, provenance, phys
    )


def _phy(entry, path: str, grades) -> dict:
    """One PHY's row: ``{"channel_il_max_db": {grade: dB > 0}}``."""
    if not isinstance(entry, dict):
        raise OpticsFileError(f"{path} must be an object {{channel_il_max_db}}", field=path)
    unknown = sorted(str(key) for key in set(entry) - {"channel_il_max_db"})
    if unknown:
        raise OpticsFileError(f"{path}: unknown field(s) {', '.join(unknown)}", field=path)
    limits = entry.get("channel_il_max_db")
    path = f"{path}.channel_il_max_db"
    if not isinstance(limits, dict) or not limits:
        raise OpticsFileError(f"{path} must map fiber grades to dB", field=path)
    out = {}
    for grade, value in limits.items():
        where = f"{path}.{grade}"
        if grade not in grades:
            raise OpticsFileError(
                f"{where}: unknown fiber grade {grade!r} (one of {', '.join(sorted(grades))})",
                field=where,
            )
        if _loss(value, where) <= 0:
            raise OpticsFileError(f"{where} must be greater than 0 dB", field=where)
        out[grade] = float(value)
    return {"channel_il_max_db": out}


_SECTIONS = ("fiber_grades", "connectors", "splices", "phys")


def read_optics(path: Path) -> OpticsTable:
    """Read and check an ``optics.yaml`` file (see :func:`optics_from_data`).

    Raises
    ------
    OpticsFileError
        Malformed YAML or a bad value; the message starts with the file name.
    """
    path = Path(path)
    try:
        data = load_yaml(path.read_text(encoding="utf-8"))
    except (DocumentError, yaml.YAMLError, UnicodeDecodeError) as exc:
        raise OpticsFileError(f"{path.name}: not readable YAML ({exc})") from None
    try:
        return optics_from_data(data)
    except OpticsFileError as exc:
        raise OpticsFileError(f"{path.name}: {exc}", field=exc.field) from None


@lru_cache(maxsize=1)
def seed_optics() -> OpticsTable:
    """The seed catalog's optics table, read once per process."""
    return read_optics(SEED_OPTICS)


__all__ = [
    "CONNECTOR_TYPES",
    "OPTICS_FILE",
    "OpticsFileError",
    "OpticsTable",
    "connector_type",
    "optics_from_data",
    "read_optics",
    "seed_optics",
]
