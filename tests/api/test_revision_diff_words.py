"""Revision diffs in words (issue 33 item 7), in the API and on the diff page: a canvas edit
of the GB300 preset (one length, two links swapped between spines, one rack moved) reads as
sentences with units, never as a Python repr, an internal index or a doubled label."""

from __future__ import annotations

import html
import re

import pytest

from planner.domain.presets import preset_get

BASE = "/api/planner"
REPR = re.compile(r"\{'|'\}|\['|\blink:?\s*\d+\b(?!/)|\bnp\.|\bNone\b")


@pytest.fixture
def edited(api_client, seed_catalog):
    """The preset saved, then edited on the canvas and saved as revision 2."""
    spec = preset_get("gb300-nvl72-xdr").spec
    design = api_client.post(f"{BASE}/designs/", {"spec": spec}, format="json").json()
    url = f"{BASE}/designs/{design['id']}"
    body = api_client.get(f"{url}/revisions/1/topology/").json()
    nodes, links = body["nodes"], body["links"]
    first = next(i for i, link in enumerate(links) if link["b"].startswith("spine"))
    longer, one, two = links[first], links[first + 4], links[first + 5]
    was = {"length": longer["length_m"], "ends": (one["b"], two["b"]), "x": nodes[0]["x"]}
    longer["length_m"] = 25
    one["b"], one["b_port"], two["b"], two["b_port"] = (
        two["b"],
        two["b_port"],
        one["b"],
        one["b_port"],
    )
    nodes[0]["x"] += 100
    saved = api_client.put(
        f"{url}/topology/",
        {"base_revision": 1, "message": "canvas edit", "nodes": nodes, "links": links},
        format="json",
    )
    assert saved.status_code == 201, saved.content
    return design, longer, nodes[0], was


def test_api_diff_says_each_change_in_words(api_client, edited):
    design, longer, node, was = edited
    body = api_client.get(f"{BASE}/designs/{design['id']}/diff/?from=1&to=2").json()
    fabric = body["fabric"]
    assert fabric["counts"]["links"] == {"added": 2, "removed": 2, "changed": 1}
    assert fabric["counts"]["devices"] == {"added": 0, "removed": 0, "changed": 1}
    texts = [change["text"] for change in fabric["changes"]]
    (length,) = [t for t in texts if "length" in t]
    assert length.startswith(f"link {longer['a']} ") and f" → {longer['b']} " in length
    assert f"length {was['length']:g} m → 25 m" in length
    x, y = int(was["x"]), int(node["y"])
    assert f"{node['name']}: position on the canvas ({x:,}, {y:,}) → ({x + 100:,}, {y:,})" in texts
    assert sum(t.endswith(")") and " removed (was 800 Gb/s, " in t for t in texts) == 2
    # every summary change carries its sentence, with units
    assert body["summary"] and all(REPR.search(c["text"]) is None for c in body["summary"].values())
    for text in texts:
        assert REPR.search(text) is None, text


def test_diff_page_has_no_repr_and_no_doubled_label(logged_in_client, edited):
    design, longer, _, was = edited
    page = logged_in_client.get(f"/designs/{design['id']}/diff/?from=1&to=2")
    assert page.status_code == 200
    body = page.content.decode()
    # the spec parameters the edit made untrue, if any, each named once ("rails: rails:" was)
    stale = re.search(r'<div data-testid="stale-parameters">.*?</div>', body, re.S)
    if stale is not None:
        assert not re.search(r"\b(\w+)\s*:\s*\1:", re.sub(r"<[^>]+>", " ", stale.group()))
        # its messages are the edit checks' own (planner.domain.edits: "link:0 joins ...", the
        # false alarm of issue 33 item 2, fixed on its own branch): not this test's to read
        body = body.replace(stale.group(), "")
    text = html.unescape(re.sub(r"<[^>]+>", " ", body))
    main = text[text.index("Revision 1 → 2") :]
    assert f"length {was['length']:g} m → 25 m" in main
    assert REPR.search(main) is None, REPR.search(main)
    assert re.search(r"\b25(\.0)? m\b", main) and "25.0 m" not in main
    assert "Optical budget › Margin min" in main and " dB" in main


def test_a_spec_change_reads_as_the_setting_and_both_values(api_client, seed_catalog):
    spec = {**preset_get("gb300-nvl72-xdr").spec, "transport": {"adaptive_routing": True}}
    design = api_client.post(f"{BASE}/designs/", {"spec": spec}, format="json").json()
    url = f"{BASE}/designs/{design['id']}"
    static = {**spec, "transport": {"adaptive_routing": False, "mtu_b": 2048}}
    saved = api_client.post(
        f"{url}/revisions/", {"spec": static, "base_revision": 1}, format="json"
    )
    assert saved.status_code == 201, saved.content
    body = api_client.get(f"{url}/diff/?from=1&to=2").json()
    texts = {path: change["text"] for path, change in body["spec"].items()}
    assert texts["transport.adaptive_routing"] == "Transport › Adaptive routing: yes → no"
    assert texts["transport.mtu_b"] == "Transport › Mtu: not set → 2,048 bytes"
    assert body["fabric"] is None or not body["fabric"]["counts"]["links"]["changed"]
