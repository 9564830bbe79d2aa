"""The NetBox bundle's shape: files in NetBox's import order, every object a row names defined
in an earlier file, every cable end an interface of its device's type, cells neutralised.

The real NetBox importing it is ``make interop`` (tests/interop/netbox_run.py)."""

from __future__ import annotations

import csv
import io
import zipfile
from pathlib import Path

import pytest
import yaml

from inventory.library.files import read_catalog_folder
from planner.domain.catalog import facts_from_records
from planner.domain.outputs.netbox_bundle import (
    BUNDLE_FILES,
    GENERIC_MANUFACTURER,
    netbox_bundle,
    netbox_bundle_zip,
)
from planner.domain.pipeline import build_fabric
from planner.domain.spec import parse_spec

ROOT = Path(__file__).resolve().parents[2]
PRESET = ROOT / "planner" / "domain" / "examples" / "h100-superpod-4su-cluster.yaml"


def _rows(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


@pytest.fixture(scope="module")
def catalog():
    files = read_catalog_folder(ROOT / "inventory/library/seed")
    return facts_from_records(files.parts), {m["slug"]: m["name"] for m in files.manufacturers}


@pytest.fixture(scope="module")
def fabric(catalog):
    return build_fabric(parse_spec(yaml.safe_load(PRESET.read_text())), catalog[0])


@pytest.fixture(scope="module")
def bundle(fabric, catalog):
    facts, makers = catalog
    return netbox_bundle(fabric, facts, manufacturer_names=makers)


@pytest.fixture(scope="module")
def types(bundle):
    return {d["model"]: d for d in yaml.safe_load_all(bundle.files["06-device-types.yaml"])}


def test_files_come_in_netbox_import_order(bundle):
    assert list(bundle.files) == list(BUNDLE_FILES)
    names = zipfile.ZipFile(io.BytesIO(netbox_bundle_zip(bundle))).namelist()
    assert names == ["00-README.txt", *BUNDLE_FILES]


def test_every_object_a_device_row_names_is_defined_before_it(bundle, types):
    files = bundle.files
    makers = {r["name"] for r in _rows(files["01-manufacturers.csv"])}
    tags = {r["slug"] for r in _rows(files["02-tags.csv"])}
    sites = {r["name"] for r in _rows(files["03-sites.csv"])}
    roles = {r["name"] for r in _rows(files["04-device-roles.csv"])}
    racks = {r["name"] for r in _rows(files["05-racks.csv"])}
    devices = _rows(files["07-devices.csv"])
    assert len(devices) == bundle.counts["07-devices.csv"] == 327
    assert {t["manufacturer"] for t in types.values()} <= makers
    for row in devices:
        assert row["device_type"], row  # every device has a type
        assert types[row["device_type"]]["manufacturer"] == row["manufacturer"], row
        assert row["role"] in roles and row["site"] in sites and row["tags"] in tags, row
        assert not row["rack"] or row["rack"] in racks, row
    assert {"compute", "storage", "inband", "oob", "management"} <= tags
    slugs = [t["slug"] for t in types.values()]
    assert len(slugs) == len(set(slugs))


def test_every_cable_end_is_an_interface_of_its_device_type(bundle, types, fabric):
    devices = {r["name"]: r["device_type"] for r in _rows(bundle.files["07-devices.csv"])}
    ports = {model: {i["name"] for i in t.get("interfaces", ())} for model, t in types.items()}
    cables = _rows(bundle.files["08-cables.csv"])
    assert len(cables) == bundle.counts["08-cables.csv"] == 3283
    used = set()
    for row in cables:
        for side in ("side_a", "side_b"):
            device, port = row[f"{side}_device"], row[f"{side}_name"]
            assert port in ports[devices[device]], (device, port)
            used.add((device, port))
        assert row["status"] == "planned" and row["tags"], row
    assert len(used) == 2 * len(cables)  # no interface holds two cables
    assert {"1/1", "4/2"} <= ports["DGX-H100"] and "stor1" in ports["DGX-H100"]
    assert {"1/1", "32/2"} <= ports["QM9700"]


def test_racks_have_the_layout_height_and_zero_u_devices_no_position(bundle, types, fabric):
    racks = {r["name"]: r for r in _rows(bundle.files["05-racks.csv"])}
    assert {r["u_height"] for r in racks.values()} == {"48"}  # the layout's 48U racks
    assert racks["MGMT-01"]["u_height"] == "48"  # management racks: the tallest of the layout
    devices = _rows(bundle.files["07-devices.csv"])
    pdus = [d for d in devices if d["role"] == "pdu"]
    assert pdus and all(d["rack"] and not d["position"] for d in pdus)
    assert all(types[d["device_type"]]["u_height"] == 0 for d in pdus)
    assert types["DGX-H100"]["u_height"] == 8


def test_devices_without_a_catalog_model_get_a_generic_type_stated_as_such(bundle, types, catalog):
    devices = {r["name"]: r for r in _rows(bundle.files["07-devices.csv"])}
    generic = catalog[1].get("generic", GENERIC_MANUFACTURER)  # the catalog's generic maker
    for name in ("fabric-manager", "storage-array-01", "nfs-storage-01", "customer-core"):
        row = devices[name]
        assert row["manufacturer"] == generic, row
        assert row["device_type"] == f"{GENERIC_MANUFACTURER} {row['role']}"
        assert "Generic type" in types[row["device_type"]]["comments"]
    assert "comments" not in types["QM9700"]


def test_cells_are_neutralised_and_names_stay_consistent(fabric, catalog):
    facts, makers = catalog
    old = fabric.node_name[0]
    fabric.node_name[0] = "=HYPERLINK(1)"
    try:
        files = netbox_bundle(fabric, facts, manufacturer_names=makers, site="+site").files
    finally:
        fabric.node_name[0] = old
    assert "'=HYPERLINK(1)" in files["07-devices.csv"]
    assert "\n=" not in files["07-devices.csv"] and ",=" not in files["08-cables.csv"]
    assert _rows(files["03-sites.csv"])[0]["name"] == "'+site"
    assert _rows(files["07-devices.csv"])[0]["site"] == "'+site"


def test_a_compute_only_design_gets_a_whole_bundle_too(catalog):
    facts, makers = catalog
    spec = yaml.safe_load((PRESET.parent / "h100-superpod-1su.yaml").read_text())
    fabric = build_fabric(parse_spec(spec), facts)
    files = netbox_bundle(fabric, facts, manufacturer_names=makers).files
    for name in BUNDLE_FILES[:5]:
        assert _rows(files[name]), name  # NetBox refuses an import without rows
    types = {d["model"]: d for d in yaml.safe_load_all(files["06-device-types.yaml"])}
    devices = {r["name"]: r for r in _rows(files["07-devices.csv"])}
    assert {r["tags"] for r in devices.values()} == {"compute"}
    for row in _rows(files["08-cables.csv"]):
        assert row["tags"] == "compute", row
        for side in ("side_a", "side_b"):
            model = devices[row[f"{side}_device"]]["device_type"]
            assert row[f"{side}_name"] in {i["name"] for i in types[model]["interfaces"]}
