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

Targets (issue 8): <= 5 s for >= 100,000 cables, flat memory.

Then the quote PDF of the H100 SuperPOD 4 SU preset (issue 37 item 8: <= 1 s), through the
download view in the bench database (``tests.bench`` sets it up: ``.var/bench``, or
``DATABASE_URL``), at the seed price book: the internal and the customer's copy, each made
fresh (the first download, and again after the quote is edited) and then again unchanged
(read from the cache, keyed by everything the file prints).

Results go to ``.var/bench/outputs.json`` (and are printed).
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


QUOTE_PRESET = "h100-superpod-4su"
QUOTE_TARGET_S = 1.0


def bench_quote_pdf() -> dict:
    """Seconds to download the 4 SU preset's quote PDF (module docstring)."""
    from tests.bench import _setup_django

    _setup_django()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client
    from django.urls import reverse

    from inventory.models import PriceBook
    from inventory.services import SEED_PRICE_BOOK, catalog_load
    from planner.designs.services import design_create
    from planner.domain.presets import preset_get
    from planner.quotes.services import quote_create, quote_update

    call_command("migrate", verbosity=0)
    catalog_load()
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    user, _ = get_user_model().objects.get_or_create(
        username="bench-quote", defaults={"is_staff": True, "is_superuser": True}
    )
    design = design_create(owner=user, spec_document=preset_get(QUOTE_PRESET).spec)
    book = PriceBook.objects.get(slug=SEED_PRICE_BOOK)
    quote = quote_create(design=design, actor=user, customer="Bench", price_book=book)
    client = Client()
    client.force_login(user)
    url = reverse("planner:quote-download", args=[design.pk, quote.pk, "pdf"])

    def download(audience: str) -> tuple[float, int]:
        started = time.perf_counter()
        response = client.get(url, {"audience": audience})
        seconds = time.perf_counter() - started
        assert response.status_code == 200, response.status_code
        return round(seconds, 3), len(response.content)

    result = {"preset": QUOTE_PRESET, "price_book": SEED_PRICE_BOOK}
    for audience in ("internal", "customer"):
        first, size = download(audience)
        again, _ = download(audience)
        quote = quote_update(quote=quote, actor=user, notes=f"bench {audience}")
        edited, _ = download(audience)
        result[audience] = {
            "first_s": first,
            "unchanged_again_s": again,
            "after_edit_s": edited,
            "pdf_kb": round(size / 1024, 1),
        }
    worst = max(
        max(v["first_s"], v["after_edit_s"])
        for k, v in result.items()
        if k in ("internal", "customer")
    )
    result.update(
        target_s=QUOTE_TARGET_S, worst_fresh_s=worst, meets_target=worst <= QUOTE_TARGET_S
    )
    return result


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(ROOT))
    result = {"cabling_csv": bench_cabling_stream(), "quote_pdf": bench_quote_pdf()}
    (OUT / "outputs.json").write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
