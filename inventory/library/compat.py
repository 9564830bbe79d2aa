"""Link-compatibility rules between cages, plugs (module or cable ends), and fibers.

These functions are the single authority on "does this fit?": the catalog's "works with"
lists and the design link validator both call them. Each returns a list of
:class:`~inventory.library.rules.Violation`; an empty list means compatible. Unknown values
(``None``) never cause a violation: a rule is only applied when both sides state the fact.

Rule numbers in messages refer to the compatibility rules of the research notes
(catalog-facts.md), e.g. rule 1 = finned (IHS) vs flat-top (RHS) OSFP.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from inventory.library.rules import Violation, parse_breakout

#: Cage form factor -> plug form factors it accepts (rule 14: host cages take older QSFP parts
#: and downshift; QSFP-DD cages take QSFP; QSFP-DD plugs never fit QSFP cages).
ACCEPTS = {
    "OSFP": {"OSFP"},
    # The 1.6T OSFP cage takes 800G OSFP plugs; lane rule 13 still decides whether they run.
    "OSFP224": {"OSFP224", "OSFP"},
    "OSFP-XD": {"OSFP-XD"},
    "QSFP112": {"QSFP112", "QSFP56", "QSFP28"},
    "QSFP56": {"QSFP56", "QSFP28"},
    "QSFP28": {"QSFP28"},
    "QSFP-DD": {"QSFP-DD", "QSFP56", "QSFP28"},
    "QSFP-DD800": {"QSFP-DD800", "QSFP-DD", "QSFP112", "QSFP56", "QSFP28"},
    "SFP28": {"SFP28"},
    "SFP56": {"SFP56", "SFP28"},
    "SFP": {"SFP"},
    # A BASE-T jack takes a twisted-pair cord only: no module plugs into it (see plug_fits_cage).
    "RJ45": {"RJ45"},
}
TOP_NAMES = {"ihs": "finned (IHS)", "rhs": "flat-top (RHS)"}


@dataclass(frozen=True)
class Cage:
    """A group of identical cages on a switch (``owner="switch"``) or host (``"host"``)."""

    owner: str
    form_factor: str | None
    top: str | None = None
    ports_per_cage: int = 1
    port_speed_gbps: int | None = None
    lanes_per_port: int | None = None
    lane_rate_gbps: int | None = None
    max_module_power_w: float | None = None
    protocols: frozenset = frozenset()
    speeds_gbps: tuple = ()
    breakouts: tuple = ()
    accepts: frozenset | None = None  # overrides ACCEPTS (e.g. BlueField-3: QSFP112 only)
    limits: tuple = ()  # NIC limits: ({"code": "no-single-port-speed", ...},)
    label: str = ""

    def __hash__(self) -> int:
        """Hashable though ``limits`` holds dicts (by their text), so that every cage's
        verdicts are memoised (:func:`plug_fits_cage`); equal cages hash alike.

        Computed once per cage and kept (a memo lookup hashes the cage each time: the "works
        with" lists ask about 500,000 times for the seed catalog); not pickled, since string
        hashes differ between processes.

        >>> cage = Cage("switch", "OSFP", limits=({"code": "x"},))
        >>> hash(cage) == hash(Cage("switch", "OSFP", limits=({"code": "x"},))) == hash(cage)
        True
        >>> import pickle; "_hash" in pickle.loads(pickle.dumps(cage)).__dict__
        False
        """
        try:
            return self.__dict__["_hash"]
        except KeyError:
            pass
        fields = (getattr(self, name) for name in self.__dataclass_fields__ if name != "limits")
        value = hash((*fields, repr(self.limits)))
        object.__setattr__(self, "_hash", value)  # frozen: set past the dataclass's guard
        return value

    def __getstate__(self) -> dict:
        return {name: value for name, value in self.__dict__.items() if name != "_hash"}

    @property
    def total_gbps(self) -> int | None:
        if self.port_speed_gbps is None:
            return None
        return self.port_speed_gbps * (self.ports_per_cage or 1)


@dataclass(frozen=True)
class Plug:
    """What goes into a cage: a transceiver, or one end of a cable (head or breakout leg)."""

    kind: str  # "transceiver" | "cable"
    form_factor: str | None
    top: str | None = None
    ports: int = 1  # 2 for a twin-port module or twin-port cable head
    speed_gbps: int | None = None  # the whole plug
    lanes: int | None = None
    lane_rate_gbps: int | None = None
    power_max_w: float | None = None
    protocols: frozenset = frozenset()
    side: str | None = None  # "switch" | "host" | "any"
    label: str = ""


@dataclass(frozen=True)
class Optic:
    """The optical face of a transceiver, for end-to-end checks across a fiber."""

    media: str | None
    pmd: str | None = None
    lane_rate_gbps: int | None = None
    port_speed_gbps: int | None = None
    breakouts: tuple = ()
    connector: str | None = None
    wavelength_nm: float | None = None
    protocols: frozenset = frozenset()
    fiber_grades: tuple = ()
    label: str = ""


@dataclass(frozen=True)
class Fiber:
    fiber_type: str | None
    connector_a: str | None = None
    connector_b: str | None = None
    fiber_grade: str | None = None
    topology: str | None = None
    label: str = ""


@dataclass
class _Collector:
    problems: list = field(default_factory=list)

    def add(self, code, message, **params):
        self.problems.append(Violation(code, message, params=params))

    def unknown(self, code, message):
        self.problems.append(Violation(code, message, severity="warning"))


def _known(*values) -> bool:
    return all(value not in (None, "", "none") for value in values)


def plug_fits_cage(plug: Plug, cage: Cage) -> list[Violation]:
    """Can ``plug`` be inserted in ``cage`` and run?

    Examples
    --------
    >>> switch = Cage("switch", "OSFP", "ihs", 2, 400, 4, 100, 17, frozenset({"infiniband"}))
    >>> nic_module = Plug("transceiver", "OSFP", "rhs", 1, 400, 4, 100, 9, side="host")
    >>> [v.code for v in plug_fits_cage(nic_module, switch)]
    ['top-mismatch', 'host-part-in-switch', 'port-count-mismatch']
    >>> [(v.code, v.severity) for v in plug_fits_cage(Plug("cable", None, ports=2), switch)]
    [('form-factor-unknown', 'warning'), ('lane-rate-unknown', 'warning')]
    >>> rj45 = Cage("switch", "RJ45", port_speed_gbps=1)
    >>> [v.code for v in plug_fits_cage(Plug("transceiver", "RJ45", speed_gbps=1), rj45)]
    ['rj45-no-module']
    >>> plug_fits_cage(Plug("cable", "RJ45", speed_gbps=1), rj45)
    []

    Facts that cannot be hashed (a list where a tuple belongs) are judged afresh, alike:

    >>> from dataclasses import replace
    >>> odd = replace(switch, breakouts=([2, 200],))
    >>> [v.code for v in plug_fits_cage(nic_module, odd)]
    ['top-mismatch', 'host-part-in-switch', 'port-count-mismatch']
    """
    try:
        return list(_plug_fits_cage_cached(plug, cage))
    except TypeError:  # an unhashable fact: judge it afresh
        return _plug_fits_cage(plug, cage)


@functools.lru_cache(maxsize=65_536)
def _plug_fits_cage_cached(plug: Plug, cage: Cage) -> tuple[Violation, ...]:
    """:func:`plug_fits_cage` of hashable facts, once per pair: a catalog's "works with" lists
    judge the same few hundred plugs against the same cages hundreds of thousands of times."""
    return tuple(_plug_fits_cage(plug, cage))


def _plug_fits_cage(plug: Plug, cage: Cage) -> list[Violation]:
    """Violations of a plug in a cage: form factor, top, lanes, speed, power, owner.

    Long because: one check after another on the same plug and cage, each adding to one collector;
    read top to bottom they are the compatibility rule.
    """
    out = _Collector()
    if not _known(plug.form_factor, cage.form_factor):
        out.unknown("form-factor-unknown", "The form factor of the plug or the cage is unknown.")
    elif plug.form_factor.startswith("OSFP") and not _known(plug.top, cage.top):
        out.unknown(
            "top-unknown",
            "Whether the OSFP plug or cage is finned (IHS) or flat-top (RHS) is unknown.",
        )
    base_t = cage.form_factor == "RJ45"  # twisted pair: no lanes to match
    if (
        not _known(plug.lane_rate_gbps, cage.lane_rate_gbps)
        and cage.owner == "switch"
        and not base_t
    ):
        out.unknown("lane-rate-unknown", "The lane rate of the plug or the cage is unknown.")
    if _known(plug.form_factor, cage.form_factor):
        accepted = cage.accepts or ACCEPTS.get(cage.form_factor, {cage.form_factor})
        if plug.form_factor not in accepted:
            out.add(
                "form-factor-mismatch",
                f"A {plug.form_factor} plug does not fit a {cage.form_factor} cage.",
                plug=plug.form_factor,
                cage=cage.form_factor,
            )
    if base_t and plug.kind == "transceiver":
        out.add(
            "rj45-no-module",
            "An RJ45 (BASE-T) port takes a copper twisted-pair cord, not a pluggable module.",
        )
    if _known(plug.top, cage.top) and plug.top != cage.top:
        out.add(
            "top-mismatch",
            f"A {TOP_NAMES.get(plug.top, plug.top)} plug does not fit a "
            f"{TOP_NAMES.get(cage.top, cage.top)} cage (OSFP and OSFP-RHS are mechanically "
            "different, rules 1-2).",
            plug=plug.top,
            cage=cage.top,
        )
    if plug.side == "host" and cage.owner == "switch" and plug.kind == "transceiver":
        out.add(
            "host-part-in-switch",
            "This module is for adapters and DPUs only; it is not "
            "for use in switch cages (rule 4).",
        )
    if plug.side == "switch" and cage.owner == "host" and plug.kind == "transceiver":
        out.add("switch-part-in-host", "This module is for switch cages only.")
    if plug.ports == 2 and cage.ports_per_cage == 1 and cage.port_speed_gbps:
        if plug.speed_gbps and plug.speed_gbps != cage.port_speed_gbps:
            out.add("port-count-mismatch", "A twin-port plug needs a twin-port cage.")
        elif cage.breakouts and f"2x{(plug.speed_gbps or 0) // 2}G" not in cage.breakouts:
            out.add(
                "port-count-mismatch",
                "The cage does not list the 2-way split this twin-port plug needs (rule 21).",
            )
    elif plug.ports == 1 and cage.ports_per_cage == 2:
        out.add(
            "port-count-mismatch",
            "Single-port plugs cannot be used in twin-port cages (rule 4); use a twin-port "
            "module or a twin-port cable head.",
        )
    if (
        _known(plug.lane_rate_gbps, cage.lane_rate_gbps)
        and plug.lane_rate_gbps != cage.lane_rate_gbps
    ):
        downshift = cage.owner == "host" and plug.lane_rate_gbps < cage.lane_rate_gbps
        if not downshift:
            out.add(
                "lane-rate-mismatch",
                f"{plug.lane_rate_gbps}G lanes cannot run in a cage "
                f"with {cage.lane_rate_gbps}G lanes (rule 13: no downshift between 200G, "
                "100G and 50G per lane).",
                plug=plug.lane_rate_gbps,
                cage=cage.lane_rate_gbps,
            )
    if _known(plug.speed_gbps, cage.total_gbps) and plug.speed_gbps > cage.total_gbps:
        out.add(
            "speed-above-cage",
            f"A {plug.speed_gbps}G plug is faster than the {cage.total_gbps}G cage.",
        )
    if (
        _known(plug.power_max_w, cage.max_module_power_w)
        and plug.power_max_w > cage.max_module_power_w
    ):
        out.add(
            "module-power-over-cage",
            f"The plug draws up to {plug.power_max_w:g} W; the cage "
            f"is rated for {cage.max_module_power_w:g} W (rule 19).",
            plug_w=plug.power_max_w,
            cage_w=cage.max_module_power_w,
        )
    if plug.protocols and cage.protocols and not (plug.protocols & cage.protocols):
        out.add(
            "protocol-mismatch",
            f"The plug speaks {', '.join(sorted(plug.protocols))}; the "
            f"port speaks {', '.join(sorted(cage.protocols))} (rule 17).",
        )
    for limit in cage.limits:
        if limit.get("code") != "no-single-port-speed" or not plug.speed_gbps:
            continue
        protocol = limit.get("protocol")
        only_that_protocol = protocol and plug.protocols and plug.protocols <= {protocol}
        if (
            plug.ports == 1
            and plug.speed_gbps >= (limit.get("speed_gbps") or 0)
            and only_that_protocol
        ):
            out.add(
                "nic-limit",
                limit.get("message")
                or "The NIC does not support this speed on a single port (rule 18).",
            )
    return out.problems


PMD_FAMILY = re.compile(r"(SR|VR|DR|FR|LR|ER|ZR)", re.IGNORECASE)


def pmd_family(pmd: str | None) -> str | None:
    """The reach class of a PMD name: ``2xDR4`` -> ``DR``.

    Examples
    --------
    >>> pmd_family("2xSR4"), pmd_family("DR8"), pmd_family(None)
    ('SR', 'DR', None)
    """
    if not pmd:
        return None
    match = PMD_FAMILY.search(pmd)
    return match.group(1).upper() if match else None


def _port_speeds(optic: Optic) -> set[int]:
    speeds = {optic.port_speed_gbps} if optic.port_speed_gbps else set()
    for text in optic.breakouts:
        try:
            speeds.add(parse_breakout(text)[1])
        except ValueError:
            continue
    return speeds


def optics_interoperate(a: Optic, b: Optic) -> list[Violation]:
    """Can optic ``a`` talk to optic ``b`` over a fiber (end to end)?

    Examples
    --------
    >>> sr = Optic("mmf", "2xSR4", 100, 400, ("2x400G",), "mpo12-apc")
    >>> dr = Optic("smf", "DR4", 100, 400, (), "mpo12-apc")
    >>> [v.code for v in optics_interoperate(sr, dr)]
    ['media-mismatch', 'pmd-mismatch']
    """
    out = _Collector()
    if not _known(a.media, b.media):
        out.unknown("media-unknown", "The media of one of the modules is unknown.")
    if not _known(a.lane_rate_gbps, b.lane_rate_gbps):
        out.unknown("lane-rate-unknown", "The lane rate of one of the modules is unknown.")
    if _known(a.media, b.media) and a.media != b.media:
        out.add(
            "media-mismatch",
            f"{a.media.upper()} optics do not pair with {b.media.upper()} optics (rule 9).",
        )
    fa, fb = pmd_family(a.pmd), pmd_family(b.pmd)
    if fa and fb and fa != fb:
        out.add(
            "pmd-mismatch", f"{a.pmd} only pairs with another {fa} module, not {b.pmd} (rule 9)."
        )
    if _known(a.lane_rate_gbps, b.lane_rate_gbps) and a.lane_rate_gbps != b.lane_rate_gbps:
        out.add(
            "lane-rate-mismatch",
            f"{a.lane_rate_gbps}G lanes do not link to {b.lane_rate_gbps}G lanes (rule 13).",
        )
    speeds_a, speeds_b = _port_speeds(a), _port_speeds(b)
    if speeds_a and speeds_b and not (speeds_a & speeds_b):
        out.add(
            "speed-mismatch",
            f"No common port speed ({sorted(speeds_a)} vs {sorted(speeds_b)} Gb/s).",
        )
    if _known(a.connector, b.connector) and a.connector != b.connector:
        out.add(
            "connector-mismatch",
            f"{a.connector} does not mate with {b.connector} "
            "(rules 10 and 24: APC vs UPC, MPO-12 vs MPO-16 vs LC).",
        )
    if _known(a.wavelength_nm, b.wavelength_nm) and abs(a.wavelength_nm - b.wavelength_nm) > 30:
        out.add(
            "wavelength-mismatch",
            f"{a.wavelength_nm:g} nm and {b.wavelength_nm:g} nm optics do not pair.",
        )
    if a.protocols and b.protocols and not (a.protocols & b.protocols):
        out.add("protocol-mismatch", "The two modules share no protocol (rule 17).")
    return out.problems


def fiber_fits_optic(fiber: Fiber, optic: Optic) -> list[Violation]:
    """Does ``fiber`` plug into ``optic`` (media and connector)?

    Examples
    --------
    >>> [v.code for v in fiber_fits_optic(Fiber("smf", "mpo12-apc", "mpo12-apc"),
    ...                                   Optic("mmf", connector="mpo12-apc"))]
    ['fiber-media-mismatch']
    """
    out = _Collector()
    if not _known(fiber.fiber_type, optic.media, fiber.connector_a, optic.connector):
        out.unknown("fiber-unknown", "Fiber type or connector of the fiber or module is unknown.")
    if _known(fiber.fiber_type, optic.media) and fiber.fiber_type != optic.media:
        out.add(
            "fiber-media-mismatch",
            f"A {fiber.fiber_type.upper()} fiber does not suit "
            f"{optic.media.upper()} optics (rule 9).",
        )
    if _known(fiber.connector_a, optic.connector) and optic.connector not in {
        fiber.connector_a,
        fiber.connector_b,
    }:
        out.add(
            "connector-mismatch",
            f"The fiber ends in {fiber.connector_a}; the module takes "
            f"{optic.connector} (rules 10 and 24).",
        )
    if (
        _known(fiber.fiber_grade)
        and optic.fiber_grades
        and fiber.fiber_grade not in optic.fiber_grades
    ):
        out.add(
            "fiber-grade-mismatch",
            f"{fiber.fiber_grade} is not a fiber grade the module "
            f"lists ({', '.join(optic.fiber_grades)}).",
        )
    return out.problems
