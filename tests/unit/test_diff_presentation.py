"""Summary and spec changes as sentences (issue 33 item 7): records of a summary list in
words, only the records that differ, units from the key, a stale parameter named once."""

from planner.presentation import diff_row, diff_text, racks_text, record_text, stale_text

WORST = {
    "link": 1151,
    "a": "leaf-su001-r4-2",
    "a_port": 144,
    "b": "spine-001-004",
    "b_port": 144,
    "fiber_m": 15.0,
    "grade_assumed": True,
    "margin_db": 2.994,
}


def test_a_link_record_reads_as_its_ends_and_values_without_its_index():
    text = record_text(WORST)
    assert text.startswith("leaf-su001-r4-2 port 144 → spine-001-004 port 144: ")
    assert "fiber 15 m" in text and "margin 2.994 dB" in text and "grade assumed yes" in text
    assert "1151" not in text and "{" not in text and "'" not in text


def test_a_link_record_with_its_ends_named_reads_them_as_every_page_does():
    named = {**WORST, "ends": "leaf-su001-r4-2 72/2 → spine-001-004 72/2", "a_port_name": "72/2"}
    text = record_text(named)
    assert text.startswith("leaf-su001-r4-2 72/2 → spine-001-004 72/2: fiber 15 m")
    assert "port 144" not in text and "72/2," not in text


def test_two_lists_of_records_show_only_the_records_that_differ():
    edited = {**WORST, "link": 576, "a": "leaf-su001-r1-1", "a_port": 73, "fiber_m": 25.0}
    others = [{**WORST, "link": n, "b_port": n} for n in range(1, 10)]
    label, old, new, delta = diff_row(
        "optical_budget.worst", {"old": [WORST, *others], "new": [edited, *others]}
    )
    assert label == "Optical budget › Worst" and delta == ""
    assert old.startswith("leaf-su001-r4-2 port 144") and old.endswith("; and 9 the same")
    assert new.startswith("leaf-su001-r1-1 port 73") and "fiber 25 m" in new
    assert "port 1 " not in old + new  # the unchanged records are counted, not listed


def test_units_come_from_the_key_and_numbers_carry_separators():
    assert diff_text(
        "latency.classes.via-spine.metres.max", {"old": 50, "new": 1250, "delta": 1200}
    ) == ("Latency › Classes › Via-spine › Length › Max: 50 m → 1,250 m (+1,200 m)")
    assert diff_text(
        "optical_budget.margin_min_db", {"old": 2.994, "new": 2.99, "delta": -0.004}
    ) == ("Optical budget › Margin min: 2.994 dB → 2.99 dB (-0.004 dB)")
    assert diff_text("transport.routing", {"old": "adaptive", "new": "static"}) == (
        "Transport › Routing: adaptive → static"
    )


def test_a_stale_parameter_is_named_once():
    assert stale_text({"field": "rails", "message": "rails: every server has 72 NIC links"}) == (
        "rails: every server has 72 NIC links"
    )
    assert stale_text({"field": "servers", "message": "128 servers"}) == "servers: 128 servers"


def test_racks_read_by_kind_when_there_are_several():
    summary = {"racks": 1044, "racks_by_kind": {"compute": 1000, "network": 38, "management": 6}}
    assert racks_text(summary) == "1,044 (1,000 compute, 38 network, 6 management)"
    assert racks_text({"racks": 8, "racks_by_kind": {"compute": 8, "management": 0}}) == "8"
