"""``make bench`` (whole cluster): the 100,000-GPU design with every network of a cluster.

Issue 18 asks that a 100k-GPU whole-cluster design "still generates, saves and streams its
cabling plan within today's targets". The design is the benchmark family of
:mod:`tests.bench` at 100,000 GPUs (12,500 DGX-B300 on Q3400-RA, media auto) plus a storage
fabric (SN5600 at 400G, two ports per node), an in-band network (SN5600 at 400G, a bonded pair
per node) and the out-of-band network (SN2201); all three outgrow two tiers at that size. The
same design without its ``networks`` block is measured beside it.

Measured, in one process on the embedded database (or ``DATABASE_URL``): build (generate,
layout, media, the networks' sizing and their concrete elements), summary, save
(pack + one row written), load, the stored network elements decoded on first read
(``elements_s``), and the cabling plan CSV streamed to ``os.devnull`` (every
compute and network row). Targets (issues 4 and 8, unchanged): generate <= 10 s, save <= 10 s,
load <= 5 s, peak memory <= 2 GB, the cabling plan at >= 20,000 rows/s (100,000 cables in
<= 5 s). Results go to ``.var/bench/cluster.json`` (and are printed).
"""

from __future__ import annotations

import json
import os
import sys
import time

from tests.bench import (
    OUT,
    ROOT,
    _peak_rss_mb,
    _setup_django,
    _timed,
    design_spec,
    save_revision,
)

GPUS = 100_000
NETWORKS = {
    "storage": {"leaf": "SN5600", "speed_gbps": 400},
    "inband": {"leaf": "SN5600", "speed_gbps": 400},
    "oob": {"leaf": "SN2201"},
}
TARGETS = {"generate_s": 10, "save_s": 10, "load_s": 5, "peak_rss_mb": 2048}
MIN_ROWS_PER_S = 20_000


def _stream(fabric, facts) -> tuple[int, float]:
    from planner.domain.outputs import cabling_csv_lines

    rows = 0
    started = time.perf_counter()
    with open(os.devnull, "w", encoding="utf-8") as sink:
        for line in cabling_csv_lines(fabric, facts):
            sink.write(line)
            rows += 1
    return rows - 1, round(time.perf_counter() - started, 3)


def bench_cluster(with_networks: bool) -> dict:
    from django.contrib.auth import get_user_model

    from planner.designs.adapters import catalog_facts, fabric_pack, fabric_unpack, price_of_factory
    from planner.designs.models import DesignRevision
    from planner.domain.networks.elements import network_elements
    from planner.domain.pipeline import build_fabric
    from planner.domain.spec import parse_spec
    from planner.domain.summary import summarize

    user, _ = get_user_model().objects.get_or_create(username="bench")
    document = design_spec(GPUS)
    if with_networks:
        document = {**document, "name": f"cluster-{GPUS}", "networks": NETWORKS}
    spec = parse_spec(document)
    facts = catalog_facts()
    fabric, generate_s = _timed(lambda: build_fabric(spec, facts, price_of=price_of_factory()))
    summary, summary_s = _timed(lambda: summarize(fabric, name=spec.name))
    packed, pack_s = _timed(lambda: fabric_pack(fabric))

    revision, write_s = _timed(lambda: save_revision(user, spec, packed, summary))
    loaded, load_s = _timed(
        lambda: fabric_unpack(DesignRevision.objects.get(pk=revision.pk).topology)
    )
    assert loaded.link_count == fabric.link_count
    assert loaded.settings.networks == fabric.settings.networks
    # the networks' elements as stored (built once by build_fabric), decoded on first read
    elements, elements_s = _timed(lambda: network_elements(loaded, facts))
    assert elements == network_elements(fabric, facts)
    rows, stream_s = _stream(loaded, facts)
    networks = summary.get("networks") or {}
    return {
        "gpus": GPUS,
        "networks": sorted(networks),
        "compute_links": fabric.link_count,
        "network_switches": {
            name: plan["switches_total"] for name, plan in networks.items() if plan["switches"]
        },
        "network_links": len(elements.links),
        "generate_s": generate_s,
        "summary_s": summary_s,
        "elements_s": elements_s,
        "save_s": round(pack_s + write_s, 3),
        "load_s": load_s,
        "cabling_rows": rows,
        "cabling_stream_s": stream_s,
        "cabling_rows_per_s": round(rows / stream_s) if stream_s else None,
        "peak_rss_mb": _peak_rss_mb(),
    }


def main(argv: list[str]) -> int:
    _setup_django()
    if argv[:1] == ["one"]:
        print(json.dumps(bench_cluster(argv[1] == "networks")))
        return 0
    import subprocess

    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("load_catalog", verbosity=0)
    results = {"when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "targets": TARGETS}
    for kind in ("compute-only", "networks"):
        out = subprocess.run(  # a process each: its own peak memory
            [sys.executable, "-m", "tests.bench_cluster", "one", kind],
            cwd=ROOT,
            capture_output=True,
            text=True,
            env=os.environ.copy(),
        )
        if out.returncode:
            print(out.stderr, file=sys.stderr)
            return out.returncode
        results[kind] = json.loads(out.stdout.strip().splitlines()[-1])
    cluster = results["networks"]
    results["targets_met"] = {
        **{key: cluster[key] <= limit for key, limit in TARGETS.items()},
        "cabling_rows_per_s": (cluster["cabling_rows_per_s"] or 0) >= MIN_ROWS_PER_S,
    }
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / "cluster.json"
    path.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))
    print(f"written to {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
