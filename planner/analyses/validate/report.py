"""The validator's report: grouped problems and the collector that groups them.

A :class:`Problem` stands for one code and distinct message over every element it affects;
the :class:`Collector` keeps the affected link and node indices as NumPy arrays while the
checks run and turns them into problems, ordered by severity, rule, code and size.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from planner.analyses.rules_catalog import RULES, SEVERITIES, rule_sort_key
from planner.domain.arrays import unique as unique_sorted
from planner.domain.fabric import Fabric
from planner.domain.names import link_name

MAX_IDS = 1000  # element ids listed per problem (``count`` has the total)


@dataclass
class Problem:
    """One finding, grouped over every element it affects.

    Attributes
    ----------
    code : str
        Stable identifier (:data:`planner.analyses.rules_catalog.RULES`).
    severity : str
        ``error`` (will not work), ``warning`` (cannot be verified, or works badly) or
        ``info``.
    message : str
        What is wrong, naming parts and devices.
    element_ids : list of str
        ``link:<i>`` and ``node:<name>``, at most :data:`MAX_IDS`.
    suggestion : str
        A way out, naming catalog parts that would fit where there are some.
    rule : str
        The catalog-facts compatibility rule number, or ``"fabric"``.
    count : int
        Elements affected in all (may exceed ``len(element_ids)``).
    example : str
        The first affected element, described (``dgx-001 port 1 -> leaf-su001-r1 port 1``).
    """

    code: str
    severity: str
    message: str
    element_ids: list[str]
    suggestion: str = ""
    rule: str = "fabric"
    count: int = 0
    example: str = ""

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class ValidationReport:
    """The problems of one fabric and what was checked."""

    problems: list[Problem]
    links_checked: int
    nodes_checked: int
    rules_run: list[str]
    counts_by_code: dict[str, int]  # affected elements per code
    counts_by_severity: dict[str, int]  # problems (grouped) per severity
    elapsed_s: float = 0.0
    power: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """No errors (warnings and infos allowed)."""
        return not self.counts_by_severity.get("error")

    def codes(self, severity: str | None = None) -> set[str]:
        return {p.code for p in self.problems if severity in (None, p.severity)}

    def rules(self, severity: str | None = None) -> set[str]:
        return {p.rule for p in self.problems if severity in (None, p.severity)}

    def by_code(self, code: str) -> list[Problem]:
        return [p for p in self.problems if p.code == code]

    def as_dict(self) -> dict:
        return {
            "problems": [p.as_dict() for p in self.problems],
            "summary": {
                "ok": self.ok,
                "links_checked": self.links_checked,
                "nodes_checked": self.nodes_checked,
                "rules_run": self.rules_run,
                "counts_by_code": self.counts_by_code,
                "counts_by_severity": self.counts_by_severity,
                "elapsed_s": round(self.elapsed_s, 3),
                "power": self.power,
            },
        }


class Collector:
    """Problems keyed by (code, severity, message); element indices kept as arrays.

    Parameters
    ----------
    fabric : Fabric
        The fabric whose links and nodes the indices refer to.

    Attributes
    ----------
    allowed : frozenset of str or None
        Codes the running check declares (set by the runner); adding another code raises
        ``ValueError``, so a check's declaration in the registry stays true.
    """

    def __init__(self, fabric: Fabric):
        self.fabric = fabric
        self.items: dict[tuple[str, str, str], dict] = {}
        self.allowed: frozenset[str] | None = None

    def add(
        self,
        code: str,
        message: str,
        *,
        severity: str | None = None,
        links=None,
        nodes=None,
        suggestion: str = "",
        example: str = "",
        ids=(),
    ) -> None:
        """Record ``code`` with ``message`` for the link and node indices given.

        Parameters
        ----------
        code : str
            A code of :data:`~planner.analyses.rules_catalog.RULES`.
        message : str
            The message; one problem per (code, severity, message).
        severity : str, optional
            Overrides the code's default severity.
        links, nodes : array_like of int, optional
            Affected link and node indices; an empty selection adds nothing.
        suggestion, example : str
            Kept from the first add that gives one.
        ids : iterable of str, optional
            Element ids outside the fabric's columns (``node:<name>`` of a device of the
            cluster's other networks, e.g. ``node:storage-array-01``), listed after the
            fabric's own.
        """
        if self.allowed is not None and code not in self.allowed:
            raise ValueError(f"a check reported {code!r}, a code it does not declare")
        severity = severity or RULES[code].severity
        links = None if links is None else np.atleast_1d(np.asarray(links, dtype=np.int64))
        nodes = None if nodes is None else np.atleast_1d(np.asarray(nodes, dtype=np.int64))
        ids = list(dict.fromkeys(str(i) for i in ids))
        given = [x for x in (links, nodes) if x is not None]
        if given and not any(x.size for x in given) and not ids:
            return  # an empty selection
        key = (code, severity, message)
        item = self.items.get(key)
        if item is None:
            if not example and links is not None and links.size:
                example = describe_link(self.fabric, int(links[0]))
            elif not example and nodes is not None and nodes.size:
                example = self.fabric.node_name[int(nodes[0])]
            elif not example and ids:
                example = ids[0].partition(":")[2]
            item = self.items[key] = {
                "links": [],
                "nodes": [],
                "ids": [],
                "suggestion": suggestion,
                "example": example,
            }
        if links is not None:
            item["links"].append(links)
        if nodes is not None:
            item["nodes"].append(nodes)
        seen = item.setdefault("seen_ids", set())  # a set: linear for 100k-link networks
        fresh = [i for i in ids if i not in seen]
        seen.update(fresh)
        item["ids"].extend(fresh)
        if suggestion and not item["suggestion"]:
            item["suggestion"] = suggestion

    def problems(self) -> list[Problem]:
        """The grouped problems: errors first, then by rule, code and elements affected."""
        out = []
        names = self.fabric.node_name
        for (code, severity, message), item in self.items.items():
            links = _distinct(item["links"], self.fabric.link_count)
            nodes = _distinct(item["nodes"], self.fabric.node_count)
            ids = [f"link:{int(i)}" for i in links[:MAX_IDS]]
            ids += [f"node:{names[int(i)]}" for i in nodes[: max(0, MAX_IDS - len(ids))]]
            ids += item["ids"][: max(0, MAX_IDS - len(ids))]
            out.append(
                Problem(
                    code=code,
                    severity=severity,
                    message=message,
                    element_ids=ids,
                    suggestion=item["suggestion"],
                    rule=RULES[code].rule,
                    count=int(links.size + nodes.size + len(item["ids"])),
                    example=item["example"],
                )
            )
        rank = {s: i for i, s in enumerate(SEVERITIES)}
        out.sort(key=lambda p: (rank[p.severity], rule_sort_key(p.rule), p.code, -p.count))
        return out


def _distinct(chunks: list[np.ndarray], size: int) -> np.ndarray:
    """Sorted distinct indices of ``chunks`` (a mask when they are valid indices: fast)."""
    if not chunks:
        return np.zeros(0, dtype=np.int64)
    values = np.concatenate(chunks)
    if values.size and values.min() >= 0 and values.max() < size:
        mask = np.zeros(size, dtype=bool)
        mask[values] = True
        return np.flatnonzero(mask)
    return unique_sorted(values)


def describe_link(fabric: Fabric, link: int) -> str:
    """A link for people: ``<a> <port> → <b> <port> (<length> m)``, its ends named by
    :mod:`planner.domain.names` (``gpu00001 1/1 → leaf-su001-r1 3/2 (5 m)``)."""
    a, b = int(fabric.link_a[link]), int(fabric.link_b[link])
    n = fabric.node_count
    if 0 <= a < n and 0 <= b < n:
        text = link_name(fabric, link)
    else:  # a hand-edited fabric whose link names a node it does not have
        text = f"link {link + 1:,} (an end is not in the design)"
    if fabric.link_length_m is not None:
        text += f" ({float(fabric.link_length_m[link]):g} m)"
    return text


__all__ = ["MAX_IDS", "Collector", "Problem", "ValidationReport", "describe_link"]
