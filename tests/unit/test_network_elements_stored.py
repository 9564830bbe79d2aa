"""Issue 33 item 1: the other networks' devices and links are built once by the pipeline and
stored with the revision (``fabric.networks``); every page, export, analysis and job reads them
(:func:`planner.domain.networks.elements.network_elements`), nothing rebuilds them. A fabric
stored before they were kept is upgraded on its first read.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import planner.domain.networks.elements as elements_module
from planner.analyses.power import power_budget
from planner.analyses.scenario import run_scenario
from planner.analyses.validate import validate_fabric
from planner.domain.canvas import detail_elements, overview_elements
from planner.domain.fabric import Fabric
from planner.domain.networks.element_parts import ClusterElements
from planner.domain.networks.elements import cluster_elements, network_elements
from planner.domain.outputs import (
    bill_of_materials,
    cabling_csv_lines,
    netbox_cable_lines,
    netbox_device_lines,
    p2p_lines,
)
from planner.domain.pipeline import build_fabric
from planner.domain.presets import preset_get
from planner.domain.spec import parse_spec

ROOT = Path(__file__).resolve().parents[2]
#: The presets with a ``networks`` block.
CLUSTER_PRESETS = ("h100-superpod-4su-cluster", "b200-superpod-4su-cluster")
#: Where cluster_elements may be called: its own module (the upgrade of an old fabric) and the
#: pipeline (the one build).
BUILDERS = {"planner/domain/networks/elements.py", "planner/domain/pipeline.py"}


def _json(value):
    if hasattr(value, "item"):  # NumPy scalars, as the revision store writes them
        return value.item()
    raise TypeError(type(value).__name__)


def stored(fabric: Fabric) -> Fabric:
    """``fabric`` saved as a revision and read back (JSON, as planner.designs.adapters)."""
    return Fabric.from_dict(json.loads(json.dumps(fabric.to_dict(), default=_json)))


@pytest.fixture(scope="module")
def built(facts) -> dict[str, Fabric]:
    return {
        slug: build_fabric(parse_spec(preset_get(slug).spec), facts) for slug in CLUSTER_PRESETS
    }


@pytest.mark.parametrize("slug", CLUSTER_PRESETS)
def test_the_pipeline_stores_what_a_fresh_build_gives(built, facts, slug):
    fabric = built[slug]
    assert isinstance(fabric.networks, ClusterElements)
    assert fabric.networks.devices and fabric.networks.links
    assert fabric.networks == cluster_elements(fabric, facts)


def test_media_chosen_by_length_are_on_the_stored_links(built):
    """The B200 cluster's network links are sized without a part: the pipeline chooses their
    media by length, and the stored links carry them (compared with a fresh build above)."""
    fabric = built["b200-superpod-4su-cluster"]
    chosen = [
        group
        for plan in fabric.settings.networks.values()
        for group in plan.get("link_groups") or []
        if group.get("media_options")
    ]
    assert chosen
    assert any(link.a_transceiver or link.b_transceiver for link in fabric.networks.links)


@pytest.mark.parametrize("slug", CLUSTER_PRESETS)
def test_stored_and_read_back_unchanged(built, facts, slug):
    fabric = built[slug]
    loaded = stored(fabric)
    assert loaded.networks is None and loaded.network_columns  # decoded on first read only
    elements = network_elements(loaded, facts)
    assert elements == fabric.networks
    assert network_elements(loaded, facts) is elements
    assert stored(loaded).network_columns == loaded.to_dict()["networks"]


def test_a_design_without_networks_stores_none_and_reads_empty(facts):
    fabric = build_fabric(parse_spec(preset_get("gb300-nvl72-xdr").spec), facts)
    loaded = stored(fabric)
    assert not fabric.settings.networks
    assert network_elements(loaded, facts) == ClusterElements()


@pytest.mark.parametrize("slug", CLUSTER_PRESETS)
def test_a_fabric_stored_before_is_upgraded_once_on_read(built, facts, slug, monkeypatch):
    data = json.loads(json.dumps(built[slug].to_dict(), default=_json))
    del data["networks"]  # as stored before the elements were kept
    old = Fabric.from_dict(data)
    calls = []

    def counted(fabric, facts):
        calls.append(fabric)
        return cluster_elements(fabric, facts)

    monkeypatch.setattr(elements_module, "cluster_elements", counted)
    first = network_elements(old, facts)
    again = network_elements(old, facts)
    assert calls == [old]
    assert first is again and first == built[slug].networks
    assert Fabric.from_dict(json.loads(json.dumps(old.to_dict(), default=_json))).network_columns


def test_nothing_but_the_pipeline_and_the_upgrade_builds_them():
    """No source outside the pipeline and the elements module calls ``cluster_elements``."""
    calls = re.compile(r"\bcluster_elements\s*\(")
    callers = sorted(
        str(path.relative_to(ROOT))
        for folder in ("planner", "simulation", "inventory")
        for path in (ROOT / folder).rglob("*.py")
        if calls.search(path.read_text(encoding="utf-8"))
    )
    assert set(callers) <= BUILDERS, callers
    assert "planner/domain/pipeline.py" in callers


@pytest.mark.parametrize("slug", CLUSTER_PRESETS)
def test_outputs_and_analyses_read_the_stored_elements(built, facts, slug, monkeypatch):
    """With ``cluster_elements`` made to fail, a stored preset's outputs, validation, power,
    canvas and storage-read simulation still list every network link."""
    loaded = stored(built[slug])
    fresh = cluster_elements(built[slug], facts)

    def refused(fabric, facts):
        raise AssertionError("the networks' elements were rebuilt")

    monkeypatch.setattr(elements_module, "cluster_elements", refused)
    links = len(built[slug].networks.links)
    rows = list(cabling_csv_lines(loaded, facts))
    header = rows[0].rstrip("\r\n").split(",")
    network = header.index("network")
    other = [r for r in rows[1:] if r.split(",")[network] != "compute"]
    assert len(other) == links
    bom = bill_of_materials(loaded, facts)
    assert bom == bill_of_materials(built[slug], facts, elements=fresh)
    assert len(list(netbox_device_lines(loaded, facts))) > len(built[slug].networks.devices) // 2
    assert len(list(netbox_cable_lines(loaded, facts))) > links
    assert len(list(p2p_lines(loaded, facts))) > links
    assert validate_fabric(loaded, facts) is not None
    racks = power_budget(loaded, facts).as_dict()["racks"]
    assert any(r.get("network_w") for r in racks)
    cluster = network_elements(loaded, facts)
    for view in (
        overview_elements(loaded, cluster=cluster),
        detail_elements(loaded, "all", cluster=cluster),
    ):
        edges = [e["data"] for e in view["elements"]["edges"]]
        assert {e["network"] for e in edges if e["kind"].startswith("network")} >= {"oob"}
    if any(link.group == "storage-leaf" for link in cluster.links):  # storage arrays
        result = run_scenario(loaded, traffic="storage-read", facts=facts, summary_only=True)
        assert result is not None
