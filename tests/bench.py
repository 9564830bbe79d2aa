"""``make bench``: measure what the targets in the issues name, write results to a file.

Results go to ``.var/bench/results.json`` (and are printed). Each benchmark uses its own
SQLite database under ``.var/bench`` so it never touches the development data.
"""

from __future__ import annotations

import json
import os
import platform
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / ".var" / "bench"


def _timed(label, fn, results):
    started = time.perf_counter()
    value = fn()
    results[label] = round(time.perf_counter() - started, 4)
    return value


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    db = OUT / "bench.sqlite3"
    db.unlink(missing_ok=True)
    os.environ["DATABASE_URL"] = f"sqlite:///{db}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "planner.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    from inventory.models import CATEGORY_MODELS
    from inventory.selectors import works_with
    from inventory.services import catalog_export_csv, catalog_export_json, catalog_load

    call_command("migrate", verbosity=0)
    timings: dict[str, float] = {}
    report = _timed("catalog_seed_load_s", catalog_load, timings)
    _timed("catalog_seed_reload_s", catalog_load, timings)
    _timed("catalog_export_json_s", catalog_export_json, timings)
    _timed(
        "catalog_export_csv_all_categories_s",
        lambda: [catalog_export_csv(c) for c in CATEGORY_MODELS],
        timings,
    )
    parts = [p for model in CATEGORY_MODELS.values() for p in model.objects.all()]
    _timed("works_with_every_part_s", lambda: [works_with(p) for p in parts], timings)
    results = {
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
        },
        "catalog": {"parts": report.total, **timings},
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    path = OUT / "results.json"
    path.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))
    print(f"written to {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
