"""``make bench``: measure what the issues' targets name, write the results to a file.

Results go to ``.var/bench/results.json`` (and are printed). Benchmarks use their own SQLite
database under ``.var/bench`` (or ``DATABASE_URL`` when set) and never touch development data.
Each design size runs in a fresh process, so its peak memory (max RSS) is its own.

Targets (issue 4, on this 2-core machine): 100,000 GPUs generated with layout and media
<= 10 s, saved <= 10 s, loaded <= 5 s, peak memory <= 2 GB, near-linear growth 1k -> 100k.
"""

from __future__ import annotations

import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / ".var" / "bench"
DESIGN_GPUS = [1_024, 2_048, 4_096, 8_192, 16_384, 32_768, 65_536, 100_000]
TARGETS = {"generate_s": 10, "save_s": 10, "load_s": 5, "peak_rss_mb": 2048}


def _setup_django() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    if not os.environ.get("DATABASE_URL"):
        os.environ["DATABASE_URL"] = f"sqlite:///{OUT / 'bench.sqlite3'}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "planner.project.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def _timed(fn):
    started = time.perf_counter()
    value = fn()
    return value, round(time.perf_counter() - started, 3)


def _peak_rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def bench_catalog() -> dict:
    from inventory.models import CATEGORY_MODELS
    from inventory.selectors import works_with
    from inventory.services import catalog_export_csv, catalog_export_json, catalog_load

    report, load_s = _timed(catalog_load)
    _, reload_s = _timed(catalog_load)
    _, json_s = _timed(catalog_export_json)
    _, csv_s = _timed(lambda: [catalog_export_csv(c) for c in CATEGORY_MODELS])
    parts = [p for model in CATEGORY_MODELS.values() for p in model.objects.all()]
    _, works_s = _timed(lambda: [works_with(p) for p in parts])
    return {
        "parts": report.total,
        "seed_load_s": load_s,
        "seed_reload_s": reload_s,
        "export_json_s": json_s,
        "export_csv_all_s": csv_s,
        "works_with_every_part_s": works_s,
        "works_with_per_part_ms": round(works_s * 1000 / max(1, len(parts)), 1),
    }


def design_spec(gpus: int) -> dict:
    """The benchmark fabric: DGX-B300 (8 x 800G) on Quantum-X800 Q3400-RA, media auto."""
    return {
        "name": f"bench-{gpus}",
        "topology": "rail-optimized",
        "server": "DGX-B300",
        "servers": gpus // 8,
        "switches": {"leaf": "Q3400-RA"},
        "layout": {"servers_per_rack": 4},
    }


def save_revision(user, spec, packed: bytes, summary: dict):
    """A design with one generated revision holding ``packed`` (what a save writes)."""
    from planner.designs.models import Design, DesignRevision

    design = Design.objects.create(name=spec.name, owner=user)
    return DesignRevision.objects.create(
        design=design,
        number=1,
        spec=spec.as_dict(),
        topology=packed,
        summary=summary,
        kind="generated",
        created_by=user,
    )


def bench_design(gpus: int) -> dict:
    """One size, in this process: build, summarize, save and load."""
    from django.contrib.auth import get_user_model

    from planner.designs.adapters import catalog_facts, fabric_pack, fabric_unpack, price_of_factory
    from planner.designs.models import DesignRevision
    from planner.domain.pipeline import build_fabric
    from planner.domain.spec import parse_spec
    from planner.domain.summary import summarize

    user, _ = get_user_model().objects.get_or_create(username="bench")
    spec = parse_spec(design_spec(gpus))
    facts, facts_s = _timed(catalog_facts)
    price_of = price_of_factory()
    steps: dict[str, float] = {}

    def progress(done, total):
        steps[f"step_{done}_of_{total}_at_s"] = round(time.perf_counter() - started, 3)

    started = time.perf_counter()
    fabric, generate_s = _timed(
        lambda: build_fabric(spec, facts, price_of=price_of, on_progress=progress)
    )
    summary, summary_s = _timed(lambda: summarize(fabric, name=spec.name))
    packed, pack_s = _timed(lambda: fabric_pack(fabric))

    revision, write_s = _timed(lambda: save_revision(user, spec, packed, summary))
    loaded, load_s = _timed(
        lambda: fabric_unpack(DesignRevision.objects.get(pk=revision.pk).topology)
    )
    assert loaded.link_count == fabric.link_count
    return {
        "gpus": gpus,
        "servers": summary["servers"],
        "switches": summary["switches_total"],
        "links": fabric.link_count,
        "catalog_facts_s": facts_s,
        "generate_s": generate_s,
        **steps,
        "summary_s": summary_s,
        "save_s": round(pack_s + write_s, 3),
        "pack_s": pack_s,
        "db_write_s": write_s,
        "stored_mb": round(len(packed) / 2**20, 2),
        "load_s": load_s,
        "peak_rss_mb": _peak_rss_mb(),
    }


def _linearity(rows: list[dict]) -> dict:
    """Time per 1,000 GPUs at each size; near-linear growth keeps it roughly flat."""
    return {str(row["gpus"]): round(row["generate_s"] * 1000 / row["gpus"], 4) for row in rows}


def main(argv: list[str]) -> int:
    if argv[:1] == ["design"]:
        _setup_django()
        print(json.dumps(bench_design(int(argv[1]))))
        return 0
    _setup_django()
    from django.core.management import call_command

    db = OUT / "bench.sqlite3"
    if os.environ["DATABASE_URL"].startswith("sqlite") and db.exists():
        from django.db import connection

        connection.close()
        db.unlink()
    call_command("migrate", verbosity=0)
    results = {
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "database": os.environ["DATABASE_URL"].split(":", 1)[0],
        },
        "catalog": bench_catalog(),
        "targets": TARGETS,
    }
    rows = []
    for gpus in DESIGN_GPUS:
        out = subprocess.run(
            [sys.executable, "-m", "tests.bench", "design", str(gpus)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            env=os.environ.copy(),
        )
        if out.returncode:
            print(out.stderr, file=sys.stderr)
            return out.returncode
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
        print(
            f"  {gpus:>7,} GPUs: generate {rows[-1]['generate_s']} s, save "
            f"{rows[-1]['save_s']} s, load {rows[-1]['load_s']} s, peak "
            f"{rows[-1]['peak_rss_mb']} MB",
            flush=True,
        )
    largest = rows[-1]
    results["designs"] = {
        "fabric": "rail-optimized DGX-B300 on Q3400-RA, 3 tiers, media auto",
        "sizes": rows,
        "seconds_per_1000_gpus": _linearity(rows),
        "targets_met_at_100k": {key: largest[key] <= limit for key, limit in TARGETS.items()},
    }
    path = OUT / "results.json"
    path.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps({k: results[k] for k in ("catalog",)}, indent=2))
    print(json.dumps(results["designs"]["targets_met_at_100k"]))
    print(f"written to {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
