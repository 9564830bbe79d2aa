"""``make bench`` (outputs): stream the cabling plan CSV of a design with over 100,000 cables.

The fabric is the benchmark family of :mod:`tests.bench` at 100,000 GPUs (12,500 DGX-B300 on
Q3400-RA, media auto: about 300,000 links, every one a row). It is built in this process from
the seed catalog files (no database): what is measured is the stream itself, the generator of
CSV lines that the download view and the CLI write out.

Two passes over the same fabric:

1. timed: every line is produced and written to ``os.devnull``; seconds, rows, MB, and the
   process RSS before and after the stream;
2. traced: the same stream under ``tracemalloc``, in two parts: the peak while it prepares
   (per-node strings and the NumPy arrays that find breakout legs, freed before the first
   row) and the peak growth while it streams every row after the first. A flat stream keeps
   the second small and independent of the number of rows: both are also measured on a
   fabric 1/8 the size, for comparison.

Targets (issue 8): <= 5 s for >= 100,000 cables, flat memory. Results go to
``.var/bench/outputs.json`` (and are printed).
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / ".var" / "bench"
TARGET_S = 5.0
MIN_CABLES = 100_000
GPUS = 100_000


def _rss_mb() -> float:
    """Current resident set size (Linux /proc), in MB."""
    try:
        with open("/proc/self/statm") as handle:
            pages = int(handle.read().split()[1])
        return round(pages * os.sysconf("SC_PAGE_SIZE") / 2**20, 1)
    except OSError:  # pragma: no cover - not Linux
        return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def _fabric(gpus: int):
    from inventory.library.files import read_catalog_folder
    from planner.domain.catalog import facts_from_records
    from planner.domain.pipeline import build_fabric
    from planner.domain.spec import parse_spec
    from tests.bench import design_spec

    facts = facts_from_records(read_catalog_folder(ROOT / "inventory" / "library" / "seed").parts)
    return build_fabric(parse_spec(design_spec(gpus)), facts), facts


def _stream(fabric, facts) -> tuple[int, int]:
    from planner.domain.outputs import cabling_csv_lines

    rows = chars = 0
    with open(os.devnull, "w", encoding="utf-8") as sink:
        for line in cabling_csv_lines(fabric, facts):
            sink.write(line)
            rows += 1
            chars += len(line)
    return rows - 1, chars


def _traced_peaks_mb(fabric, facts) -> tuple[float, float]:
    """(peak while preparing the stream, up to its first line; peak growth while streaming
    the rows after it), both above what was allocated before, in MB."""
    from planner.domain.outputs import cabling_csv_lines

    tracemalloc.start()
    before, _ = tracemalloc.get_traced_memory()
    tracemalloc.reset_peak()
    lines = cabling_csv_lines(fabric, facts)
    next(lines)  # the header
    next(lines)  # the first row: per-node strings and breakout arrays are ready
    start, setup_peak = tracemalloc.get_traced_memory()
    tracemalloc.reset_peak()
    with open(os.devnull, "w", encoding="utf-8") as sink:
        for line in lines:
            sink.write(line)
    _, stream_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return round((setup_peak - before) / 2**20, 2), round((stream_peak - start) / 2**20, 2)


def bench_cabling_stream() -> dict:
    fabric, facts = _fabric(GPUS)
    cables = int((fabric.link_cable >= 0).sum()) if fabric.link_cable is not None else 0
    rss_before = _rss_mb()
    started = time.perf_counter()
    rows, chars = _stream(fabric, facts)
    seconds = round(time.perf_counter() - started, 3)
    rss_after = _rss_mb()
    setup_mb, stream_mb = _traced_peaks_mb(fabric, facts)
    small, small_facts = _fabric(GPUS // 8)
    small_setup_mb, small_stream_mb = _traced_peaks_mb(small, small_facts)
    return {
        "gpus": GPUS,
        "links": fabric.link_count,
        "rows": rows,
        "cables": cables,
        "csv_mb": round(chars / 2**20, 1),
        "stream_s": seconds,
        "rows_per_s": round(rows / seconds) if seconds else None,
        "rss_before_mb": rss_before,
        "rss_after_mb": rss_after,
        "rss_growth_mb": round(rss_after - rss_before, 1),
        "traced_setup_peak_mb": setup_mb,
        "traced_stream_growth_mb": stream_mb,
        "rows_at_one_eighth_size": small.link_count,
        "traced_setup_peak_at_one_eighth_size_mb": small_setup_mb,
        "traced_stream_growth_at_one_eighth_size_mb": small_stream_mb,
        "target_s": TARGET_S,
        "meets_target": seconds <= TARGET_S and rows >= MIN_CABLES,
    }


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(ROOT))
    result = {"cabling_csv": bench_cabling_stream()}
    (OUT / "outputs.json").write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
