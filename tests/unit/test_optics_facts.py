"""Optics facts of the catalog (issue 19): IEEE channel limits, the optics reference table,
refusal of bad facts, and rules 25-26 judged on them.

Anchors are published figures, cited where they are used (``/work/shared/reference/
next-wave.md`` sections 1.1-1.3 give them with their URLs).
"""

from __future__ import annotations

import pytest

from inventory.library.facts import OPTICS_FACT_KEYS
from inventory.library.optics import OpticsFileError, optics_from_data, seed_optics
from inventory.library.rules import check_part
from tests.unit.test_validate_rules import rule_problems, two_switches, with_parts

#: Maximum channel insertion loss (dB) per fiber grade of each IEEE PHY, next-wave.md 1.1:
#: 400GBASE-SR8 and 800GBASE-DR8 from TIA FOTC's application pages (primary),
#: https://www.tiafotc.org/ieee-802-3-ethernet-standards-update/multimode-standards-update/400gbase-sr8/
#: https://www.tiafotc.org/ieee-802-3-ethernet-standards-update/singlemode-standards-update/800gbase-dr8/
#: (DR8: the limit holds on OS2, 500 m, and OS1a, 250 m); 400GBASE-DR4 from the 800G MSA
#: comparison table (secondary, https://wavesplitter.jp/index.php/blog/800g-fr8nobo-chang-gou-cheng);
#: 400GBASE-FR4 inferred there from a datasheet's Tx avg min - Rx avg min.
TIA_FOTC = {
    "400GBASE-SR8": {"OM3": 1.8, "OM4": 1.9},
    "800GBASE-DR8": {"OS2": 3.0, "OS1a": 3.0},
    "400GBASE-DR4": {"OS2": 3.0},
    "400GBASE-FR4": {"OS2": 4.0},
}


def _transceivers(facts):
    return {
        slug: part
        for slug, part in facts.parts.items()
        if part["category"] == "transceiver" and slug == part["slug"]
    }


def _engine_phy(phy: str) -> str:
    """The PHY of one engine of a twin-port module: ``2x400GBASE-DR4`` -> ``400GBASE-DR4``."""
    return phy.split("x", 1)[1] if phy[:2] in ("2x", "4x", "8x") else phy


def test_channel_limits_per_phy_equal_the_tia_fotc_table(facts):
    seen = set()
    for slug, part in _transceivers(facts).items():
        engine = _engine_phy(part["phy"] or "")
        limits = part["channel_il_max_db"]
        if engine not in TIA_FOTC:
            continue
        if limits is None:
            # only NVIDIA's 100 m DR4 parts leave the IEEE limit out (their reach is not IEEE's)
            assert part["reach_m"] == 100, slug
            continue
        assert limits == {g: TIA_FOTC[engine][g] for g in limits}, slug
        seen.add(engine)
    assert seen == set(TIA_FOTC)


def test_every_channel_limit_has_a_phy_and_a_graded_source(facts):
    parts = _transceivers(facts)
    limited = {slug: p for slug, p in parts.items() if p["channel_il_max_db"]}
    assert len(limited) >= 15
    for slug, part in limited.items():
        assert part["phy"], slug
        record = part["provenance"]["channel_il_max_db"]
        assert record["grade"] in {"datasheet", "secondary", "inferred"}, slug
        assert record.get("note"), slug


def test_fr4_limit_is_tx_minus_rx_of_the_edgecore_sheet(facts):
    """next-wave 1.2: ET7502-FR4 Tx avg min -3.3 dBm, Rx avg min -7.3 dBm: 4.0 dB."""
    fr4 = facts.parts["ET7502-FR4"]
    assert fr4["tx_avg_min_dbm"] - fr4["rx_avg_min_dbm"] == pytest.approx(
        fr4["channel_il_max_db"]["OS2"]
    )


