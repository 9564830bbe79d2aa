"""Published designs against the explorer's front (issue 39 item 5).

For each reference architecture the requirements state its size and the neighbourhood an
architect would weigh (other switches of the same generation, the other transport, clos
against rail-optimized, 1:1 to 2:1), with the published design's own choices that are not
axes (scalable-unit size, UFM ports, media, rack) as ``base``. The published spec is then
evaluated with the same requirements and placed against the front
(:func:`planner.analyses.explore.front.distance_to_front`). Costs are the seed price book's
(``inventory/library/seed/prices.yaml``); objectives: cost, collective time, power and
bisection. Each test prints how far the nearest front point is and why.
"""

from pathlib import Path

import pytest
import yaml

from planner.analyses.explore.candidates import Candidate, enumerate_candidates
from planner.analyses.explore.evaluate import evaluate_candidate
from planner.analyses.explore.front import distance_to_front, explore_result
from planner.analyses.explore.requirements import parse_requirements

EXAMPLES = Path(__file__).resolve().parents[3] / "planner" / "domain" / "examples"
OBJECTIVES = ["cost", "collective_time_s", "power_w", "bisection_gbps"]

CASES = {
    # NVIDIA DGX SuperPOD H100, 4 SU (RA-11333-001): 127 DGX H100, QM9700, NDR 400G, rail.
    "h100-superpod-4su": {
        "gpus": 1016,
        "servers": ["DGX-H100"],
        "switches": ["QM9700", "QM9790", "SN5600", "QFX5240-64OD"],
        "topologies": ["rail-optimized", "clos"],
        "tiers": [2],
        "oversubscription": [1, 2],
        "base": {
            "servers_per_su": 32,
            "reserved_leaf_ports": 4,
            "media": {"server-leaf": "MMF", "leaf-spine": "MMF"},
            "layout": {"rack": "DGX-H100-SuperPOD-rack"},
        },
    },
    # DGX B300 on Quantum-X800 XDR: 288 DGX B300, Q3400-RA, one 800G port per GPU.
    "b300-xdr-rail": {
        "gpus": 2304,
        "servers": ["DGX-B300"],
        "switches": ["Q3400-RA", "SN5600"],
        "planes": [1, 2],
        "topologies": ["rail-optimized"],
        "tiers": [2],
        "oversubscription": [1, 2],
        "base": {"layout": {"servers_per_rack": 4}},
    },
    # Juniper AI DC JVD: QFX5240-64OD leaves and spines at 400GE, two stripes of 32 servers.
    "juniper-jvd-qfx5240": {
        "gpus": 512,
        "servers": ["DGX-H100"],
        "switches": ["QFX5240-64OD", "SN5600", "7060X6-32PE"],
        "transports": ["ethernet"],
        "topologies": ["rail-optimized", "clos"],
        "tiers": [2],
        "oversubscription": [1, 2],
        "base": {"servers_per_su": 32},
    },
}


def _published(slug: str) -> dict:
    return yaml.safe_load((EXAMPLES / f"{slug}.yaml").read_text())


@pytest.mark.parametrize("slug", sorted(CASES))
def test_the_published_design_is_on_or_near_the_front(slug, facts, seed_prices):
    table, price_of = seed_prices
    req = parse_requirements({"name": slug, "objectives": OBJECTIVES, **CASES[slug]}, facts)
    enumeration = enumerate_candidates(req, facts, price_of=price_of)
    evaluations = {
        c.index: evaluate_candidate(c, req, facts, prices=table, price_of=price_of)
        for c in enumeration.candidates
    }
    result = explore_result(req, enumeration, evaluations)
    assert result["counts"]["crashed"] == 0
    document = _published(slug)
    published = evaluate_candidate(
        Candidate(-1, "published", {}, document, document["name"]),
        req,
        facts,
        prices=table,
        price_of=price_of,
    )
    assert published["status"] == "feasible", published["reasons"]
    distance = distance_to_front(published, result)
    gaps = distance["gaps"]
    m = published["metrics"]
    print(
        f"\n{slug}: {document['name']}: cost {m['cost']:,.0f} {m['currency']}, power "
        f"{m['power_w'] / 1000:,.1f} kW, all-reduce {m['collective_time_s'] * 1e3:.3f} ms; "
        f"{result['counts']['feasible']} feasible candidates, {len(result['front'])} on the "
        f"front.\n  {distance['why']}\n  nearest front point vs published: "
        + ", ".join(
            f"{name} {gaps[name]:+.1%}" for name in ("cost", "power_w", "collective_time_s")
        )
    )
    # On the front, or the nearest front point within 5 % on cost, power and time.
    assert distance["on_front"] or all(
        abs(gaps[name]) <= 0.05 for name in ("cost", "power_w", "collective_time_s")
    ), distance
    # The candidate with the published axes is among those the explorer built.
    spec_switch = document["switches"]["leaf"]
    same = [
        r
        for r in result["candidates"]
        if r["axes"]["leaf"] == spec_switch
        and r["axes"]["topology"] == document["topology"]
        and r["axes"]["oversubscription"] == 1.0
        and r["axes"]["planes"] == 1
    ]
    assert same and same[0]["status"] == "feasible"
