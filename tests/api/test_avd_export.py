"""The Arista AVD topology refuses designs AVD cannot build (InfiniBand, other makers' switches)
in the API (422), the page (422) and the CLI, and writes an Arista design's interfaces on their
EOS names, as pyavd documents them (issues 15 and 38)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
import yaml
from django.core.management import CommandError, call_command

from planner.designs.services import design_create
from planner.domain.outputs import AVD_COLUMNS
from planner.domain.outputs.avd import AVD_NOT_ARISTA
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
    assert body["code"] == "not-arista"
    assert body["detail"].startswith(AVD_NOT_ARISTA) and "QM9700" in body["detail"]


def test_page_refuses_avd_of_an_infiniband_design(logged_in_client, infiniband):
    response = logged_in_client.get(f"/designs/{infiniband.pk}/revisions/1/outputs/avd/")
    assert response.status_code == 422
    assert "AVD renders Arista EOS" in response.content.decode()


def test_cli_refuses_avd_of_an_infiniband_spec(seed_catalog, tmp_path):
    spec = tmp_path / "ib.yaml"
    spec.write_text(yaml.safe_dump(SPEC))
    with pytest.raises(CommandError, match="AVD renders Arista EOS"):
        call_command("fabric", "export", str(spec), "--format", "avd", stdout=io.StringIO())


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


def test_avd_topology_of_an_arista_design_in_the_api_and_the_cli(api_client, ethernet, user):
    """The topology CSV of the Arista preset: pyavd's columns and EOS names (its text equals
    pyavd's own: tests/interop/test_pyavd.py); an SN5600 design is refused like avd-yaml."""
    arista = design_create(owner=user, spec_document=ARISTA_SPEC)
    rows = _rows(api_client.get(_url(arista, "avd")))
    assert rows and list(rows[0]) == list(AVD_COLUMNS)
    assert all(r["Node Interface"].startswith("Ethernet") for r in rows)
    plan = _rows(api_client.get(_url(arista, "cabling-csv")))
    switch_ends = sum(r["a_device"].startswith(("leaf", "spine")) for r in plan) + len(plan)
    assert len(rows) == switch_ends  # every cable from each switch end
    out = io.StringIO()
    call_command("fabric", "export", str(arista.pk), "--format", "avd", stdout=out)
    assert out.getvalue().splitlines()[0] == ",".join(AVD_COLUMNS)
    assert len(out.getvalue().splitlines()) == len(rows) + 1
    refused = api_client.get(_url(ethernet, "avd"))
    assert refused.status_code == 422 and "SN5600" in refused.json()["detail"]