def test_nvidia_sr4_reach_assumes_two_patch_panels(facts):
    """MMA4Z00-NS400-T: 50 m on OM4 'assumes two optical patch panels in the link'
    (https://docs.nvidia.com/networking/display/MMA4Z00NS400T)."""
    part = facts.parts["MMA4Z00-NS400-T"]
    assert part["rated_with_patch_panels"] == 2 and part["reach_m"] == 50
    source = part["provenance"]["rated_with_patch_panels"]["source"]
    assert (
        part["sources"][source]["url"] == "https://docs.nvidia.com/networking/display/MMA4Z00NS400T"
    )
    assert facts.parts["MMA4Z00-NS"]["rated_with_patch_panels"] == 2
    assert facts.parts["ET7502-FR4"]["rated_with_patch_panels"] == 0  # not stated


def test_every_transceiver_record_has_the_optics_keys(facts):
    for slug, part in _transceivers(facts).items():
        assert set(OPTICS_FACT_KEYS) <= set(part), slug
    assert facts.parts["FS-800G-OSFP-DR8-LPO"]["linear"] is True
    assert facts.parts["MMS4X00-NM"]["linear"] is False
    assert facts.parts["MMA4Z00-NS"]["reach_m_by_grade"] == {"OM3": 30, "OM4": 50}


# --- the optics reference table ------------------------------------------------------------------


def test_optics_table_values_are_the_published_ones(facts):
    """next-wave 1.3: MMF 850 nm 3.0 typical (FOA) / 3.5 worst (TIA); OS2 0.4 and OS1a 1.0
    dB/km (IEEE model, TIA FOTC DR8 page); mated pair 0.75 dB worst (TIA, via Fluke); splice
    SM 0.15, MM 0.3 dB (FOA)."""
    table = facts.optics
    assert table is seed_optics()
    assert table.attenuation_db_per_km("OM4", "typical") == 3.0
    assert table.attenuation_db_per_km("OM4", "worst") == 3.5
    assert table.attenuation_db_per_km("OS2", "worst") == 0.4
    assert table.attenuation_db_per_km("OS1a", "worst") == 1.0
    assert table.fiber_grades["OS2"]["wavelength_nm"] == 1310
    assert table.mated_pair_db("mpo12-apc", "worst") == 0.75
    assert table.mated_pair_db("lc-duplex", "worst") == 0.75
    assert table.mated_pair_db("sn") is None  # no sourced figure
    assert (table.splice_db("smf"), table.splice_db("mmf")) == (0.15, 0.3)


