"""Take the walkthrough's screenshots (docs/pages/img/*.png) from a running Fabric Planner.

Run against a server with the seed catalog loaded (``make run``, or ``manage.py serve --port P``
after ``migrate`` and ``load_catalog``) and an account that has the price right (the local admin
of ``make run``)::

    .venv/bin/python docs/screenshots.py http://127.0.0.1:8000 admin PASSWORD

It walks the README's ten minutes as a user would: the wizard from a reference design, the
design page, the canvas, a validation and a flow simulation on a worker, the BOM, a quote and an
as-built check of a mis-cabled LLDP table made from the design's own cabling plan. Each page is
kept at 1280 x 800 and saved as a 256-colour PNG (Pillow), so every image stays small (< 150 KB).
Chromium is Debian's (``/usr/bin/chromium``, or ``CHROMIUM_PATH``), as in the browser tests.
"""

from __future__ import annotations

import csv
import io
import os
import re
import sys
from pathlib import Path

from PIL import Image
from playwright.sync_api import expect, sync_playwright

IMG = Path(__file__).resolve().parent / "pages" / "img"
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
VIEWPORT = {"width": 1280, "height": 800}
#: A job on a loaded two-core machine may wait for the worker; screenshots wait as long.
JOB_TIMEOUT_MS = 120_000


def save(page, name: str) -> Path:
    """Screenshot the viewport into ``docs/pages/img/NAME.png`` as a 256-colour PNG."""
    raw = page.screenshot()
    image = Image.open(io.BytesIO(raw)).convert("RGB")
    path = IMG / f"{name}.png"
    image.quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)
    print(f"{path.relative_to(IMG.parent.parent)}: {path.stat().st_size / 1024:.0f} KB")
    return path


def scroll_to(locator, above_px: int = 70) -> None:
    """Scroll so that ``locator`` starts near the top of the viewport (its heading above it)."""
    locator.evaluate(
        "(el, px) => { el.scrollIntoView({block: 'start'}); window.scrollBy(0, -px); }", above_px
    )
    locator.page.wait_for_timeout(300)


def wait_for_job(page) -> None:
    """On a job's page, wait until it succeeded (the page polls the job row)."""
    expect(page.get_by_text("Succeeded").first).to_be_visible(timeout=JOB_TIMEOUT_MS)
    page.wait_for_timeout(500)


def lldp_table(cabling_csv: str) -> str:
    """An LLDP CSV as the leaves would report the design's compute cables, mis-cabled twice:
    the first two server ports of one leaf crossed, and one cable missing."""
    table = []
    for r in csv.DictReader(io.StringIO(cabling_csv)):
        a, b = (r["a_device"], r["a_port"]), (r["b_device"], r["b_port"])
        local, remote = (a, b) if a[0].startswith("leaf") else (b, a)
        if local[0].startswith("leaf"):  # each leaf reports its neighbours, servers and spines
            table.append([*local, *remote, f"{r['speed_gbps']}G"])
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["local_device", "local_port", "remote_device", "remote_port", "speed"])
    table[0][2:4], table[1][2:4] = table[1][2:4], table[0][2:4]  # two ports crossed
    del table[5]  # a cable not plugged
    writer.writerows(table)
    return out.getvalue()


def walkthrough(base: str, username: str, password: str) -> None:
    IMG.mkdir(exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"], headless=True
        )
        page = browser.new_context(viewport=VIEWPORT).new_page()
        page.set_default_timeout(60_000)
        page.goto(f"{base}/login/")
        page.get_by_label("Username").fill(username)
        page.get_by_label("Password").fill(password)
        page.get_by_role("button", name=re.compile("log in", re.I)).click()
        expect(page.get_by_role("link", name="New design").first).to_be_visible()

        # 1. The wizard: a reference design, its live summary.
        page.goto(f"{base}/designs/new/")
        page.get_by_role("button", name="DGX H100 SuperPOD, 4 SU", exact=True).click()
        expect(page.get_by_test_id("summary-gpus")).to_have_text("1,016")
        page.wait_for_timeout(500)
        save(page, "01-wizard")

        # 2. Saved: the design page.
        page.get_by_role("button", name="Save design").click()
        expect(page).to_have_url(re.compile(r"/designs/\d+/$"))
        design_url = page.url
        design_id = int(design_url.rstrip("/").rsplit("/", 1)[1])
        save(page, "02-design")

        # 3. The canvas, its overview (one node per SU and tier).
        page.get_by_test_id("bar-canvas").click()
        page.locator("#canvas-scope").select_option("overview")
        page.wait_for_timeout(2500)
        save(page, "03-canvas")

        # 4. Validation on a worker.
        page.goto(design_url)
        page.get_by_test_id("bar-validate").click()
        wait_for_job(page)
        save(page, "04-validation")

        # 5. A flow simulation: 1 GB ring all-reduce with the design's routing.
        page.goto(design_url)
        page.get_by_test_id("simulate-form").get_by_role("button", name="Simulate").click()
        wait_for_job(page)
        save(page, "05-simulation")

        # 6. The bill of materials and the downloads.
        page.goto(design_url)
        page.get_by_test_id("outputs-link").click()
        expect(page.get_by_test_id("bom")).to_contain_text("MMA4Z00-NS")
        scroll_to(page.get_by_test_id("bom"))
        save(page, "06-bom")
        cabling = page.request.get(
            f"{base}/api/planner/designs/{design_id}/revisions/1/cabling/"
        ).text()

        # 7. A quote at the seed price book.
        page.goto(design_url)
        page.get_by_test_id("quotes-link").click()
        page.get_by_role("link", name="New quote").click()
        page.get_by_label("Customer name").fill("Example Cloud GmbH")
        page.get_by_label("Margin %").fill("12")
        page.get_by_role("button", name="Create quote").click()
        expect(page).to_have_url(re.compile(r"/quotes/\d+/$"))
        save(page, "07-quote")

        # 8. As built: an LLDP table with two crossed ports and a missing cable.
        page.goto(f"{design_url}revisions/1/as-built/")
        page.get_by_label("Format").select_option("lldp-csv")
        page.get_by_label("File from the built fabric").set_input_files(
            {"name": "lldp.csv", "mimeType": "text/csv", "buffer": lldp_table(cabling).encode()}
        )
        page.get_by_role("button", name="Check against revision 1").click()
        expect(page.get_by_test_id("asbuilt-summary")).to_be_visible()
        scroll_to(page.get_by_role("heading", name="Differences from the design"), 10)
        save(page, "08-asbuilt")
        browser.close()


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: docs/screenshots.py BASE_URL USERNAME PASSWORD")
    walkthrough(sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3])
