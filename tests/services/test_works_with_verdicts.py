"""One converter, one verdict: every catalog pair judged by "works with" and by the link
check media selection and the validator use (issue 16 item 5).

"Works with" lists a part when the rules find no problem at all; the link check's verdict is
the same rule functions on the link end's cage (:func:`planner.domain.part_facts.end_cage`)
and the parts' facts from the design's catalog facts. Facts are built once; pairs loop in
memory.
"""

from __future__ import annotations

import pytest

from inventory.adapters import part_record
from inventory.library.compat import fiber_fits_optic, optics_interoperate, plug_fits_cage
from inventory.library.facts import cable_plugs_of, fiber_of, optic_of, plug_of
from inventory.library.works_with import Catalog, works_with
from inventory.models import CATEGORY_MODELS
from inventory.selectors import works_with as works_with_page
from planner.designs.adapters import catalog_facts
from planner.domain.part_facts import end_cage

pytestmark = pytest.mark.django_db


@pytest.fixture
def both(seed_catalog):
    """(the "works with" catalog from rows, the design domain's catalog facts)."""
    rows = [row for model in CATEGORY_MODELS.values() for row in model.objects.all()]
    aliases = {alias: row.slug for row in rows for alias in row.aliases or []}
    return Catalog([part_record(row) for row in rows], aliases), catalog_facts()


def _listed(catalog: Catalog, record: dict) -> dict[str, set[str]]:
    sections: dict[str, set[str]] = {}
    for section, _, slug, _ in works_with(record, catalog):
        sections.setdefault(section, set()).add(slug)
    return sections


def _link_cages(facts, slug: str) -> list:
    """The cages the link check gives a device's link ends, at each speed its groups run."""
    model = facts.devices[slug]
    speeds = {group.port_speed_gbps for group in model.port_groups} or {0}
    return [end_cage(facts, slug, speed or 0)[2] for speed in sorted(speeds)]


def _fits(plug, cages) -> bool:
    return any(not plug_fits_cage(plug, cage) for cage in cages)


@pytest.mark.no_cover  # a walk over many cases, untraced: see tests.conftest.untraced
def test_every_pair_gets_one_verdict(both):
    catalog, facts = both
    devices = catalog.of("switch", "server")
    modules, cables = catalog.of("transceiver"), catalog.of("cable")
    assert devices and modules and cables and catalog.of("fiber")
    listed = {r["slug"]: _listed(catalog, r) for r in catalog.all()}
    link_cages = {d["slug"]: _link_cages(facts, d["slug"]) for d in devices}
    mismatches = []
    checked = 0

    def same(pair, listed_here: bool, link_ok: bool) -> None:
        nonlocal checked
        checked += 1
        if listed_here != link_ok:
            mismatches.append(f"{pair}: works with {listed_here}, link check {link_ok}")

    for device in devices:
        slug, cages = device["slug"], link_cages[device["slug"]]
        for module in modules:
            ok = _fits(plug_of(facts.parts[module["slug"]]), cages)
            same((slug, module["slug"]), module["slug"] in listed[slug].get("Transceivers", ()), ok)
            same((module["slug"], slug), slug in listed[module["slug"]].get("Cages", ()), ok)
        for cable in cables:
            head, leg = cable_plugs_of(facts.parts[cable["slug"]])
            in_cable = listed[cable["slug"]]
            same(
                (cable["slug"], "A", slug),
                slug in in_cable.get("A end (head) fits", ()),
                _fits(head, cages),
            )
            same(
                (cable["slug"], "B", slug),
                slug in in_cable.get("B end (legs) fit", ()),
                _fits(leg, cages),
            )
    for module in modules:
        optic = optic_of(facts.parts[module["slug"]])
        for other in modules:
            if other["slug"] == module["slug"]:
                continue
            ok = not optics_interoperate(optic, optic_of(facts.parts[other["slug"]]))
            same(
                (module["slug"], other["slug"]),
                other["slug"] in listed[module["slug"]].get("Peer modules", ()),
                ok,
            )
        for fiber in catalog.of("fiber"):
            ok = not fiber_fits_optic(fiber_of(facts.parts[fiber["slug"]]), optic)
            same(
                (module["slug"], fiber["slug"]),
                fiber["slug"] in listed[module["slug"]].get("Fibers", ()),
                ok,
            )
            same(
                (fiber["slug"], module["slug"]),
                module["slug"] in listed[fiber["slug"]].get("Transceivers", ()),
                ok,
            )
    assert checked > 10_000
    assert not mismatches, "\n".join(mismatches[:20])


def test_the_page_reads_the_same_lists(both):
    """The selector behind the page and the API is the pure function over row records."""
    catalog, _ = both
    from inventory.models import SwitchModel

    part = SwitchModel.objects.get(slug="QM9700")
    page = {
        section: [p.slug for p, _ in entries]
        for section, entries in works_with_page(part).sections.items()
    }
    expected: dict[str, list[str]] = {}
    for section, _, slug, _ in works_with(part_record(part), catalog):
        expected.setdefault(section, []).append(slug)
    assert page == expected
    assert page["Transceivers"] and page["Peers"]
