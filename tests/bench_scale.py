"""``make bench`` (scale, issue 21): a curve from 1,024 to 1,048,576 GPUs, every step timed.

The family is the 1M-GPU example (``planner/domain/examples/scale/gigawatt-campus-1m.yaml``):
DGX B300 on Quantum-X800 Q3400-RA, rail-optimized, three tiers with 3:1 leaves, in four
buildings 800 m apart, at ``servers = gpus / 8``. Each size runs in a fresh process (its peak
memory is its own) and measures:

- ``generate_s``: topology, layout and media (``build_fabric``), with each step's time;
- ``save_s`` = ``pack_s`` (zlib JSON of the columns) + ``db_write_s`` (one revision row);
  ``stored_mb`` is the packed revision; ``load_s`` reads the row and unpacks it;
- ``summary_s``, ``validation_s`` (every rule, whole fabric), ``power_s``;
- ``canvas_overview_s``: the canvas's aggregated overview (SU and core groups);
- ``diff_s``: what the design's history shows between two revisions (a second revision with
  64 servers less, stored in the same design: both rows read, summaries, specs and topologies
  compared; ``planner.designs.services.revision_changes``);
- ``csv_rows_per_s``: the cabling plan CSV streamed to ``os.devnull``, and the RSS growth
  while it streams (``csv_rss_growth_mb``: flat when it stays small at every size);
- ``peak_rss_mb``: the process's maximum resident set (``ru_maxrss``).

Storage (item 5): every revision stores its whole packed topology (``DesignRevision.topology``,
a ``bytea``), a full copy, not a delta; the largest stays far below PostgreSQL's 1 GB field
limit (``stored_mb`` against ``pg_field_limit_mb``).

The published shapes of ``examples/scale`` (131,072-GPU OCI Supercluster, 100,000-GPU Colossus,
524,288-GPU campus) are built and validated as well, each in its own process.

Targets (2 cores, shared with other work, so timings are noisy): generate <= 30 s, save
<= 30 s, load <= 15 s, summary / validation / power <= 60 s each, peak <= 4 GB, CSV >= 200,000
rows/s, canvas overview <= 3 s, at 1,048,576 GPUs. Results go to ``.var/bench/scale.json``;
the exit status is 1 when a target is missed or a size fails to build.
``python -m tests.bench_scale 1024 8192`` runs only those sizes (no examples).
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
SIZES = [1_024, 8_192, 65_536, 262_144, 1_048_576]
EXAMPLES = ROOT / "planner" / "domain" / "examples" / "scale"
TARGETS = {
    "generate_s": 30,
    "save_s": 30,
    "load_s": 15,
    "summary_s": 60,
    "validation_s": 60,
    "power_s": 60,
    "canvas_overview_s": 3,
    "peak_rss_mb": 4096,
}
MIN_CSV_ROWS_PER_S = 200_000
PG_FIELD_LIMIT_MB = 1024


def _setup_django() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    if not os.environ.get("DATABASE_URL"):
        os.environ["DATABASE_URL"] = f"sqlite:///{OUT / 'scale.sqlite3'}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "planner.project.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def _timed(fn):
    started = time.perf_counter()
    value = fn()
    return value, round(time.perf_counter() - started, 3)


def _rss_mb() -> float:
    with open("/proc/self/statm") as handle:
        pages = int(handle.read().split()[1])
    return round(pages * os.sysconf("SC_PAGE_SIZE") / 2**20, 1)


def _peak_rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def family_spec(gpus: int) -> dict:
    """The 1M example's spec at ``gpus`` GPUs (``gpus / 8`` DGX B300)."""
    from planner.domain.spec import load_spec_text

    spec = load_spec_text((EXAMPLES / "gigawatt-campus-1m.yaml").read_text())
    return {**spec, "name": f"scale-{gpus}", "servers": gpus // 8}


def _stream_csv(fabric, facts) -> dict:
    from planner.domain.outputs.cabling import cabling_csv_lines

    before = _rss_mb()
    rows = 0
    high = before
    started = time.perf_counter()
    with open(os.devnull, "w") as sink:
        for rows, line in enumerate(cabling_csv_lines(fabric, facts)):
            sink.write(line)
            if rows % 200_000 == 0:
                high = max(high, _rss_mb())
    seconds = time.perf_counter() - started
    return {
        "csv_rows": rows,  # data rows (the header is line 0)
        "csv_s": round(seconds, 3),
        "csv_rows_per_s": round(rows / seconds) if seconds else 0,
        "csv_rss_growth_mb": round(max(high, _rss_mb()) - before, 1),
    }


def bench_size(gpus: int) -> dict:
    """One size, in this process."""
    from django.contrib.auth import get_user_model

    from planner.analyses.power import power_budget
    from planner.analyses.validate import validate_fabric
    from planner.designs.adapters import catalog_facts, fabric_pack, fabric_unpack
    from planner.designs.models import DesignRevision
    from planner.designs.services import revision_changes
    from planner.domain.canvas import overview_elements
    from planner.domain.pipeline import build_fabric
    from planner.domain.spec import parse_spec
    from planner.domain.summary import summarize
    from tests.bench import save_revision

    user, _ = get_user_model().objects.get_or_create(username="bench-scale")
    spec = parse_spec(family_spec(gpus))
    facts = catalog_facts()
    steps: dict[str, float] = {}
    started = time.perf_counter()

    def progress(done, total):
        steps[f"step_{done}_of_{total}_at_s"] = round(time.perf_counter() - started, 3)

    fabric, generate_s = _timed(lambda: build_fabric(spec, facts, on_progress=progress))
    summary, summary_s = _timed(lambda: summarize(fabric, name=spec.name))
    report, validation_s = _timed(lambda: validate_fabric(fabric, facts))
    power, power_s = _timed(lambda: power_budget(fabric, facts))
    overview, overview_s = _timed(lambda: overview_elements(fabric))
    packed, pack_s = _timed(lambda: fabric_pack(fabric))
    revision, write_s = _timed(lambda: save_revision(user, spec, packed, summary))
    loaded, load_s = _timed(
        lambda: fabric_unpack(DesignRevision.objects.get(pk=revision.pk).topology)
    )
    assert loaded.link_count == fabric.link_count
    del loaded
    # A second revision (one SU of 64 servers less), stored in the same design; the diff the
    # design's history shows reads both rows and compares summaries, specs and topologies.
    smaller_spec = parse_spec({**family_spec(gpus), "servers": gpus // 8 - 64})
    smaller = build_fabric(smaller_spec, facts)
    second = DesignRevision.objects.create(
        design=revision.design,
        number=2,
        spec=smaller_spec.as_dict(),
        topology=fabric_pack(smaller),
        summary=summarize(smaller),
        kind="generated",
        created_by=user,
        parent=1,
    )
    del smaller
    changes, diff_s = _timed(
        lambda: revision_changes(
            DesignRevision.objects.get(pk=revision.pk), DesignRevision.objects.get(pk=second.pk)
        )
    )
    assert changes["topology_changed"] and changes["summary"]
    csv = _stream_csv(fabric, facts)
    campus = summary.get("campus") or {}
    return {
        "gpus": gpus,
        "servers": summary["servers"],
        "switches": summary["switches_total"],
        "links": fabric.link_count,
        "campus_links": campus.get("links", 0),
        "generate_s": generate_s,
        **steps,
        "summary_s": summary_s,
        "validation_s": validation_s,
        "validation_errors": sum(1 for p in report.problems if p.severity == "error"),
        "power_s": power_s,
        "power_total_kw": round(power.total_w / 1000, 1) if power.total_w else None,
        "canvas_overview_s": overview_s,
        "canvas_overview_elements": sum(len(v) for v in overview["elements"].values()),
        "save_s": round(pack_s + write_s, 3),
        "pack_s": pack_s,
        "db_write_s": write_s,
        "stored_mb": round(len(packed) / 2**20, 2),
        "load_s": load_s,
        "diff_s": diff_s,
        **csv,
        "peak_rss_mb": _peak_rss_mb(),
    }


def bench_example(path: Path) -> dict:
    """Build and validate one example of ``examples/scale``, in this process."""
    from planner.analyses.validate import validate_fabric
    from planner.designs.adapters import catalog_facts
    from planner.domain.pipeline import build_fabric
    from planner.domain.spec import load_spec_text, parse_spec
    from planner.domain.summary import summarize

    facts = catalog_facts()
    spec = parse_spec(load_spec_text(path.read_text()))
    fabric, generate_s = _timed(lambda: build_fabric(spec, facts))
    summary, summary_s = _timed(lambda: summarize(fabric, name=spec.name))
    report, validation_s = _timed(lambda: validate_fabric(fabric, facts))
    return {
        "example": path.stem,
        "gpus": summary["gpus"],
        "links": fabric.link_count,
        "campus_links": (summary.get("campus") or {}).get("links", 0),
        "generate_s": generate_s,
        "summary_s": summary_s,
        "validation_s": validation_s,
        "validation_errors": sorted({p.code for p in report.problems if p.severity == "error"}),
        "peak_rss_mb": _peak_rss_mb(),
    }


def _child(args: list[str]) -> dict:
    out = subprocess.run(
        [sys.executable, "-m", "tests.bench_scale", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=os.environ.copy(),
    )
    if out.returncode:
        return {"failed": " ".join(args), "error": out.stderr.strip().splitlines()[-5:]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str]) -> int:
    if argv[:1] == ["size"]:
        _setup_django()
        print(json.dumps(bench_size(int(argv[1]))))
        return 0
    if argv[:1] == ["example"]:
        _setup_django()
        print(json.dumps(bench_example(Path(argv[1]))))
        return 0
    _setup_django()
    from django.core.management import call_command

    from inventory.services import catalog_load

    call_command("migrate", verbosity=0)
    catalog_load()
    sizes = [int(a) for a in argv] or SIZES
    rows = []
    for gpus in sizes:
        row = _child(["size", str(gpus)])
        rows.append(row)
        print(
            f"  {gpus:>9,} GPUs: "
            + ", ".join(
                f"{k} {row[k]}"
                for k in (
                    "links",
                    "generate_s",
                    "save_s",
                    "load_s",
                    "summary_s",
                    "validation_s",
                    "power_s",
                    "canvas_overview_s",
                    "csv_rows_per_s",
                    "stored_mb",
                    "peak_rss_mb",
                )
                if k in row
            )
            + (f" FAILED {row.get('error')}" if "failed" in row else ""),
            flush=True,
        )
    examples = (
        [] if argv else [_child(["example", str(p)]) for p in sorted(EXAMPLES.glob("*.yaml"))]
    )
    for example in examples:
        print(f"  example {example.get('example', example.get('failed'))}: {example}", flush=True)
    built = [row for row in rows if "failed" not in row]
    largest = max(built, key=lambda r: r["gpus"]) if built else {}
    met = {key: largest.get(key, float("inf")) <= limit for key, limit in TARGETS.items()}
    met["csv_rows_per_s"] = largest.get("csv_rows_per_s", 0) >= MIN_CSV_ROWS_PER_S
    results = {
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "database": os.environ["DATABASE_URL"].split(":", 1)[0],
            "note": "2 cores shared with other work: timings are noisy",
        },
        "family": "gigawatt-campus-1m.yaml at gpus / 8 DGX B300 "
        "(Q3400-RA, 3 tiers, 3:1, 4 buildings)",
        "sizes": rows,
        "seconds_per_1000_gpus": {
            str(r["gpus"]): round(r["generate_s"] * 1000 / r["gpus"], 4) for r in built
        },
        "storage": {
            "revision_is_full_copy": True,
            "note": "DesignRevision.topology holds each revision's whole packed fabric (zlib "
            "JSON), not a delta from its parent",
            "largest_stored_mb": largest.get("stored_mb"),
            "pg_field_limit_mb": PG_FIELD_LIMIT_MB,
        },
        "examples": examples,
        "targets": {**TARGETS, "csv_rows_per_s": MIN_CSV_ROWS_PER_S},
        "targets_met_at": largest.get("gpus"),
        "targets_met": met,
    }
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / "scale.json"
    path.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(met))
    print(f"written to {path.relative_to(ROOT)}")
    failed = any("failed" in r for r in rows + examples)
    return 0 if all(met.values()) and not failed else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
