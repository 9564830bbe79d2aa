"""The Arista AVD export refuses InfiniBand designs in the API (422), the page (422) and the CLI,
and writes an Ethernet design's interfaces as the cabling plan names its ports (issue 15)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
import yaml
from django.core.management import CommandError, call_command

from planner.designs.services import design_create
from planner.domain.outputs import AVD_COLUMNS, AVD_NOT_ETHERNET
from tests.services.test_outputs import SPEC

EXAMPLES = Path(__file__).resolve().parents[2] / "planner" / "domain" / "examples"
ETHERNET_SPEC = yaml.safe_load((EXAMPLES / "clos-3to1.yaml").read_text())


@pytest.fixture
def infiniband(seed_catalog, user):
    return design_create(owner=user, spec_document=SPEC)


@pytest.fixture
def ethernet(seed_catalog, user):
    return design_create(owner=user, spec_document=ETHERNET_SPEC)


def _url(design, fmt: str) -> str:
    return f"/api/planner/designs/{design.pk}/revisions/1/exports/{fmt}/"


def _rows(response) -> list[dict]:
    assert response.status_code == 200, response.content
    return list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))


def test_api_refuses_avd_of_an_infiniband_design(api_client, infiniband):
    response = api_client.get(_url(infiniband, "avd"))
    assert response.status_code == 422
    body = response.json()
    assert body["code"] == "not-ethernet"
    assert body["detail"].startswith(AVD_NOT_ETHERNET) and "QM9700" in body["detail"]


def test_page_refuses_avd_of_an_infiniband_design(logged_in_client, infiniband):
    response = logged_in_client.get(f"/designs/{infiniband.pk}/revisions/1/outputs/avd/")
    assert response.status_code == 422
    assert "AVD describes Ethernet fabrics" in response.content.decode()


def test_cli_refuses_avd_of_an_infiniband_spec(seed_catalog, tmp_path):
    spec = tmp_path / "ib.yaml"
    spec.write_text(yaml.safe_dump(SPEC))
    with pytest.raises(CommandError, match="AVD describes Ethernet fabrics"):
        call_command("fabric", "export", str(spec), "--format", "avd", stdout=io.StringIO())


def test_avd_of_an_ethernet_design_uses_the_cabling_plan_port_names(api_client, ethernet):
    rows = _rows(api_client.get(_url(ethernet, "avd")))
    assert rows and list(rows[0]) == list(AVD_COLUMNS)
    plan = _rows(api_client.get(_url(ethernet, "cabling-csv")))
    ends = {(r["a_device"], r["a_port"]) for r in plan}
    ends |= {(r["b_device"], r["b_port"]) for r in plan}
    assert all((r["Node"], r["Node Interface"]) in ends for r in rows)
    assert not any(r["Node Interface"].startswith("Ethernet") for r in rows)
    out = io.StringIO()
    call_command("fabric", "export", str(ethernet.pk), "--format", "avd", stdout=out)
    assert out.getvalue().splitlines()[0] == ",".join(AVD_COLUMNS)


ARISTA_SPEC = {**yaml.safe_load((EXAMPLES / "arista-7060x6-rail.yaml").read_text()), "servers": 8}


def test_avd_inputs_download_and_refusal(api_client, ethernet, user, tmp_path):
    """``avd-yaml``: an Arista design's inputs (one YAML inventory, EOS names); an SN5600
    design gets 422 ``not-arista`` naming its model, in the API and the CLI."""
    arista = design_create(owner=user, spec_document=ARISTA_SPEC)
    response = api_client.get(_url(arista, "avd-yaml"))
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("application/yaml")
    inventory = yaml.safe_load(b"".join(response.streaming_content).decode())
    fabric = inventory["all"]["children"]["FABRIC"]
    assert {g["vars"]["type"] for g in fabric["children"].values()} == {"l3leaf", "spine"}
    assert sum(len(g["hosts"]) for g in fabric["children"].values()) == 12
    assert fabric["vars"]["l3leaf"]["nodes"][0]["uplink_interfaces"][0].startswith("Ethernet")
    refused = api_client.get(_url(ethernet, "avd-yaml"))
    assert refused.status_code == 422
    assert refused.json()["code"] == "not-arista" and "SN5600" in refused.json()["detail"]
    spec = tmp_path / "clos.yaml"
    spec.write_text(yaml.safe_dump(ETHERNET_SPEC))
    with pytest.raises(CommandError, match="not Arista switches EOS names"):
        call_command("fabric", "export", str(spec), "--format", "avd-yaml", stdout=io.StringIO())
    out = io.StringIO()
    call_command("fabric", "export", str(arista.pk), "--format", "avd-yaml", stdout=out)
    assert yaml.safe_load(out.getvalue()) == inventory
