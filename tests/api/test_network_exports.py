"""Downloads of a cluster with its other networks (issue 18): the API's NetBox, P2P, AVD and JSON
exports list every network, the page says so, and the validate path runs the network rules.

The design is the 4 SU H100 SuperPOD cluster example (storage, in-band, OOB), whose counts
reproduce RA-11333-001 V11 Tables 7 and 8.
"""

from __future__ import annotations

import csv
import io
import json
import zipfile
from collections import Counter
from pathlib import Path

import pytest
import yaml
from django.core.management import call_command

from inventory.models import Manufacturer
from planner.audit.models import AuditEvent
from planner.designs.services import design_create
from planner.domain.outputs.netbox_bundle import BUNDLE_FILES

EXAMPLES = Path(__file__).resolve().parents[2] / "planner" / "domain" / "examples"
CLUSTER = yaml.safe_load((EXAMPLES / "h100-superpod-4su-cluster.yaml").read_text())


@pytest.fixture
def cluster(seed_catalog, user):
    return design_create(owner=user, spec_document=CLUSTER)


def _url(design, fmt: str) -> str:
    return f"/api/planner/designs/{design.pk}/revisions/1/exports/{fmt}/"


def _body(response) -> str:
    assert response.status_code == 200, getattr(response, "content", b"")
    return b"".join(response.streaming_content).decode()


def _rows(response) -> list[dict]:
    return list(csv.DictReader(io.StringIO(_body(response))))


def test_netbox_exports_of_a_cluster_list_every_network(api_client, cluster):
    devices = _rows(api_client.get(_url(cluster, "netbox-devices")))
    assert list(devices[0])[-1] == "tags"
    by_network = Counter(r["tags"] for r in devices)
    assert set(by_network) == {"compute", "storage", "inband", "oob", "management"}
    leaf = next(r for r in devices if r["name"] == "stor-leaf-01")
    # NetBox matches manufacturers by name: the catalog's name, not its slug
    assert leaf["manufacturer"] == Manufacturer.objects.get(slug="nvidia").name
    assert leaf["device_type"] == "QM9700" and leaf["rack"].startswith("MGMT-")
    cables = _rows(api_client.get(_url(cluster, "netbox-cables")))
    types = Counter((r["tags"], r["type"]) for r in cables)
    assert types[("oob", "cat5e")] == 317  # RA-11333-001 V11 Table 8: 317 Cat5e
    assert AuditEvent.objects.filter(design_ref=cluster.pk, action="export.downloaded").count() == 2


def test_netbox_bundle_download_is_a_zip_of_every_object_in_import_order(api_client, cluster):
    response = api_client.get(_url(cluster, "netbox-bundle"))
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    assert response["Content-Disposition"].endswith('-netbox-bundle.zip"')
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    assert archive.namelist() == ["00-README.txt", *BUNDLE_FILES]
    devices = list(csv.DictReader(io.StringIO(archive.read("07-devices.csv").decode())))
    assert len(devices) == 327 and all(d["device_type"] for d in devices)
    makers = archive.read("01-manufacturers.csv").decode()
    assert Manufacturer.objects.get(slug="nvidia").name in makers  # NetBox matches by name
    cables = archive.read("08-cables.csv").decode().count("\r\n") - 1
    assert cables == 3283


def test_p2p_avd_and_json_of_a_cluster(api_client, cluster):
    p2p = _rows(api_client.get(_url(cluster, "p2p")))
    assert {r["Network"] for r in p2p} == {"compute", "storage", "inband", "oob"}
    # the compute fabric runs InfiniBand on QM9700: AVD builds nothing of it (422)
    assert api_client.get(_url(cluster, "avd")).status_code == 422
    document = json.loads(_body(api_client.get(_url(cluster, "json"))))
    assert set(document["topology"]["settings"]["networks"]) >= {"storage", "inband", "oob"}
    names = {d["name"] for d in document["network_elements"]["devices"]}
    assert {"stor-leaf-01", "inb-core-01", "oob-01"} <= names


def test_the_outputs_page_says_what_the_exports_hold(logged_in_client, cluster):
    page = logged_in_client.get(f"/designs/{cluster.pk}/revisions/1/outputs/").content.decode()
    assert 'data-testid="exports-networks"' in page and "<code>tags</code>" in page


def test_fabric_validate_runs_the_network_rules(seed_catalog, tmp_path):
    spec = tmp_path / "cluster.yaml"
    spec.write_text(yaml.safe_dump(CLUSTER))
    out = io.StringIO()
    call_command("fabric", "validate", str(spec), "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert "network-copper-reach-exceeded" in report["summary"]["rules_run"]
    network = [p for p in report["problems"] if p["code"].startswith("network-")]
    assert not [p for p in network if p["severity"] == "error"]
    assert any(i.startswith("netlink:") for p in network for i in p["element_ids"])
