import { test } from "node:test";
import assert from "node:assert/strict";
import { FINISHED, outcomeText, progressOf, refreshSweepCharts, shortTime, startJobPolling, updateRow } from "./jobs.js";

test("finished statuses are terminal", () => {
  assert.ok(FINISHED.has("succeeded"));
  assert.ok(FINISHED.has("cancelled"));
  assert.ok(!FINISHED.has("running"));
  assert.ok(!FINISHED.has("queued"));
});

test("outcome prefers the error, then the server's outcome line, then a diagnostics result", () => {
  assert.equal(outcomeText({ status: "failed", error: "boom", outcome: "x", result: { hostname: "h", pid: 1 } }), "boom");
  assert.equal(outcomeText({ status: "succeeded", outcome: "1,354.3 kW, 0.6% unknown" }), "1,354.3 kW, 0.6% unknown");
  assert.equal(outcomeText({ status: "succeeded", result: { hostname: "w1", pid: 42 } }), "w1 pid 42");
  assert.equal(outcomeText({ status: "queued", result: null }), "");
});

test("progress: a succeeded job is full, others are clamped to the total", () => {
  assert.deepEqual(progressOf({ status: "succeeded", progress_done: 0, progress_total: 0 }), { value: 1, max: 1 });
  assert.deepEqual(progressOf({ status: "running", progress_done: 3, progress_total: 8 }), { value: 3, max: 8 });
  assert.deepEqual(progressOf({ status: "running", progress_done: 9, progress_total: 8 }), { value: 8, max: 8 });
  assert.deepEqual(progressOf({ status: "queued", progress_done: 0, progress_total: 0 }), { value: 0, max: 1 });
});

test("times read like the tables", () => {
  assert.equal(shortTime("2026-01-02T03:04:05.123456Z"), "2026-01-02 03:04:05");
  assert.equal(shortTime(null), "");
});

/**
 * A minimal stand-in for a table row: elements found by their data-field selector.
 * @param {string} status
 * @returns {any} only what updateRow and the poller touch of an HTMLElement
 */
function fakeRow(status) {
  const fields = {
    status: { textContent: "", className: "" },
    progress: { max: 1, value: 0 },
    message: { textContent: "" },
    finished: { textContent: "" },
    outcome: { textContent: "" },
    cancel: { removed: false, remove() { this.removed = true; } },
  };
  return {
    dataset: { status, jobId: "j1" },
    fields,
    querySelector(selector) {
      const name = /data-field="([^"]+)"/.exec(selector)?.[1];
      return fields[name] ?? null;
    },
    closest: () => null,
  };
}

test("a polled job updates its row; a finished one loses its cancel button", () => {
  const row = fakeRow("running");
  updateRow(row, { status: "running", progress_done: 2, progress_total: 8, progress_message: "holding", finished: null });
  assert.equal(row.fields.status.textContent, "Running");
  assert.equal(row.fields.progress.value, 2);
  assert.equal(row.fields.progress.max, 8);
  assert.equal(row.fields.message.textContent, "holding");
  assert.equal(row.fields.cancel.removed, false);
  updateRow(row, { status: "succeeded", progress_done: 8, progress_total: 8, outcome: "no problems", finished: "2026-01-02T03:04:05Z" });
  assert.equal(row.dataset.status, "succeeded");
  assert.equal(row.fields.status.className, "badge status-succeeded");
  assert.equal(row.fields.outcome.textContent, "no problems");
  assert.equal(row.fields.finished.textContent, "2026-01-02 03:04:05");
  assert.equal(row.fields.cancel.removed, true);
});

test("polling asks the API for unfinished rows only and reloads a job page when it finishes", async () => {
  const running = fakeRow("running");
  running.closest = (selector) => (selector === "[data-reload-on-finish]" ? {} : null);
  const done = fakeRow("succeeded");
  done.dataset.jobId = "j2";
  const table = { querySelectorAll: () => [running, done] };
  const root = /** @type {any} */ ({ querySelectorAll: () => [table] });
  const asked = [];
  /** @type {(url: string) => Promise<any>} a stand-in fetch: only ok and json */
  const fetchFn = async (url) => {
    asked.push(url);
    return { ok: true, json: async () => ({ status: "succeeded", progress_done: 1, progress_total: 1 }) };
  };
  const reloaded = new Promise((resolve) => startJobPolling(root, fetchFn, () => resolve(undefined)));
  await reloaded;
  assert.deepEqual(asked, ["/api/simulation/jobs/j1/"]);
  assert.equal(running.dataset.status, "succeeded");
});

test("a sweep's chart is fetched again when its runs move on, and only then", async () => {
  const chart = { dataset: { jobId: "j1", src: "/jobs/j1/sweep-chart/", drawn: "running:2" }, innerHTML: "old" };
  const other = { dataset: { jobId: "j2", src: "/jobs/j2/sweep-chart/", drawn: "running:0" }, innerHTML: "other" };
  const root = /** @type {any} */ ({ querySelectorAll: (selector) => (selector === "[data-sweep-chart]" ? [chart, other] : []) });
  const fetched = [];
  /** @type {(url: string) => Promise<any>} a stand-in fetch: only ok and text */
  const fetchFn = async (url) => {
    fetched.push(url);
    return { ok: true, text: async () => `<svg>${fetched.length}</svg>` };
  };
  assert.equal(await refreshSweepCharts(root, "j1", { status: "running", progress_done: 2 }, fetchFn), 0);
  assert.deepEqual(fetched, []);
  assert.equal(await refreshSweepCharts(root, "j1", { status: "running", progress_done: 5 }, fetchFn), 1);
  assert.deepEqual(fetched, ["/jobs/j1/sweep-chart/"]);
  assert.equal(chart.innerHTML, "<svg>1</svg>");
  assert.equal(chart.dataset.drawn, "running:5");
  assert.equal(other.innerHTML, "other");
  assert.equal(await refreshSweepCharts(root, "j1", { status: "succeeded", progress_done: 5 }, fetchFn), 1);
  assert.equal(chart.innerHTML, "<svg>2</svg>");
});
