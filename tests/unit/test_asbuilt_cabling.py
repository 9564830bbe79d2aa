"""As-built cabling check (planner.domain.asbuilt): names, the three formats' parsers on
real-format samples (tests/data/asbuilt/, each citing where its format is documented) and a
deliberately mis-cabled copy of the 4 SU DGX H100 SuperPOD (its expected LLDP table generated
from the design, then two ports swapped, a link dropped, one moved to another rail's leaf, one
speed changed, an unknown device added), each finding asserted; bad files refused by name."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
import yaml

from planner.domain.asbuilt.cabling import CablingImportError, check_cabling, report_csv_lines
from planner.domain.asbuilt.names import AsBuiltNameError, FabricNames
from planner.domain.asbuilt.parsers import MAX_BYTES, ParseError, parse
from planner.domain.pipeline import build_fabric
from planner.domain.spec import parse_spec

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "planner" / "domain" / "examples"
DATA = ROOT / "tests" / "data" / "asbuilt"


def _fabric(facts, example, **extra):
    spec = yaml.safe_load((EXAMPLES / f"{example}.yaml").read_text())
    return build_fabric(parse_spec({**spec, **extra}), facts)


@pytest.fixture(scope="module")
def su4(facts):
    """The 4 SU DGX H100 SuperPOD (127 DGX, 32 leaves, 16 spines, 2,044 links)."""
    fabric = _fabric(facts, "h100-superpod-4su")
    return FabricNames(fabric, facts)


@pytest.fixture(scope="module")
def twin(facts):
    """DGX B300 on SN5600, two planes, 8 servers."""
    return FabricNames(_fabric(facts, "b300-spectrum-x-twin-plane", servers=8), facts)


def expected_lldp(names: FabricNames) -> list[list[str]]:
    """The LLDP table the switches of the design should report (upper end = local switch)."""
    f, ends = names.fabric, names.ends
    rows = []
    for i in range(f.link_count):
        a, b = int(f.link_a[i]), int(f.link_b[i])
        rows.append(
            [
                f.node_name[b],
                ends.port_name(b, int(f.link_b_port[i])),
                f.node_name[a],
                ends.port_name(a, int(f.link_a_port[i])),
                f"{int(f.link_speed_gbps[i])}G",
            ]
        )
    return rows


def as_csv(rows) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["local_device", "local_port", "remote_device", "remote_port", "speed"])
    writer.writerows(rows)
    return out.getvalue()


def _row(rows, local, local_port):
    return next(i for i, r in enumerate(rows) if r[0] == local and r[1] == local_port)


def _free_port(names: FabricNames, device: str) -> str:
    node = names.device(device)
    port = next(
        p for p in range(int(names.fabric.node_ports[node])) if names.link_at(node, p) is None
    )
    return names.port_name(node, port)


def test_names_read_vendor_and_infiniband_forms(twin, su4):
    leaf = twin.device("P1-LEAF-SU001-R3.dc1.example.com")
    assert twin.fabric.node_name[leaf] == "p1-leaf-su001-r3"
    for text in ("3/2", "swp3s1", "Ethernet20", "Ethernet3/5"):
        assert twin.port_name(leaf, twin.port(leaf, text)) == "3/2"
    ib_leaf = su4.device("MF0;leaf-su001-r1:MQM9700/U1")
    assert su4.port_name(ib_leaf, su4.port(ib_leaf, "6", os="ib")) == "3/2"
    gpu = su4.device("gpu00001")
    assert su4.port_name(gpu, su4.port(gpu, "mlx5_3")) == "2/2"
    assert su4.device("R001-05.U03") == su4.device("leaf-su001-r3")
    with pytest.raises(AsBuiltNameError) as caught:
        twin.port(leaf, "swp99")
    assert caught.value.code == "unknown-port" and "p1-leaf-su001-r3" in str(caught.value)


def test_miscabled_4su_copy_reports_every_finding(su4):
    rows = expected_lldp(su4)
    assert len(rows) == 2044
    # 1. swap two ports: leaf-su001-r1 ports 1/1 and 1/2 (gpu00001 and gpu00002) crossed
    i, j = _row(rows, "leaf-su001-r1", "1/1"), _row(rows, "leaf-su001-r1", "1/2")
    rows[i][2:4], rows[j][2:4] = rows[j][2:4], rows[i][2:4]
    # 2. drop one link: leaf-su002-r4 port 5/1
    dropped = rows.pop(_row(rows, "leaf-su002-r4", "5/1"))
    # 3. wrong rail: a rail-6 cable of SU 4 lands on the rail-7 leaf (on its free port)
    k = _row(rows, "leaf-su004-r6", "5/2")
    rows[k][0], rows[k][1] = "leaf-su004-r7", _free_port(su4, "leaf-su004-r7")
    # 4. wrong speed: leaf-su003-r2 port 2/1 came up at 200G
    s = _row(rows, "leaf-su003-r2", "2/1")
    rows[s][4] = "200G"
    # 5. an unknown device on a spare port of leaf-su004-r8
    rows.append(
        ["leaf-su004-r8", _free_port(su4, "leaf-su004-r8"), "laptop-installer", "eth0", "1G"]
    )
    report = check_cabling(su4, parse("lldp-csv", as_csv(rows)), whole_fabric=False)
    counts = report.summary["counts"]
    assert counts == {
        "missing": 1,
        "unexpected": 1,
        "swapped-ports": 2,
        "wrong-rail": 1,
        "wrong-plane": 0,
        "wrong-speed": 1,
    }
    by_kind = {}
    for finding in report.findings:
        by_kind.setdefault(finding["kind"], []).append(finding)
    missing = by_kind["missing"][0]
    assert (missing["b"]["device"], missing["b"]["port"]) == ("leaf-su002-r4", "5/1")
    assert missing["a"]["device"] == dropped[2] and missing["a"]["rack"] and missing["a"]["ru"]
    assert missing["label"].count("/") == 1 and ".U" in missing["label"]
    swapped = {(f["a"]["device"], f["b"]["port"]) for f in by_kind["swapped-ports"]}
    assert swapped == {("gpu00001", "1/2"), ("gpu00002", "1/1")}
    assert "move the cable at" in by_kind["swapped-ports"][0]["action"]
    rail = by_kind["wrong-rail"][0]
    assert rail["b"]["device"] == "leaf-su004-r7" and "rail 6" in rail["expected"]
    assert "rail 7" in rail["found"]
    speed = by_kind["wrong-speed"][0]
    assert speed["expected"] == "400 Gb/s" and speed["found"] == "200 Gb/s"
    unexpected = by_kind["unexpected"][0]
    assert unexpected["b"]["device"] == "laptop-installer" and unexpected["links"] == []
    assert report.summary["links_checked"] == 2044
    # the installer's CSV: one row per finding, both ends by rack and RU
    lines = list(csv.reader(io.StringIO("".join(report_csv_lines(report.findings)))))
    assert lines[0][:4] == ["kind", "label", "a_device", "a_port"] and len(lines) == 7


def test_wrong_plane_on_a_twin_plane_design(twin):
    rows = expected_lldp(twin)
    k = _row(rows, "p1-leaf-su001-r1", "1/1")  # gpu00001 1/1 lands on plane 2's rail-1 leaf
    rows[k][0], rows[k][1] = "p2-leaf-su001-r1", _free_port(twin, "p2-leaf-su001-r1")
    report = check_cabling(twin, parse("lldp-csv", as_csv(rows)), whole_fabric=False)
    kinds = [f["kind"] for f in report.findings]
    assert kinds == ["wrong-plane"]
    assert "plane 1" in report.findings[0]["expected"] and "plane 2" in report.findings[0]["found"]


def test_nvue_csv_sample_with_a_device(twin):
    text = (DATA / "nvue-lldp.csv").read_text()
    rows = parse("lldp-csv", text, device="p1-leaf-su001-r1")
    assert rows[0].a_port == "swp1s0" and rows[0].speed_gbps == 400
    report = check_cabling(twin, rows, whole_fabric=False)
    assert report.summary["links_checked"] == len(
        [
            i
            for i in range(twin.fabric.link_count)
            if twin.device("p1-leaf-su001-r1") in (twin.fabric.link_a[i], twin.fabric.link_b[i])
        ]
    )
    assert report.summary["counts"]["missing"] == report.summary["links_checked"] - 3


def test_lldpctl_json_sample(twin):
    rows = parse("lldp-json", (DATA / "lldpctl.json").read_text())
    assert {(r.a_device, r.a_port, r.b_device, r.b_port) for r in rows} == {
        ("p1-leaf-su001-r1", "Ethernet0", "gpu00001", "1/1"),
        ("p1-leaf-su001-r1", "Ethernet256", "p1-spine-001-001", "swp1s0"),
    }
    report = check_cabling(twin, rows, whole_fabric=False)
    assert report.summary["links_in_place"] == 2


def test_ibnetdiscover_sample(su4):
    rows = parse("ibnetdiscover", (DATA / "ibnetdiscover.txt").read_text())
    assert len(rows) == 3  # each link once, though listed from both ends
    assert {r.speed_gbps for r in rows} == {400}
    report = check_cabling(su4, rows, whole_fabric=True)
    assert report.summary["links_in_place"] == 3
    assert report.summary["counts"]["missing"] == 2044 - 3


def test_netbox_cable_sample(su4):
    rows = parse("netbox-cables", (DATA / "netbox-cables.csv").read_text())
    assert len(rows) == 2  # the planned cable is not in place
    report = check_cabling(su4, rows, whole_fabric=True)
    assert report.summary["counts"]["swapped-ports"] == 1


@pytest.mark.parametrize(
    ("fmt", "text", "field"),
    [
        ("lldp-csv", "local_device,local_port\nleaf,1\n", "remote_device"),
        ("lldp-json", "{not json", "file"),
        ("lldp-json", '{"lldp": {"interface": {}}}', "device"),
        ("ibnetdiscover", 'Switch 64 "S-1" # "x"\n[1 "S-2"[3]\n', "port"),
        ("ibnetdiscover", "hello\n", "line"),
        ("netbox-cables", "a,b\n1,2\n", "header"),
        (
            "lldp-csv",
            "local_device,local_port,remote_device,remote_port,speed\na,1,b,2,fast\n",
            "speed",
        ),
    ],
)
def test_malformed_files_name_the_field(fmt, text, field):
    with pytest.raises(ParseError) as caught:
        parse(fmt, text)
    assert caught.value.field == field


def test_unknown_names_and_another_design_are_refused(su4, twin):
    bad_port = as_csv([["leaf-su001-r1", "swp999", "gpu00001", "1/1", ""]])
    with pytest.raises(CablingImportError) as caught:
        check_cabling(su4, parse("lldp-csv", bad_port), whole_fabric=False)
    assert caught.value.errors[0]["code"] == "unknown-port"
    assert caught.value.errors[0]["row"] == 2 and caught.value.errors[0]["port"] == "swp999"
    unknown = as_csv([["leaf-xyz", "1/1", "gpu00001", "1/1", ""]])
    with pytest.raises(CablingImportError) as caught:
        check_cabling(su4, parse("lldp-csv", unknown), whole_fabric=False)
    assert {e["code"] for e in caught.value.errors} >= {"unknown-device"}
    # the twin-plane design's table read against the 4 SU design
    other = as_csv(expected_lldp(twin)[:20])
    with pytest.raises(CablingImportError) as caught:
        check_cabling(su4, parse("lldp-csv", other), whole_fabric=False)
    assert caught.value.errors[0]["code"] == "another-design"


def test_a_file_of_one_row_repeated_is_read_in_linear_time(twin):
    """Issue 34: 80,000 copies of one LLDP row took 16.7 s (each copy rebuilt the list of rows
    seen); 300,000 copies (about 10 MB) must be parsed and checked well within a request."""
    import time

    row = ",".join(expected_lldp(twin)[0][:4]) + "\n"
    text = "local_device,local_port,remote_device,remote_port\n" + row * 300_000
    assert len(text) < MAX_BYTES
    # CPU time of this process: what the parser costs, whatever else the machine runs.
    started = time.process_time()
    report = check_cabling(twin, parse("lldp-csv", text), whole_fabric=False)
    elapsed_s = time.process_time() - started
    assert report.summary["rows"] == 300_000 and report.summary["cables_found"] == 1
    assert elapsed_s < 5, f"{elapsed_s:.1f} s for 300,000 rows"
