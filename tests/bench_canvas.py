"""``make bench`` (canvas): time to first interactive render of the design canvas in Chromium.

Creates three designs in the bench database (``tests.bench`` sets it up: ``.var/bench``, or
``DATABASE_URL``), serves the app with Django's ``runserver`` on a free loopback port, logs in
through the real login form and opens each design's canvas a few times. The time measured
runs from navigation start to ``window.fabricCanvasReady``, which the canvas sets once its
first layout is done and it accepts input. Results go to ``.var/bench/canvas.json`` (and are
printed). Everything stays on 127.0.0.1, and the run stops itself after ``DEADLINE_S``.

Target: the largest design (100,000 GPUs, opened aggregated) is interactive in <= 3 s.

Then saving a canvas edit of about 5,000 elements (issue 37 item 8: <= 1 s), on the DGX B300
XDR preset (288 DGX B300 on Q3400-RA: 4,946 nodes and links, just under the 5,000-element
limit of hand edits), two edits each run: the link in the middle of the document removed (the
headline: the spec's link count no longer holds, so the first request answers 409 with it
and a second, "Save anyway", stores what the first built; every later link is renumbered)
and one node moved (``node_moved``: one request stores it), each on a design of its own.

- The server's part, in this process through Django's test client: the requests the canvas
  makes (``patch``: PATCH topology/ with what the edit changed and ``canvas_changes``, whose
  answer says what changed in the view, so nothing is loaded again), and for comparison how
  it saved before (``whole_document``: the whole document PUT, then the saved revision's view
  loaded again); median of ``SAVE_RUNS`` saves, with the load average (the machine is shared).
  Before the first, the designs' canvases are opened as a user opens them before a save.
- In Chromium (``browser``), timed in the page from the click on Save to the frame that shows
  the saved revision (``machine_s``; for a link removed, click to the question shown plus the
  click on "Save anyway" to the saved revision shown: the user's decision is not the
  machine's), once the page has opened, read its saved revision (``data-edit-base``) and
  finished loading, as it has by the time someone has made an edit; with the browser's own
  timings of each step and the status lines seen (the step, the size of the edit and the
  time so far: ``saveProgressText``).

Results go to ``canvas.json`` under ``save``; ``target_met`` when both medians are <= 1 s.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from tests.bench import OUT, ROOT, _setup_django

TARGET_S = 3.0
RUNS = 3
DEADLINE_S = 1200
USERNAME = "bench-canvas"


def _spec(name: str, servers: int) -> dict:
    """The benchmark family of tests.bench: DGX-B300 on Q3400-RA, 4 servers per rack."""
    return {
        "name": name,
        "topology": "rail-optimized",
        "server": "DGX-B300",
        "servers": servers,
        "switches": {"leaf": "Q3400-RA"},
        "layout": {"servers_per_rack": 4},
    }


# One scalable unit of DGX-B300 on Q3400-RA is 72 servers.
DESIGNS = [
    ("1 SU", _spec("canvas-bench-1su", 72)),
    ("16 SU", _spec("canvas-bench-16su", 16 * 72)),
    ("100,000 GPUs", _spec("canvas-bench-100k", 12_500)),
]


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _prepare() -> tuple[str, list[dict]]:
    """Migrate, load the catalog if needed, (re)create the user and the designs."""
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from inventory.models import SwitchModel
    from inventory.services import catalog_load
    from planner.designs.models import Design
    from planner.designs.services import design_create

    call_command("migrate", verbosity=0)
    if not SwitchModel.objects.exists():
        catalog_load()
    password = secrets.token_urlsafe(16)
    user, _ = get_user_model().objects.get_or_create(username=USERNAME)
    user.set_password(password)
    user.save()
    Design.objects.filter(owner=user).delete()
    designs = []
    for label, spec in DESIGNS:
        started = time.perf_counter()
        design = design_create(owner=user, spec_document=spec)
        summary = design.latest_revision.summary
        designs.append(
            {
                "label": label,
                "id": design.pk,
                "gpus": summary["gpus"],
                "servers": summary["servers"],
                "switches": summary["switches_total"],
                "links": sum(summary["links"].values()),
                "create_s": round(time.perf_counter() - started, 2),
            }
        )
        print(f"  created {label}: design {design.pk}, {summary['gpus']:,} GPUs", flush=True)
    return password, designs


def _start_server(port: int, log_path: Path) -> subprocess.Popen:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "planner.project.settings"}
    env.pop("DEBUG", None)
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"runserver exited:\n{log_path.read_text()}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/login/", timeout=2):
                return proc
        except (urllib.error.URLError, OSError):
            time.sleep(0.3)
    _stop_server(proc)
    raise RuntimeError(f"runserver did not answer in 60 s:\n{log_path.read_text()}")


def _stop_server(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


READY_INFO = """() => {
  const canvas = window.fabricCanvas;
  const entries = performance.getEntriesByType("resource")
    .filter((e) => e.name.includes("/canvas/?") || e.name.endsWith("/canvas/"));
  const api = entries.length ? entries[entries.length - 1] : null;
  const nav = performance.getEntriesByType("navigation")[0];
  return {
    ready_ms: window.fabricCanvasReady,
    view: canvas.state.view,
    scope: canvas.state.scope,
    editable: canvas.state.editable,
    elements: canvas.cy.elements().length,
    api_ms: api ? api.responseEnd - api.startTime : null,
    html_ms: nav ? nav.responseEnd : null,
  };
}"""


def _measure(base: str, password: str, designs: list[dict]) -> list[dict]:
    from playwright.sync_api import sync_playwright

    from tests.conftest import CHROMIUM, CHROMIUM_ARGS

    rows = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
        )
        try:
            context = browser.new_context(viewport={"width": 1400, "height": 900})
            page = context.new_page()
            page.set_default_timeout(120_000)
            page.goto(f"{base}/login/")
            page.get_by_label("Username").fill(USERNAME)
            page.get_by_label("Password").fill(password)
            page.get_by_role("button", name="Log in").click()
            page.wait_for_url(f"{base}/")
            for design in designs:
                runs = []
                for _ in range(RUNS):
                    page.goto(f"{base}/designs/{design['id']}/canvas/", wait_until="commit")
                    # A selector, not wait_for_function: the page's CSP forbids string eval.
                    page.wait_for_selector(
                        '[data-canvas][data-state="ready"], [data-canvas][data-state="error"]'
                    )
                    runs.append(page.evaluate(READY_INFO))
                    if page.locator("[data-canvas]").get_attribute("data-state") != "ready":
                        raise RuntimeError(f"{design['label']}: the canvas did not load")
                ready = [run["ready_ms"] / 1000 for run in runs]
                last = runs[-1]
                row = {
                    **design,
                    "view": last["view"] + (f" ({last['scope']})" if last["scope"] else ""),
                    "editable": last["editable"],
                    "elements_drawn": last["elements"],
                    "first_interactive_s": [round(s, 3) for s in ready],
                    "first_interactive_median_s": round(statistics.median(ready), 3),
                    "canvas_api_median_s": round(
                        statistics.median([(r["api_ms"] or 0) / 1000 for r in runs]), 3
                    ),
                }
                rows.append(row)
                print(
                    f"  {design['label']:>13}: {row['view']}, {row['elements_drawn']:,} "
                    f"elements, first interactive {row['first_interactive_median_s']} s "
                    f"(runs {row['first_interactive_s']}; canvas API "
                    f"{row['canvas_api_median_s']} s)",
                    flush=True,
                )
        finally:
            browser.close()
    return rows


SAVE_TARGET_S = 1.0
SAVE_PRESET = "b300-xdr-rail"
SAVE_RUNS = 5
#: The request of a canvas save (PATCH topology/: what the edit changed), as the canvas sends it.
PATCH_HEAD = {"message": "bench", "canvas_changes": True}


def bench_canvas_save(runs: int = SAVE_RUNS) -> dict:
    """Seconds of the requests of a canvas Save (module docstring), median of ``runs``: as the
    canvas saves (a patch of what the edit changed), and as it saved before (the whole
    document, then the saved revision's view loaded again: ``whole_document``)."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    from planner.designs.services import design_create
    from planner.domain.presets import preset_get

    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    user = get_user_model().objects.get(username=USERNAME)  # made by _prepare
    spec = preset_get(SAVE_PRESET).spec
    names = (
        "canvas-bench-save",
        "canvas-bench-save-move",
        "canvas-bench-whole",
        "canvas-bench-whole-move",
    )
    # the moves on designs of their own: after one link fewer, the spec no longer holds
    designs = [design_create(owner=user, spec_document={**spec, "name": n}) for n in names]
    client = Client()
    client.force_login(user)
    apis = [f"/api/planner/designs/{design.pk}" for design in designs]
    # The canvas opened before the edit (untimed), as the page asks for it.
    for api in apis[:2]:
        assert client.get(f"{api}/revisions/1/canvas/", CANVAS_ALL).status_code == 200
        assert client.get(f"{api}/revisions/1/topology/").status_code == 200
    timings: dict[str, dict[str, dict[str, list[float]]]] = {"patch": {}, "whole_document": {}}
    elements = 0
    for _ in range(runs):
        for way, kind, spent in (
            ("patch", "link_removed", _patch_link_removed(client, apis[0], designs[0])),
            ("patch", "node_moved", _patch_node_moved(client, apis[1], designs[1])),
            ("whole_document", "link_removed", _save_link_removed(client, apis[2], designs[2])),
            ("whole_document", "node_moved", _save_node_moved(client, apis[3], designs[3])),
        ):
            elements = spent.pop("elements")
            for key, value in spent.items():
                timings[way].setdefault(kind, {}).setdefault(key, []).append(value)
    medians = {
        way: {
            kind: {key: round(statistics.median(values), 3) for key, values in steps.items()}
            for kind, steps in kinds.items()
        }
        for way, kinds in timings.items()
    }
    return {
        "design": f"preset {SAVE_PRESET}",
        "design_id": designs[0].pk,
        "moved_design_id": designs[1].pk,
        "elements": elements,
        "runs": runs,
        "link_removed_total_s_runs": [
            round(v, 3) for v in timings["patch"]["link_removed"]["total_s"]
        ],
        **medians,
        "load_average_1min": round(os.getloadavg()[0], 1),
    }


CANVAS_ALL = {"view": "detail", "scope": "all"}


def _edit_of_latest(design) -> tuple[int, dict]:
    from planner.designs import selectors

    revision = design.revisions.order_by("-number").first()
    document = selectors.revision_topology(revision)
    return revision.number, {"nodes": document["nodes"], "links": document["links"]}


def _timed_patch(client, api: str, patch: dict, *, anyway: bool, elements: int) -> dict:
    """The canvas's requests of one Save: the PATCH that checks and stores the edit
    (``check_stale``); for an edit that makes a spec parameter untrue, its 409 and the PATCH
    of "Save anyway". The answer says what changed in the view: nothing is loaded again."""
    spent: dict = {"elements": elements}
    cpu_started = time.process_time()
    started = time.perf_counter()
    text = json.dumps({**patch, **PATCH_HEAD, "check_stale": True})
    spent["request_bytes"] = len(text)
    answer = client.patch(f"{api}/topology/", text, content_type="application/json")
    spent["check_s"] = time.perf_counter() - started
    if anyway:
        assert answer.status_code == 409 and answer.json()["stale_parameters"], answer.content[:300]
        text = json.dumps({**patch, **PATCH_HEAD})
        answer = client.patch(f"{api}/topology/", text, content_type="application/json")
        spent["store_s"] = time.perf_counter() - started - spent["check_s"]
    assert answer.status_code == 201 and "canvas" in answer.json(), answer.content[:300]
    spent["answer_bytes"] = len(answer.content)
    spent["total_s"] = time.perf_counter() - started
    spent["total_cpu_s"] = time.process_time() - cpu_started  # steadier on a busy machine
    return spent


def _patch_link_removed(client, api: str, design) -> dict:
    """The link in the middle of the document removed (every later link is renumbered): the
    spec's link count no longer holds, so the canvas asks first."""
    number, document = _edit_of_latest(design)
    patch = {"base_revision": number, "links_removed": [len(document["links"]) // 2]}
    size = len(document["nodes"]) + len(document["links"])
    return _timed_patch(client, api, patch, anyway=True, elements=size)


def _patch_node_moved(client, api: str, design) -> dict:
    """One node moved: every spec parameter still holds, one PATCH stores it."""
    number, document = _edit_of_latest(design)
    node = {**document["nodes"][0], "x": float(document["nodes"][0].get("x") or 0.0) + 10.0}
    patch = {"base_revision": number, "nodes_set": [node]}
    size = len(document["nodes"]) + len(document["links"])
    return _timed_patch(client, api, patch, anyway=False, elements=size)


def _timed_requests(client, api: str, body: dict, *, anyway: bool) -> dict:
    """How the canvas saved before (issue 37 item 8 was met by the patch): the PUT of the
    whole document (``check_stale``), its 409 and the PUT of "Save anyway" for an edit that
    makes a spec parameter untrue, then the saved revision's view loaded again."""
    spent = {"elements": len(body["nodes"]) + len(body["links"])}
    cpu_started = time.process_time()
    started = time.perf_counter()
    text = json.dumps({**body, "message": "bench", "check_stale": True})
    spent["request_bytes"] = len(text)
    answer = client.put(f"{api}/topology/", text, content_type="application/json")
    spent["check_s"] = time.perf_counter() - started
    if anyway:
        assert answer.status_code == 409 and answer.json()["stale_parameters"], answer.content[:300]
        text = json.dumps({**body, "message": "bench"})
        answer = client.put(f"{api}/topology/", text, content_type="application/json")
        spent["store_s"] = time.perf_counter() - started - spent["check_s"]
    assert answer.status_code == 201, answer.content[:300]
    stored = time.perf_counter()
    number = answer.json()["number"]
    canvas = client.get(f"{api}/revisions/{number}/canvas/", CANVAS_ALL)
    assert canvas.status_code == 200
    spent["reload_s"] = time.perf_counter() - stored
    spent["total_s"] = time.perf_counter() - started
    spent["total_cpu_s"] = time.process_time() - cpu_started
    return spent


def _save_link_removed(client, api: str, design) -> dict:
    number, document = _edit_of_latest(design)
    links = document["links"]
    middle = len(links) // 2
    body = {"base_revision": number, **document, "links": links[:middle] + links[middle + 1 :]}
    return _timed_requests(client, api, body, anyway=True)


def _save_node_moved(client, api: str, design) -> dict:
    number, document = _edit_of_latest(design)
    nodes = [dict(node) for node in document["nodes"]]
    nodes[0]["x"] = float(nodes[0].get("x") or 0.0) + 10.0
    body = {"base_revision": number, "nodes": nodes, "links": document["links"]}
    return _timed_requests(client, api, body, anyway=False)


#: In the page, before each save: when each click on a button happens (a listener on the
#: document that runs first), when the question or the save's end is shown (the status line
#: and the canvas's data-save-status, watched), when the next frame after it is drawn, and
#: every status line.
WATCH_SAVE = """(revision) => {
  const root = document.querySelector("[data-canvas]");
  const status = root.querySelector("[data-c='status']");
  const t = { clicks: [], lines: [] };
  window.__save = t;
  const now = () => performance.now();
  const painted = (key) => requestAnimationFrame(() => setTimeout(() => { t[key] = now(); }, 0));
  document.addEventListener("click", (event) => {
    if (event.target.closest("button")) t.clicks.push(now()); // Save, Save anyway (not a drag)
  }, true);
  new MutationObserver(() => {
    const text = status.textContent;
    if (text !== t.lines[t.lines.length - 1]) t.lines.push(text);
    if (t.asked === undefined && text.startsWith("Not saved yet")) {
      t.asked = now();
      painted("asked_painted");
    }
  }).observe(status, { childList: true, characterData: true, subtree: true });
  new MutationObserver(() => {
    const shown = window.fabricCanvas.state.revision;
    const done = root.dataset.saveStatus === "idle" && shown !== revision;
    if (t.saved === undefined && done) {
      t.saved = now();
      painted("saved_painted");
    }
  }).observe(root, { attributes: true });
}"""

VISIBLE_DEVICE = """() => {
  const cy = window.fabricCanvas.cy;
  const box = cy.container().getBoundingClientRect();
  const inside = cy.nodes("[kind = 'device']").filter((n) => {
    const p = n.renderedPosition();
    return p.x > 60 && p.y > 60 && p.x < box.width - 60 && p.y < box.height - 60;
  });
  const n = inside[Math.floor(inside.length / 2)];
  const p = n.renderedPosition();
  return { x: box.left + p.x, y: box.top + p.y };
}"""


def _open_for_edit(page, base: str, design_id: int) -> int:
    """The design's whole fabric, ready, its saved state read (``data-edit-base``) and done
    loading (no request for 0.5 s: the scopes, the palette), as it is by the time someone has
    made an edit: the revision shown."""
    page.goto(f"{base}/designs/{design_id}/canvas/?view=detail&scope=all")
    page.wait_for_selector('[data-canvas][data-state="ready"][data-edit-base]')
    page.wait_for_load_state("networkidle")
    revision = page.evaluate("() => window.fabricCanvas.state.revision")
    page.evaluate(WATCH_SAVE, revision)
    return revision


def _wait_saved(page, started: float) -> dict:
    while True:
        seen = page.evaluate("() => window.__save")
        if "saved_painted" in seen:
            return seen
        state = page.locator("[data-canvas]").get_attribute("data-save-status")
        if state in ("problems", "error", "conflict"):
            raise RuntimeError(f"the save failed: {state}, {seen['lines'][-3:]}")
        if time.perf_counter() - started > 120:
            raise TimeoutError(f"the save took more than 120 s: {seen['lines'][-3:]}")
        time.sleep(0.05)


def _browser_link_removed(page, base: str, design_id: int) -> dict:
    """The link in the middle deleted and saved; "Save anyway" when the canvas asks."""
    _open_for_edit(page, base, design_id)
    page.evaluate(
        """() => { const cy = window.fabricCanvas.cy; const links = cy.edges("[kind = 'link']");
        cy.getElementById(`link:${Math.floor(links.length / 2)}`).select(); }"""
    )  # a block: a cytoscape collection returned would be serialised, the whole graph
    page.locator("#canvas-cy").focus()
    page.keyboard.press("Delete")
    started = time.perf_counter()
    page.get_by_role("button", name="Save", exact=True).click()
    page.get_by_role("button", name="Save anyway").click()
    seen = _wait_saved(page, started)
    first, anyway = seen["clicks"][0], seen["clicks"][-1]
    return {
        "click_to_question_s": (seen["asked"] - first) / 1000,
        "anyway_to_saved_s": (seen["saved"] - anyway) / 1000,
        "anyway_to_shown_s": (seen["saved_painted"] - anyway) / 1000,
        # what the machine took, the user's decision left out
        "machine_s": (seen["asked_painted"] - first + seen["saved_painted"] - anyway) / 1000,
        "lines": seen["lines"],
    }


def _browser_node_moved(page, base: str, design_id: int) -> dict:
    """A device dragged 40 px and saved."""
    _open_for_edit(page, base, design_id)
    at = page.evaluate(VISIBLE_DEVICE)
    page.mouse.move(at["x"], at["y"])
    page.mouse.down()
    page.mouse.move(at["x"] + 40, at["y"] + 20, steps=5)
    page.mouse.up()
    started = time.perf_counter()
    page.get_by_role("button", name="Save", exact=True).click()
    seen = _wait_saved(page, started)
    return {
        "click_to_saved_s": (seen["saved"] - seen["clicks"][0]) / 1000,
        "click_to_shown_s": (seen["saved_painted"] - seen["clicks"][0]) / 1000,
        "machine_s": (seen["saved_painted"] - seen["clicks"][0]) / 1000,
        "lines": seen["lines"],
    }


def _summary(runs: list[dict], steps: list[dict]) -> dict:
    out = {}
    for key in runs[0]:
        if key == "lines":
            continue
        values = [run[key] for run in runs]
        out[key] = [round(v, 3) for v in values]
        out[f"{key}_median"] = round(statistics.median(values), 3)
    out["steps_ms"] = steps
    return out


def _measure_save_in_browser(base: str, password: str, design_ids: tuple[int, int]) -> dict:
    """Seconds from a click on Save to the saved revision shown, in Chromium, timed in the page
    (module docstring): a link removed mid-fabric on one design, a device moved on another."""
    from playwright.sync_api import sync_playwright

    from tests.conftest import CHROMIUM, CHROMIUM_ARGS

    results: dict[str, list] = {"link_removed": [], "node_moved": []}
    steps: dict[str, list] = {"link_removed": [], "node_moved": []}
    said: list[str] = []
    timings = (
        "() => [window.fabricCanvas.state.staleTimings, window.fabricCanvas.state.saveTimings]"
    )
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
        )
        try:
            page = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
            page.set_default_timeout(120_000)
            page.goto(f"{base}/login/")
            page.get_by_label("Username").fill(USERNAME)
            page.get_by_label("Password").fill(password)
            page.get_by_role("button", name="Log in").click()
            page.wait_for_url(f"{base}/")
            for _ in range(RUNS):
                for kind, measure, design_id in (
                    ("link_removed", _browser_link_removed, design_ids[0]),
                    ("node_moved", _browser_node_moved, design_ids[1]),
                ):
                    run = measure(page, base, design_id)
                    said += [line for line in run["lines"] if line.startswith("Saving")]
                    results[kind].append(run)
                    asking, saving = page.evaluate(timings)
                    step = (
                        {f"ask_{k}": v for k, v in (asking or {}).items()}
                        if kind == "link_removed"
                        else {}
                    )
                    step.update(saving or {})
                    steps[kind].append(
                        {k: round(v) for k, v in step.items() if isinstance(v, int | float)}
                    )
        finally:
            browser.close()
    return {
        **{kind: _summary(results[kind], steps[kind]) for kind in results},
        "status_lines_seen": said[:12],
    }


def _judge(save: dict) -> None:
    """The target (issue 37 item 8): each edit saved and shown in <= 1 s in Chromium, the
    machine's time (for a link removed, its two requests; the user's "Save anyway" left out)."""
    browser = save["browser"]
    save["target_s"] = SAVE_TARGET_S
    save["target_met"] = all(
        browser[kind]["machine_s_median"] <= SAVE_TARGET_S
        for kind in ("link_removed", "node_moved")
    )
    save["load_average_1min_after"] = round(os.getloadavg()[0], 1)


def _deadline(*_):
    raise TimeoutError(f"the canvas benchmark took more than {DEADLINE_S} s")


def save_only() -> int:
    """``python -m tests.bench_canvas --save``: only the save benches (server and Chromium),
    without the three render designs; updates ``save`` in ``canvas.json``, keeps the rest."""
    signal.signal(signal.SIGALRM, _deadline)
    signal.alarm(DEADLINE_S)
    _setup_django()
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connections

    from inventory.models import SwitchModel
    from inventory.services import catalog_load
    from planner.designs.models import Design

    call_command("migrate", verbosity=0)
    if not SwitchModel.objects.exists():
        catalog_load()
    password = secrets.token_urlsafe(16)
    user, _ = get_user_model().objects.get_or_create(username=USERNAME)
    user.set_password(password)
    user.save()
    Design.objects.filter(owner=user, name__regex=r"^canvas-bench-(save|whole)").delete()
    save = bench_canvas_save()
    print(json.dumps({"save": save}), flush=True)
    connections.close_all()
    port = _free_port()
    server = _start_server(port, OUT / "canvas-runserver.log")
    try:
        save["browser"] = _measure_save_in_browser(
            f"http://127.0.0.1:{port}", password, (save["design_id"], save["moved_design_id"])
        )
        _judge(save)
        print(json.dumps({"save_in_browser": save["browser"]}), flush=True)
    finally:
        _stop_server(server)
        signal.alarm(0)
    path = OUT / "canvas.json"
    results = json.loads(path.read_text()) if path.exists() else {}
    results["save"] = save
    path.write_text(json.dumps(results, indent=2) + "\n")
    print(f"written to {path.relative_to(ROOT)}")
    return 0


def main() -> int:
    if "--save" in sys.argv[1:]:
        return save_only()
    signal.signal(signal.SIGALRM, _deadline)
    signal.alarm(DEADLINE_S)
    _setup_django()
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    print("Canvas benchmark: first interactive render in Chromium", flush=True)
    password, designs = _prepare()
    save = bench_canvas_save()
    print(json.dumps({"save": save}), flush=True)
    from django.db import connections

    connections.close_all()
    port = _free_port()
    server = _start_server(port, OUT / "canvas-runserver.log")
    try:
        rows = _measure(f"http://127.0.0.1:{port}", password, designs)
        save["browser"] = _measure_save_in_browser(
            f"http://127.0.0.1:{port}", password, (save["design_id"], save["moved_design_id"])
        )
        _judge(save)
        print(json.dumps({"save_in_browser": save["browser"]}), flush=True)
    finally:
        _stop_server(server)
        signal.alarm(0)
    largest = rows[-1]
    results = {
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "measure": "navigation start -> window.fabricCanvasReady (first layout done, input "
        f"accepted), Chromium headless, median of {RUNS} loads",
        "cpus": os.cpu_count(),
        "target_s": TARGET_S,
        "designs": rows,
        "target_met": largest["first_interactive_median_s"] <= TARGET_S,
        "save": save,
    }
    path = OUT / "canvas.json"
    path.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps({"target_met": results["target_met"]}))
    print(f"written to {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
