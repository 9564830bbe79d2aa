"""The registry of checks: each family module registers its checks here, keyed by code.

A check is a function and the codes of :data:`~planner.analyses.rules_catalog.RULES` it
owns. The runner (:mod:`.runner`) asks the registry for the checks of each stage, in their
``order``; it knows no check by name. Adding a rule is a catalog row plus a decorated function
in its family module::

    @register(stage="group", order=270, codes=("new-code",), media=("optics",))
    def new_rule(ctx, g):
        if ...:
            yield Finding("new-code", "what is wrong")

Stages, in the order the runner runs them, and the signature of their checks:

- ``links``: ``check(ctx)``, once, before the link groups (fabric-wide media notes);
- ``group``: ``check(ctx, g) -> iterable of Finding``, once per link group; ``media`` names
  the groups' media kinds (:data:`MEDIA_KINDS`) the check runs for (``None``: every group);
- ``chunk``: ``check(ctx, g, links)``, per chunk of a group's links (per-link NumPy checks
  such as lengths), adding to ``ctx.out``;
- ``module``: ``check(ctx)``, per module and cable id (only for fabrics with media);
- ``fabric``: ``check(ctx)``, the wiring of the whole fabric.

Every code is owned by exactly one check (``codes``); a check that also reports a code owned
by another lists it in ``shares``. The collector refuses a code its check did not declare.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from planner.analyses.rules_catalog import RULES

STAGES = ("links", "group", "chunk", "module", "fabric")
MEDIA_KINDS = (
    "none",  # the fabric has no media columns
    "manager",  # a management link (only the switch-end module is checked)
    "missing",  # no module, cable or fiber
    "unknown-part",  # a part that is not in the catalog
    "cable",  # a cable assembly (DAC, ACC, AOC, breakouts)
    "optics",  # two modules, usually over a fiber
)


@dataclass(frozen=True)
class Check:
    """One registered check.

    Attributes
    ----------
    name : str
        ``<module>.<function>``, unique.
    stage : str
        One of :data:`STAGES`.
    order : int
        Position within the stage (lower first); it keeps the report's order stable.
    codes : frozenset of str
        The codes this check owns.
    shares : frozenset of str
        Codes owned by another check that this one reports too.
    media : frozenset of str or None
        ``group`` and ``chunk`` stages: the media kinds it runs for; ``None`` for all.
    run : callable
        The check itself.
    """

    name: str
    stage: str
    order: int
    codes: frozenset[str]
    shares: frozenset[str]
    media: frozenset[str] | None
    run: Callable

    @property
    def reports(self) -> frozenset[str]:
        """Every code the check may report."""
        return self.codes | self.shares


_CHECKS: dict[str, Check] = {}


def register(
    *,
    stage: str,
    order: int,
    codes: Iterable[str] = (),
    shares: Iterable[str] = (),
    media: Iterable[str] | None = None,
) -> Callable[[Callable], Callable]:
    """Register the decorated function as a check; the function is returned unchanged.

    Parameters
    ----------
    stage : str
        One of :data:`STAGES`.
    order : int
        Position within the stage.
    codes : iterable of str
        Codes of :data:`~planner.analyses.rules_catalog.RULES` the check owns.
    shares : iterable of str
        Codes owned by another check that it reports too.
    media : iterable of str, optional
        Media kinds (:data:`MEDIA_KINDS`) of the groups it runs for; default all.

    Raises
    ------
    ValueError
        An unknown stage, code or media kind, a name registered twice, or a code that
        another check already owns.
    """

    def decorate(function: Callable) -> Callable:
        add(
            Check(
                name=f"{function.__module__.rsplit('.', 1)[-1]}.{function.__qualname__}",
                stage=stage,
                order=order,
                codes=frozenset(codes),
                shares=frozenset(shares),
                media=None if media is None else frozenset(media),
                run=function,
            )
        )
        return function

    return decorate


def add(check: Check) -> None:
    """Add ``check`` to the registry (see :func:`register`)."""
    if check.stage not in STAGES:
        raise ValueError(f"{check.name}: unknown stage {check.stage!r}")
    unknown = sorted(check.reports - RULES.keys())
    if unknown:
        raise ValueError(f"{check.name}: codes not in the rule catalog: {unknown}")
    if check.media is not None and not check.media <= set(MEDIA_KINDS):
        raise ValueError(f"{check.name}: unknown media kinds {sorted(check.media)}")
    if check.name in _CHECKS:
        raise ValueError(f"{check.name} is registered already")
    for other in _CHECKS.values():
        taken = sorted(check.codes & other.codes)
        if taken:
            raise ValueError(f"{check.name}: {taken} owned by {other.name}")
    _CHECKS[check.name] = check


def unregister(check: str | Callable) -> Check:
    """Remove a check, given by name or by its function, and return it.

    Raises
    ------
    KeyError
        No such check is registered.
    """
    if not isinstance(check, str):
        check = next((c.name for c in _CHECKS.values() if c.run is check), repr(check))
    return _CHECKS.pop(check)


def checks(stage: str | None = None) -> list[Check]:
    """The registered checks of ``stage`` (all stages if ``None``), in running order."""
    found = [c for c in _CHECKS.values() if stage in (None, c.stage)]
    return sorted(found, key=lambda c: (STAGES.index(c.stage), c.order, c.name))


def owners() -> dict[str, list[str]]:
    """For each code of the rule catalog, the names of the checks that own it."""
    out: dict[str, list[str]] = {code: [] for code in RULES}
    for check in checks():
        for code in sorted(check.codes):
            out[code].append(check.name)
    return out


__all__ = ["MEDIA_KINDS", "STAGES", "Check", "add", "checks", "owners", "register", "unregister"]
