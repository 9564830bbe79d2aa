"""The generator matrix (issue 36 item 2): every catalog switch as leaf and spine with every
catalog GPU server, at every speed they share, 1/2/4/8 planes where the NIC allows, at 1:1
and 3:1; each cell builds through media, validation and the BOM or is refused naming the
physical fact and its source. The table: ``python -m tests.bench_matrix``."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.bench_matrix import (
    FACTS,
    PLANES,
    RATIOS,
    catalog_switches,
    gpu_servers,
    matrix,
    refusal_table,
    shapes_matrix,
)
from tests.conftest import untraced


@pytest.fixture(scope="module")
def cases(facts, request):
    """Every cell built once, untraced: a walk over 2,012 builds (see tests.conftest.untraced)."""
    with untraced(request.config):
        return matrix(facts)


def test_every_cell_is_present(facts, cases):
    switches = {model.slug for model in catalog_switches(facts)}
    servers = {model.slug for model in gpu_servers(facts)}
    assert {c.switch for c in cases} - {"*"} == switches
    assert {c.server for c in cases} == servers
    for server in servers:
        for planes in PLANES:
            for ratio in RATIOS:
                row = [
                    c
                    for c in cases
                    if (c.server, c.planes, c.oversubscription) == (server, planes, ratio)
                ]
                # one row per switch, or one row for the whole server when its NIC refuses
                assert len(row) in (1, len(switches)), (server, planes, ratio)
                if len(row) == 1:
                    assert row[0].switch == "*" and row[0].fact == "breakout"


def test_every_cell_builds_or_names_the_fact_and_its_source(cases):
    for case in cases:
        if case.status == "built":
            assert case.bom_lines > 0 and case.links > 0 and case.switches > 0, case
            assert not case.severities.get("error"), case
            continue
        assert case.status == "refused", case
        assert case.fact in FACTS, case
        assert case.reason and case.source, case
        if case.fact in ("breakout", "speed", "radix"):
            assert "no source in the catalog" not in case.source or "cage_groups" in case.source


def test_refusals_name_the_fact_in_their_words(cases):
    words = {
        "breakout": ("breakout", "cannot split"),
        "speed": ("cannot run",),
        "radix": ("downlinks", "ports"),
        "reach": ("reach",),
        "media": ("fits", "interoperates", "suits"),
        "unknown-ports": ("lists no data ports",),
    }
    for case in cases:
        if case.status == "refused" and case.fact in words:
            assert any(word in case.reason for word in words[case.fact]), case


def test_known_cells(cases):
    cell = {(c.server, c.switch, c.planes, c.oversubscription): c for c in cases}
    # NVIDIA's own pairs build at both ratios (H100 SuperPOD on QM9700; B300 on SN5600 in
    # two 400G planes, as the B300 Spectrum-X RA).
    for ratio in RATIOS:
        assert cell["DGX-H100", "QM9700", 1, ratio].status == "built"
        assert cell["DGX-B300", "SN5600", 2, ratio].status == "built"
    # An 800G switch without a listed 2 x 400G breakout cannot take 400G server links (no
    # split table of the Cisco N9364E-SG2-Q was found; the SG2-O's comes from its modules).
    sg2q = cell["DGX-H100", "N9364E-SG2-Q", 1, 1]
    assert (sg2q.status, sg2q.fact) == ("refused", "breakout")
    assert "no listed breakout" in sg2q.reason and "N9364E-SG2-Q" in sg2q.source
    # A switch whose split modes are now in the catalog is refused no more for its breakout:
    # the AIS800-32D (Edgecore's SONiC platform file lists 2 x 400G) and the DS5000 (Hedgehog's
    # switch profile) meet the next fact, a module for their cages.
    for switch in ("AIS800-32D", "DS5000", "7800R4-36PE"):
        assert cell["DGX-H100", switch, 1, 1].fact != "breakout", switch
    # Spectrum-6 lists 2 x 400G (NVIDIA's SONiC platform files of the SN6600-LD and
    # SN6810-LD): what stops them now is a module for their cages, not the breakout.
    for switch in ("SN6600", "SN6810-LD"):
        assert cell["DGX-H100", switch, 1, 1].fact == "media", switch
    # Air-cooled OSFP switches whose cages are now finned (IHS, inferred from their fans)
    # take the NDR twin-port modules: the Edgecore AIS800-64O builds with the H100.
    assert cell["DGX-H100", "AIS800-64O", 1, 1].status == "built"
    # ConnectX-8 runs 800G only as XDR InfiniBand: on an Ethernet leaf a refusal names the NIC.
    b300 = cell["DGX-B300", "SN5600", 1, 1]
    assert (b300.fact, b300.field) == ("speed", "planes") and "ConnectX-8" in b300.source
    # SN5610 lists 2 x 400G (its SONiC platform file): it now fares as the SN5600 does.
    sn5610, sn5600 = cell["DGX-H100", "SN5610", 1, 1], cell["DGX-H100", "SN5600", 1, 1]
    assert (sn5610.status, sn5610.fact) == (sn5600.status, sn5600.fact)
    # A 400G-only switch cannot run 800G server links.
    assert cell["DGX-B300", "QM9700", 1, 1].fact == "speed"
    # ConnectX-8 lists 2 x 400G only: four planes are refused by the NIC, naming its source.
    four = cell["DGX-B300", "*", 4, 1]
    assert four.fact == "breakout" and "compute_ports" in four.source


def test_200g_leaf_spine_between_quantum2_switches_builds(facts):
    # 400G servers, 200G uplinks on QM9700 (4 x 200G per twin-port cage): the picker runs the
    # two 200G links of one MPO on one straight fiber and rule 21 agrees (it used to refuse
    # them as "more links than legs").
    [cell] = [
        c
        for c in shapes_matrix(facts, switches=[facts.devices["QM9700"]])
        if (c.server, c.uplink_speed_gbps) == ("XE9680", 200)
    ]
    assert cell.status == "built", cell.reason


def test_refusal_table_lists_each_refusal(cases):
    table = refusal_table(cases)
    refused = sum(c.status == "refused" for c in cases)
    rows = [line for line in table.splitlines() if line.startswith("| ") and "---" not in line]
    assert len(rows) == refused + 1  # and the header
    counts = Counter(c.fact for c in cases if c.status == "refused")
    assert f"{sum(c.status == 'built' for c in cases)} built" in table
    assert all(f"{fact} {n}" in table for fact, n in counts.items())