def test_fluke_worked_example_fibre_share():
    """Fluke (next-wave 1.3): 150 m of OM4 at 3.0 dB/km takes 0.45 dB of 40GBASE-SR4's 1.5 dB,
    leaving 1.05 dB: one mated pair at 0.75 dB, not two."""
    table = seed_optics()
    fibre = 0.150 * table.attenuation_db_per_km("OM4", "typical")
    assert fibre == pytest.approx(0.45)
    assert int((1.5 - fibre) // table.mated_pair_db("mpo12", "worst")) == 1


def test_every_optics_value_has_a_source_and_grade():
    table = seed_optics()
    leaves = [
        f"fiber_grades.{g}.attenuation_db_per_km.{c}"
        for g in table.fiber_grades
        for c in ("typical", "worst")
    ] + [
        f"connectors.{k}.mated_pair_db.{c}" for k in table.connectors for c in ("typical", "worst")
    ]
    leaves += [f"splices.{family}.loss_db" for family in table.splices]
    for path in leaves:
        record = table.provenance[path]
        assert record["grade"] in {"datasheet", "secondary", "inferred"}, path
        assert table.sources[record["source"]]["url"].startswith("https://"), path


def test_phy_limits_of_the_optics_table_are_the_published_ones():
    """The channel limit per PHY lives in the seed's optics.yaml only, each figure graded and
    sourced: the TIA FOTC pages for SR8, SR4.2, DR8 and LR8 (primary); 400GBASE-SR4's 1.9 dB
    on OM4 is a secondary table's (IEEE 802.3db's own figure was not found)."""
    table = seed_optics()
    for phy, row in TIA_FOTC.items():
        assert {g: table.channel_il_max_db(phy)[g] for g in row} == row, phy
    assert table.channel_il_max_db("400GBASE-SR4.2") == {"OM3": 1.7, "OM4": 1.8, "OM5": 2.0}
    assert table.channel_il_max_db("400GBASE-LR8")["OS2"] == 6.3
    assert table.channel_il_max_db("400GBASE-SR4") == {"OM4": 1.9}
    where, grade = table.figure_source("phys.400GBASE-SR4.channel_il_max_db.OM4")
    assert grade == "secondary" and "china-tscom.com" in where
    assert table.figure_source("phys.800GBASE-DR8.channel_il_max_db.OS2") == (
        "https://www.tiafotc.org/ieee-802-3-ethernet-standards-update/singlemode-standards-update"
        "/800gbase-dr8/",
        "datasheet",
    )
    for phy in table.phys:
        for grade in table.channel_il_max_db(phy):
            path = f"phys.{phy}.channel_il_max_db.{grade}"
            record = table.provenance[path]
            assert record["grade"] in {"datasheet", "secondary", "inferred", "estimate"}, path
            assert table.sources[record["source"]]["url"].startswith("https://"), path
            if record["grade"] in {"inferred", "estimate"}:
                assert record.get("note"), path


def test_the_budget_reads_the_catalogs_optics_table(facts):
    """No figure of its own: a catalog whose table says otherwise changes the budget."""
    from dataclasses import replace

    from planner.domain.physical.budget import link_terms
    from planner.domain.physical.optics_tables import tables_for

    table = seed_optics()
    phys = {**table.phys, "400GBASE-SR4": {"channel_il_max_db": {"OM4": 1.5}}}
    grades = {**table.fiber_grades}
    grades["OM4"] = {**grades["OM4"], "attenuation_db_per_km": {"typical": 2.0, "worst": 2.5}}
    other = replace(table, phys=phys, fiber_grades=grades)
    tables = tables_for(replace(facts, optics=other))
    sr4 = {"slug": "sr4", "pmd": "SR4", "speed_gbps": 400, "media": "mmf"}
    fibre = {"slug": "f", "fiber_type": "mmf", "fiber_grade": "OM4"}
    terms = link_terms(sr4, sr4, fibre, tables)
    assert (terms.limit_db, terms.attenuation_db_per_km) == (1.5, (2.0, 2.5))
    assert link_terms(sr4, sr4, fibre).limit_db == 1.9  # the seed's


BASE = {"sources": {"s": {"url": "https://example.org", "grade": "datasheet"}}, "source": "s"}


@pytest.mark.parametrize(
    ("data", "field"),
    [
        (
            {"connectors": {"lc": {"mated_pair_db": {"typical": -0.5, "worst": 0.75}}}},
            "connectors.lc.mated_pair_db.typical",
        ),
        (
            {
                "fiber_grades": {
                    "OM9": {
                        "family": "mmf",
                        "wavelength_nm": 850,
                        "attenuation_db_per_km": {"typical": 3, "worst": 3.5},
                    }
                }
            },
            "fiber_grades.OM9",
        ),
        ({"splices": {"smf": {"loss_db": "low"}}}, "splices.smf.loss_db.typical"),
        (
            {"connectors": {"mpo12": {"mated_pair_db": {"typical": 0.9, "worst": 0.75}}}},
            "connectors.mpo12.mated_pair_db.worst",
        ),
        (
            {"phys": {"400GBASE-SR8": {"channel_il_max_db": {"OM9": 1.9}}}},
            "phys.400GBASE-SR8.channel_il_max_db.OM9",
        ),
        (
            {"phys": {"400GBASE-SR8": {"channel_il_max_db": {"OM4": -1.9}}}},
            "phys.400GBASE-SR8.channel_il_max_db.OM4",
        ),
        (
            {"phys": {"400GBASE-SR8": {"channel_il_max_db": {"OM4": 0}}}},
            "phys.400GBASE-SR8.channel_il_max_db.OM4",
        ),
        ({"phys": {"400GBASE-SR8": {"reach_m": 100}}}, "phys.400GBASE-SR8"),
    ],
)
def test_bad_optics_facts_are_refused_naming_the_field(data, field):
    with pytest.raises(OpticsFileError) as caught:
        optics_from_data({**BASE, **data})
    assert caught.value.field == field


@pytest.mark.parametrize(
    ("spec", "field", "words"),
    [
        ({"channel_il_max_db": {"OS9": 3.0}}, "channel_il_max_db", "unknown fiber grade 'OS9'"),
        ({"channel_il_max_db": {"OS2": -3.0}}, "channel_il_max_db", "greater than 0"),
        ({"channel_il_max_db": {"OS2": "3 dB"}}, "channel_il_max_db", "a number of dB"),
        ({"channel_il_max_db": 3.0}, "channel_il_max_db", "an object of dB per fiber grade"),
        ({"reach_by_grade": {"OM9": 50}}, "reach_by_grade", "unknown fiber grade 'OM9'"),
        ({"fec": "rs-528"}, "fec", "not one of"),
        ({"tx_avg_min_dbm": "-2.9"}, "tx_avg_min_dbm", "must be a number"),
    ],
)
def test_bad_transceiver_facts_are_refused_naming_the_field(spec, field, words):
    problems = check_part("transceiver", spec)
    assert [p.field for p in problems] == [field]
    assert words in problems[0].message


def test_good_transceiver_facts_pass():
    spec = {
        "phy": "800GBASE-DR8",
        "channel_il_max_db": {"OS2": 3.0, "OS1a": 3.0},
        "tx_avg_min_dbm": -2.9,
        "fec": "host-rs544",
        "rated_with_patch_panels": 0,
    }
    assert check_part("transceiver", spec) == []


# --- rules 25-26 on the facts ----------------------------------------------------------------


FIBER = "FS-OS2-MTP12-trunk-8F"


def pair(facts, a, b):
    return two_switches(facts, "SN5600", "SN5600", speed=800, ppc=1, media=(a, b, FIBER), links=1)


def found(facts, fabric, rule):
    from planner.analyses.validate import validate_fabric

    return {(p.code, p.severity) for p in rule_problems(validate_fabric(fabric, facts), rule, None)}


def test_rule_25_error_quotes_the_modules_host_serdes_need(facts):
    from planner.analyses.validate import validate_fabric

    facts = with_parts(facts, {**facts.parts["SN5600"], "lpo_validated": False})
    fabric = pair(facts, "FS-800G-OSFP-DR8-LPO", "FS-800G-OSFP-DR8-LPO")
    problems = rule_problems(validate_fabric(fabric, facts), "25")
    assert {p.code for p in problems} == {"lpo-host-unsupported"}
    assert facts.parts["FS-800G-OSFP-DR8-LPO"]["host_serdes_note"] in problems[0].message


def test_rule_26_modules_with_different_fec_is_an_error(facts):
    in_module = {**facts.parts["OSFP-800G-DR8-05"], "slug": "TEST-DR8-INFEC", "fec": "in-module"}
    facts = with_parts(facts, in_module)
    fabric = pair(facts, "OSFP-800G-DR8-05", "TEST-DR8-INFEC")
    assert found(facts, fabric, "26") == {("host-fec-mismatch", "error")}


@pytest.mark.parametrize(
    ("modes", "expected"),
    [
        (["RS(528,514)"], {("host-fec-mismatch", "error")}),
        (["RS(544,514)"], set()),
        (None, {("host-fec-unstated", "info")}),
    ],
)
def test_rule_26_module_needing_host_kp4(facts, modes, expected):
    sn5600 = {**facts.parts["SN5600"]}
    if modes is not None:
        sn5600["fec_modes"] = modes
    facts = with_parts(facts, sn5600)
    fabric = pair(facts, "OSFP-800G-DR8-05", "OSFP-800G-DR8-05")
    assert found(facts, fabric, "26") == expected


def test_rule_26_empty_fec_modes_are_not_stated(facts):
    """A DB row's empty list is no statement (the column's 'unknown'), not 'runs no FEC'."""
    facts = with_parts(facts, {**facts.parts["SN5600"], "fec_modes": []})
    fabric = pair(facts, "OSFP-800G-DR8-05", "OSFP-800G-DR8-05")
    assert found(facts, fabric, "26") == {("host-fec-unstated", "info")}
