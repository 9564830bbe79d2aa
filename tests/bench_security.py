"""``make bench`` (security): a short hostile run, results in ``.var/bench/security.json``.

Two parts, each the project's own test run in a subprocess (so it gets pytest-django's test
database, PostgreSQL when ``DATABASE_URL`` is set, and tears it down):

1. Schemathesis with every check over every API operation
   (``tests/api/test_schema_fuzz.py``), ``BENCH_FUZZ_EXAMPLES`` (25) generated requests per
   operation instead of the suite's 10: requests sent, answers by status, server errors
   (target 0) and the operations that failed a check (target none).
2. Catalog and price-book writes by users without the catalog-editor permission
   (``tests/api/test_catalog_write_probe.py``): every write route of the catalog API and pages
   tried by a team viewer; the statuses they got (target: all 403).
3. The upload formats fuzzed (``tests/unit/test_upload_fuzz.py``: as-built cabling and counter
   files, specs, NetBox device types), ``BENCH_UPLOAD_EXAMPLES`` (200) examples per format
   instead of the suite's 40 (target: every file ends in its parser's own error or a result).

Run: ``python -m tests.bench_security``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / ".var" / "bench"
RESULT = OUT / "security.json"
EXAMPLES = int(os.environ.get("BENCH_FUZZ_EXAMPLES", "25"))
UPLOAD_EXAMPLES = int(os.environ.get("BENCH_UPLOAD_EXAMPLES", "200"))
TESTS = {
    "schema_fuzz": ("tests/api/test_schema_fuzz.py::test_api_operations_answer_as_documented"),
    "catalog_writes": "tests/api/test_catalog_write_probe.py",
    "upload_fuzz": "tests/unit/test_upload_fuzz.py",
}


def _run(test: str, stats_file: Path, extra_env: dict) -> dict:
    env = {**os.environ, **extra_env, "BENCH_STATS_FILE": str(stats_file)}
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--durations=0", test],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    stats = json.loads(stats_file.read_text()) if stats_file.exists() else {}
    return {
        **stats,
        "passed": proc.returncode == 0,
        "seconds": round(time.perf_counter() - started, 1),
        "output_tail": proc.stdout.strip().splitlines()[-3:] if proc.returncode else [],
    }


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    results: dict = {"targets": {"server_errors": 0, "non_editor_writes_allowed": 0}}
    with tempfile.TemporaryDirectory() as tmp:
        results["schema_fuzz"] = _run(
            TESTS["schema_fuzz"],
            Path(tmp) / "fuzz.json",
            {"FUZZ_EXAMPLES_PER_OPERATION": str(EXAMPLES)},
        )
        results["catalog_writes"] = _run(TESTS["catalog_writes"], Path(tmp) / "writes.json", {})
        results["upload_fuzz"] = _run(
            TESTS["upload_fuzz"],
            Path(tmp) / "uploads.json",
            {"FUZZ_UPLOAD_EXAMPLES": str(UPLOAD_EXAMPLES)},
        )
    fuzz, writes = results["schema_fuzz"], results["catalog_writes"]
    results["pass"] = bool(
        fuzz.get("passed")
        and fuzz.get("server_errors", 1) == 0
        and writes.get("passed")
        and writes.get("allowed", 1) == 0
        and results["upload_fuzz"]["passed"]
    )
    RESULT.write_text(json.dumps(results, indent=2))
    print(json.dumps(results, indent=2))
    print(f"written to {RESULT}")
    return 0 if results["pass"] else 1


if __name__ == "__main__":
    sys.exit(main())
