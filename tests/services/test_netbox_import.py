"""Importing NetBox devicetype-library files: all-or-nothing, idempotent, manufacturers made."""

import shutil
from pathlib import Path

import pytest

from inventory.models import CATEGORY_MODELS, Manufacturer, NICModel, SwitchModel
from inventory.netbox_import import netbox_import, netbox_import_text
from inventory.services import CatalogImportError

DATA = Path(__file__).resolve().parents[1] / "data" / "netbox"
GOOD = DATA / "good"
BAD = DATA / "bad"


def _count() -> int:
    return sum(model.objects.count() for model in CATEGORY_MODELS.values())


@pytest.fixture(autouse=True)
def _no_catalog(empty_catalog):
    """These tests import NetBox files into an empty catalog and count what they create."""


@pytest.fixture
def library(tmp_path) -> Path:
    """A copy of the good fixture folder that a test may add files to."""
    folder = tmp_path / "library"
    shutil.copytree(GOOD, folder)
    return folder


def test_import_folder_creates_parts_and_manufacturer():
    assert not Manufacturer.objects.exists()
    report = netbox_import([GOOD])
    assert (report.created, report.updated, report.unchanged) == (3, 0, 0)
    nvidia = Manufacturer.objects.get()
    assert (nvidia.slug, nvidia.name) == ("nvidia", "Nvidia")
    assert any("created manufacturer Nvidia" in w for w in report.warnings)

    qm = SwitchModel.objects.get(slug="QM9700")
    assert qm.manufacturer == nvidia
    assert (qm.port_count, qm.port_speed_gbps, qm.form_factors) == (64, 400, "OSFP")
    assert (qm.psu_count, qm.psu_rating_w, qm.power_max_w, qm.power_typical_w) == (
        2,
        1100,
        None,
        None,
    )
    assert qm.aliases == ["nvidia-qm9700"]
    assert qm.sources["netbox"]["grade"] == "secondary"
    assert qm.provenance["rack_units"] == {"source": "netbox", "grade": "secondary"}
    assert any("QM9700.yaml" in w and "P22" in w for w in report.warnings)

    sn = SwitchModel.objects.get(slug="SN5600")
    assert (sn.port_count, sn.port_speed_gbps, sn.rack_units) == (65, 800, 2)
    nic = NICModel.objects.get(slug="ConnectX-7-MCX75310AAS-NEAT")
    assert (nic.port_count, nic.max_speed_gbps, nic.form_factors) == (1, 400, "OSFP")


def test_existing_manufacturer_is_matched_by_name_or_slug():
    ours = Manufacturer.objects.create(slug="nvidia", name="NVIDIA")
    netbox_import([GOOD / "device-types"])
    assert list(Manufacturer.objects.all()) == [ours]
    assert SwitchModel.objects.get(slug="QM9700").manufacturer == ours


def test_reimport_is_unchanged():
    first = netbox_import([GOOD])
    again = netbox_import([GOOD])
    assert (again.created, again.updated, again.unchanged) == (0, 0, first.created)
    assert Manufacturer.objects.count() == 1


def test_one_bad_file_writes_nothing_and_names_it(library):
    shutil.copy(BAD / "unmapped.yaml", library / "unmapped.yaml")
    before = _count()
    with pytest.raises(CatalogImportError) as caught:
        netbox_import([library])
    assert _count() == before == 0
    assert not Manufacturer.objects.exists()  # created manufacturers rolled back too
    problems = caught.value.problems
    assert {Path(p.where.split(" line ")[0]).name for p in problems} == {"unmapped.yaml"}
    assert any(
        p.field == "interfaces[swp65].type" and "10gbase-x-sfpp" in p.message for p in problems
    )


def test_errors_of_all_files_are_reported_together(library):
    for name in ("unmapped.yaml", "malformed.yaml", "wrong-types.yaml"):
        shutil.copy(BAD / name, library / name)
    with pytest.raises(CatalogImportError) as caught:
        netbox_import([library])
    named = {Path(p.where.split(" line ")[0]).name for p in caught.value.problems}
    assert named == {"unmapped.yaml", "malformed.yaml", "wrong-types.yaml"}
    assert _count() == 0


def test_wrong_types_give_a_clear_error():
    with pytest.raises(CatalogImportError) as caught:
        netbox_import([BAD / "wrong-types.yaml"])
    text = str(caught.value)
    assert "wrong-types.yaml line 6, field u_height: u_height must be a number" in text
    assert "got 'tall'" in text
    assert "interface swp1: mgmt_only must be true or false" in text


def test_file_over_the_size_cap_is_refused(settings, library):
    settings.CATALOG_IMPORT_MAX_BYTES = 2000  # the switch fixtures are larger, the NIC is not
    with pytest.raises(CatalogImportError) as caught:
        netbox_import([library])
    assert [Path(p.where).name for p in caught.value.problems] == ["QM9700.yaml", "SN5600.yaml"]
    assert "above the import limit of 2000 bytes" in caught.value.problems[0].message
    assert _count() == 0  # the NIC file within the cap is not written either
    with pytest.raises(CatalogImportError, match="above the import limit"):
        netbox_import_text(name="big.yaml", text="#" * 2001)


def test_upload_text_import():
    text = (DATA / "good" / "module-types" / "Nvidia" / "MCX75310AAS-NEAT.yaml").read_text()
    report = netbox_import_text(name="MCX75310AAS-NEAT.yaml", text=text)
    assert report.created == 1
    nic = NICModel.objects.get()
    assert nic.sources["netbox"] == {
        "url": None,
        "grade": "secondary",
        "title": "NetBox devicetype-library file MCX75310AAS-NEAT.yaml",
    }
    with pytest.raises(CatalogImportError, match="upload.yaml line 2"):
        netbox_import_text(name="upload.yaml", text="model: [\n")


def test_forced_category_applies_to_every_file():
    report = netbox_import([GOOD / "module-types"], category="switch")
    assert report.created == 1
    assert SwitchModel.objects.get().port_count == 1


def test_part_from_other_sources_is_not_overwritten_unless_asked():
    nvidia = Manufacturer.objects.create(slug="nvidia", name="NVIDIA")
    SwitchModel.objects.create(
        slug="QM9700",
        name="NVIDIA Quantum-2 QM9700",
        manufacturer=nvidia,
        power_max_w=1720,
        sources={"datasheet": {"url": "https://example.com/qm9700", "grade": "datasheet"}},
        provenance={"power_max_w": {"source": "datasheet", "grade": "datasheet"}},
    )
    with pytest.raises(CatalogImportError, match="already in the catalog with other sources"):
        netbox_import([GOOD / "device-types"])
    assert SwitchModel.objects.get(slug="QM9700").power_max_w == 1720
    assert not SwitchModel.objects.filter(slug="SN5600").exists()
    report = netbox_import([GOOD / "device-types"], replace_existing=True)
    assert (report.created, report.updated) == (1, 1)
    assert SwitchModel.objects.get(slug="QM9700").power_max_w is None


def test_missing_path_and_empty_folder(tmp_path):
    with pytest.raises(CatalogImportError) as caught:
        netbox_import([tmp_path / "nope.yaml", tmp_path])
    messages = [p.message for p in caught.value.problems]
    assert messages == ["no such file or folder", "no .yaml or .yml files in folder"]
