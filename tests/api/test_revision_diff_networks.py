"""Revision diffs see every network (issue 18): a change of the spec's ``networks`` block is a
per-network change of switches and cables, in the API (``networks``) and on the diff page.

The expected figures are each revision's own summary, not numbers copied from the code."""

from __future__ import annotations

import re

from planner.designs.services import design_create, design_revise

BASE = "/api/planner"
SPEC = {
    "name": "4 SU cluster",
    "topology": "rail-optimized",
    "server": "DGX-H100",
    "servers": 127,
    "servers_per_su": 32,
    "reserved_leaf_ports": 4,
    "switches": {"leaf": "QM9700"},
    "networks": {"compute": {}, "storage": {}, "inband": {}, "oob": {}},
}
# a non-blocking storage fabric: more spines than the RA's 4:3
DENSER = {**SPEC, "networks": {**SPEC["networks"], "storage": {"oversubscription": 1}}}


def _designs(user):
    design = design_create(owner=user, spec_document=SPEC)
    design_revise(design=design, user=user, spec_document=DENSER, base_revision=1)
    no_oob = {**SPEC, "networks": {k: v for k, v in SPEC["networks"].items() if k != "oob"}}
    design_revise(design=design, user=user, spec_document=no_oob, base_revision=2)
    return design


def _figures(revision, network):
    summary = revision.summary["networks"][network]
    return summary["switches_total"], summary["cables_total"]


def test_api_diff_names_each_changed_network(api_client, seed_catalog, user):
    design = _designs(user)
    one, two, three = (design.revisions.get(number=n) for n in (1, 2, 3))
    body = api_client.get(f"{BASE}/designs/{design.pk}/diff/?from=1&to=2").json()
    networks = body["networks"]
    storage = networks["storage"]
    (was_switches, was_cables), (now_switches, now_cables) = (
        _figures(one, "storage"),
        _figures(two, "storage"),
    )
    assert now_switches > was_switches  # 1:1 needs more spines than 4:3
    assert storage["status"] == "changed"
    assert storage["switches"] == {
        "old": was_switches,
        "new": now_switches,
        "delta": now_switches - was_switches,
    }
    assert storage["cables"]["old"] == was_cables and storage["cables"]["new"] == now_cables
    assert storage["text"] == (
        f"storage: {was_switches} → {now_switches} switches "
        f"({now_switches - was_switches:+}), {was_cables} → {now_cables} cables "
        f"({now_cables - was_cables:+})"
    )
    spine = one.summary["networks"]["storage"]["switches"]["spine"]
    assert set(storage["switches_by_model"]) == {f"spine {model}" for model in spine}
    # the OOB network manages the new storage switches: one more Cat5e each
    oob = networks["oob"]
    assert oob["cables"]["delta"] == now_switches - was_switches
    assert "compute" not in networks and "inband" not in networks  # unchanged
    # the summary diff leaves the networks to "networks" (no lists of conventions there)
    assert not any(path.startswith("networks.") for path in body["summary"])

    removed = api_client.get(f"{BASE}/designs/{design.pk}/diff/?from=2&to=3").json()
    oob = removed["networks"]["oob"]
    assert oob["status"] == "removed"
    assert (oob["switches"]["old"], oob["switches"]["new"]) == (_figures(two, "oob")[0], 0)
    assert oob["text"].startswith("oob: removed (")
    assert "oob" not in three.summary["networks"]


def test_compute_fabric_is_one_of_the_networks(api_client, seed_catalog, user):
    design = design_create(owner=user, spec_document=SPEC)
    design_revise(design=design, user=user, spec_document={**SPEC, "servers": 63}, base_revision=1)
    one, two = design.revisions.get(number=1), design.revisions.get(number=2)
    body = api_client.get(f"{BASE}/designs/{design.pk}/diff/?from=1&to=2").json()
    compute = body["networks"]["compute"]
    assert compute["switches"]["old"] == one.summary["switches_total"]
    assert compute["switches"]["new"] == two.summary["switches_total"]
    assert compute["switches"]["delta"] < 0
    # fewer nodes: fewer storage, in-band and OOB ports and cables too
    for name in ("storage", "inband", "oob"):
        assert body["networks"][name]["cables"]["delta"] < 0, name


def test_diff_page_shows_each_network(logged_in_client, seed_catalog, user):
    design = _designs(user)
    one, two = design.revisions.get(number=1), design.revisions.get(number=2)
    page = logged_in_client.get(f"/designs/{design.pk}/diff/?from=1&to=2").content.decode()
    assert 'data-testid="networks-diff"' in page
    row = re.search(r'<tr data-network="storage" data-change="changed">(.*?)</tr>', page, re.S)
    assert row, page
    cells = re.findall(r'<td class="num">([^<]*)</td>', row.group(1))
    (was_switches, was_cables), (now_switches, now_cables) = (
        _figures(one, "storage"),
        _figures(two, "storage"),
    )
    assert cells == [
        str(was_switches),
        str(now_switches),
        f"{now_switches - was_switches:+}",
        str(was_cables),
        str(now_cables),
        f"{now_cables - was_cables:+}",
    ]
    assert "Storage: " in page and "Switches › spine QM9700" in page
    assert 'data-network="inband"' not in page  # unchanged
    assert "Networks › Storage › Switches" not in page  # the figures table leaves them out

    removed = logged_in_client.get(f"/designs/{design.pk}/diff/?from=2&to=3").content.decode()
    assert re.search(r'<tr data-network="oob" data-change="removed">', removed)

    same = logged_in_client.get(f"/designs/{design.pk}/diff/?from=1&to=1").content.decode()
    assert "The same switches and cables on every network." in same
