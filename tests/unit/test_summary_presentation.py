"""The summary as pages show it (planner.presentation): planes, physical ports, growth and
assumptions of issue 17's designs, from real builds of the worked examples."""

import pytest

from planner.domain.generators import generate_topology
from planner.domain.presets import preset_get
from planner.domain.spec import parse_spec
from planner.domain.summary import summarize
from planner.presentation import growth_rows, link_rows, summary_context


@pytest.fixture(scope="module")
def growth_summary(facts):
    return summarize(
        generate_topology(parse_spec(preset_get("h100-superpod-grow-to-16su").spec), facts)
    )


def test_links_show_planes_and_physical_ports(facts):
    from dataclasses import replace

    model = facts.devices["DGX-B300"]
    groups = tuple(replace(g, breakouts=("2x400G",)) for g in model.port_groups)
    twin = replace(facts, devices={**facts.devices, "DGX-B300": replace(model, port_groups=groups)})
    spec = parse_spec(preset_get("b300-spectrum-x-twin-plane").spec)
    summary = summarize(generate_topology(spec, twin))
    rows = {row[0]: row for row in link_rows(summary)}
    server_leaf = rows["Server – leaf"]
    assert server_leaf[1] == "1,024"
    assert server_leaf[2] == "512 + 512"
    assert server_leaf[3] == "512"
    assert summary_context(summary)["multi_plane"] is True


def test_growth_table_and_steps_read_as_text(growth_summary):
    growth = growth_rows(growth_summary)
    table = {label: (today, final) for label, today, final in growth["table"]}
    assert table["GPUs"] == ("1,024", "4,096")
    assert table["Cores"] == ("64", "64")
    assert growth["steps"][0].startswith("Next step: + 32 servers, 256 GPUs, 8 leaves, 32 spines")
    assert growth["steps"][1].startswith("Each of the next 3 steps: + 32 servers")


def test_no_growth_no_table(facts):
    summary = summarize(generate_topology(parse_spec(preset_get("h100-superpod-1su").spec), facts))
    assert growth_rows(summary) is None
    context = summary_context(summary)
    assert context["assumptions"] == [] and context["multi_plane"] is False


def test_assumptions_are_listed_with_their_source(facts):
    from dataclasses import replace

    from planner.domain.pipeline import build_fabric

    # without the catalog's height (10 U), the published per-rack figure decides
    model = facts.devices["DGX-B300"]
    facts = replace(facts, devices={**facts.devices, "DGX-B300": replace(model, rack_units=None)})
    spec = parse_spec(
        {
            "name": "b",
            "topology": "rail-optimized",
            "server": "DGX-B300",
            "servers": 72,
            "switches": {"leaf": "Q3400-RA"},
        }
    )
    summary = summarize(build_fabric(spec, facts))
    (row,) = summary_context(summary)["assumptions"]
    assert row[0] == "layout.servers_per_rack" and row[1] == "4"
    assert "four DGX B300" in row[2]


def test_the_other_networks_read_as_tables(facts):
    from planner.domain.pipeline import build_fabric
    from planner.presentation import network_rows

    summary = summarize(
        build_fabric(parse_spec(preset_get("h100-superpod-4su-cluster").spec), facts)
    )
    rows = {row["name"]: row for row in network_rows(summary)}
    assert list(rows) == ["storage", "inband", "oob", "management"]
    assert rows["oob"]["label"] == "Out-of-band management"
    assert ("Leaf", "SN2201", "8") in rows["oob"]["switches"]
    assert rows["oob"]["cables_total"] == "333"
    assert ("Cable", "Cat5e-Cat6-RJ45-patch-cord", "317") in rows["oob"]["parts"]
    assert ("System", "PX3-5878I2R-P1Q2R1A15D5", "96") in rows["management"]["parts"]
    assert rows["storage"]["switches_total"] == "16" and rows["storage"]["missing"] == []
    assert all(row["conventions"] for row in rows.values())


def test_power_page_lists_the_other_networks(facts):
    from planner.analyses.power import power_budget
    from planner.domain.pipeline import build_fabric
    from simulation.presentation import power_context

    fabric = build_fabric(parse_spec(preset_get("h100-superpod-4su-cluster").spec), facts)
    rows = {row[0]: row for row in power_context(power_budget(fabric, facts).as_dict())["networks"]}
    assert list(rows) == [
        "Storage",
        "In-band management",
        "Out-of-band management",
        "Management systems",
    ]
    assert rows["Management systems"][3].endswith("kW") and rows["Storage"][1].endswith("kW")


def test_job_parameters_leave_out_what_the_traffic_does_not_use():
    """A storage-read job lists no GPU placement (every node reads from every array); an
    all-reduce job still does, and both show the message size with its unit."""
    from simulation.presentation import parameter_rows

    common = {"routing": "ecmp", "placement": "contiguous", "size_bytes": 1_000_000_000}
    read = dict(parameter_rows({"traffic": "storage-read", **common, "design": 3}))
    assert "Placement" not in read and "Design" not in read
    assert read["Message size"] == "1,000,000,000 bytes"
    reduce = dict(parameter_rows({"traffic": "all-reduce", **common}))
    assert reduce["Placement"] == "contiguous"
