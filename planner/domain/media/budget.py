"""Media ``auto`` closes the optical budget, not just the reach.

An optics candidate's reach becomes the shorter of its rated reach and its *loss reach*: the
longest fibre whose worst-case loss, with the mated pairs the tier's cabling puts between the
two modules, stays within the channel limit of its PHY on that fibre grade
(:mod:`planner.domain.physical.budget`). A candidate whose connections alone exceed the limit
is rejected with the reason.

Media are chosen before the structured plan exists (the plan needs the media), so the
connections are the tier's cabling as the structured plan will count them
(:mod:`planner.domain.physical.structured`): point to point none (IEEE channels start at the
MDI); through patch panels one mated MPO pair per panel, two panels, and with LC optics
through cassettes one LC pair more per panel (a harness plugs its LC legs into the modules).
The fibre is taken as the run; the validator then checks every link on the real plan
(cords + trunk). Point to point the loss reach is hundreds of metres on multimode and
kilometres on single-mode, so the rated reach still decides. A candidate whose limit is
unknown keeps its rated reach (the validator reports its budget as not computed).
"""

from __future__ import annotations

from dataclasses import replace

from planner.domain.media.candidates import Candidate
from planner.domain.physical.budget import LinkTerms, link_terms
from planner.domain.physical.optics_tables import Tables, connector_family
from planner.domain.physical.structured import tier_options


class BudgetCheck:
    """Loss reach of optics candidates under a design's cabling; part terms cached per run.

    Parameters
    ----------
    facts : CatalogFacts
        The catalog.
    tables : Tables
        Attenuation and connector figures
        (:func:`~planner.domain.physical.optics_tables.tables_for`).
    cabling : dict, optional
        The spec's ``cabling`` block as a document (``tier -> "point-to-point" | {...}``).
    """

    def __init__(self, facts, tables: Tables, cabling: dict | None = None):
        self.facts, self.tables, self.cabling = facts, tables, cabling or {}
        self._terms: dict[tuple[str, str, str], LinkTerms] = {}

    def terms(self, cand: Candidate) -> LinkTerms:
        key = (cand.a, cand.b, cand.cable)
        if key not in self._terms:
            parts = self.facts.parts
            self._terms[key] = link_terms(
                parts[cand.a], parts[cand.b], parts[cand.cable], self.tables
            )
        return self._terms[key]

    def connections(self, tier: str, cand: Candidate) -> tuple[int, int, int]:
        """(MPO pairs, LC pairs, splices) between the two modules of ``cand`` on ``tier``."""
        options = tier_options(self.cabling, tier)
        if options["type"] != "patch-panel":
            return (0, 0, 0)
        parts = self.facts.parts
        connector = parts[cand.a].get("connector") or parts[cand.b].get("connector")
        lc = connector_family(connector) == "lc" and options.get("lc_termination") == "cassette"
        return (2, 2 if lc else 0, 0)

    def apply(self, candidates: list[Candidate], tier: str) -> tuple[list[Candidate], str]:
        """The candidates with their reach capped by the loss budget, and why any were dropped
        (``""`` when none was)."""
        out, dropped = [], []
        for cand in candidates:
            if cand.kind != "optics":
                out.append(cand)
                continue
            terms = self.terms(cand)
            if not terms.known:
                out.append(cand)
                continue
            mpo, lc, splices = self.connections(tier, cand)
            reach_m = terms.budget_reach_m(mpo, lc, splices)
            connections = _connections(mpo, lc, splices)
            if reach_m <= 0:
                fixed = terms.fixed_loss_db(mpo, lc, splices, "worst")
                dropped.append(
                    f"{cand.label}: the worst-case loss of {connections} alone "
                    f"({fixed:.2f} dB) exceeds the {terms.limit_db:g} dB channel limit of "
                    f"{terms.label}"
                )
                continue
            if reach_m < cand.reach_m:
                note = (
                    f"loss-limited to {reach_m:.0f} m: {terms.limit_db:g} dB channel limit of "
                    f"{terms.label} with {connections}, worst case"
                )
                cand = replace(cand, reach_m=reach_m, limit_note=note)
            out.append(cand)
        reason = ""
        if dropped:
            reason = "rejected for the optical budget: " + "; ".join(dropped[:2])
            if len(dropped) > 2:
                reason += f"; {len(dropped) - 2} other(s)"
        return out, reason


def _connections(mpo: int, lc: int, splices: int) -> str:
    bits = [f"{mpo} mated MPO pair(s)", f"{lc} mated LC pair(s)", f"{splices} splice(s)"]
    kept = [bit for bit, n in zip(bits, (mpo, lc, splices), strict=True) if n]
    return ", ".join(kept) or "no mated pair"


__all__ = ["BudgetCheck"]
