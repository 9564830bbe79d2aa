// Live progress for job tables (Jobs page, a design's Analysis section, a job's page): polls
// the REST API for rows that are not finished, once a second, and updates them in place.

/** Statuses after which a job never changes. */
export const FINISHED = new Set(["succeeded", "failed", "cancelled"]);

/**
 * Describe a job's outcome for the table cell.
 * @param {{status?: string, error?: string, outcome?: string, result?: Record<string, any>|null}} job
 * @returns {string}
 */
export function outcomeText(job) {
  if (job.error) return job.error;
  if (job.outcome) return job.outcome;
  if (job.result && job.result.hostname) return `${job.result.hostname} pid ${job.result.pid}`;
  return "";
}

/**
 * The progress bar's value and maximum for a job (a succeeded job shows a full bar).
 * @param {{status?: string, progress_done?: number, progress_total?: number}} job
 * @returns {{value: number, max: number}}
 */
export function progressOf(job) {
  const max = job.progress_total || 1;
  const value = job.status === "succeeded" ? max : Math.min(job.progress_done || 0, max);
  return { value, max };
}

/**
 * Format an ISO time as the tables do ("2026-01-02 03:04:05"), or "" for none.
 * @param {string|null|undefined} iso
 * @returns {string}
 */
export function shortTime(iso) {
  return iso ? iso.replace("T", " ").slice(0, 19) : "";
}

/**
 * Write a polled job into its table row.
 * @param {HTMLElement} row  a `tr[data-job-id]`
 * @param {Record<string, any>} job  the API's job
 */
export function updateRow(row, job) {
  row.dataset.status = job.status;
  const badge = row.querySelector('[data-field="status"]');
  if (badge) {
    badge.textContent = job.status[0].toUpperCase() + job.status.slice(1);
    badge.className = `badge status-${job.status}`;
  }
  const bar = /** @type {HTMLProgressElement|null} */ (row.querySelector('[data-field="progress"]'));
  if (bar) {
    const { value, max } = progressOf(job);
    bar.max = max;
    bar.value = value;
  }
  const message = row.querySelector('[data-field="message"]');
  if (message) message.textContent = job.progress_message || "";
  const finished = row.querySelector('[data-field="finished"]');
  if (finished) finished.textContent = shortTime(job.finished);
  const outcome = row.querySelector('[data-field="outcome"]');
  if (outcome) outcome.textContent = outcomeText(job);
  if (FINISHED.has(job.status)) row.querySelector('[data-field="cancel"]')?.remove();
}

/**
 * Redraw the sweep charts of a polled job (`[data-sweep-chart][data-job-id]`, whose `data-src`
 * answers the chart as server-rendered HTML) when its runs have moved on since the chart was
 * drawn (`data-drawn`: "status:runs done"), so points appear as they complete.
 * @param {Document|HTMLElement} root
 * @param {string} jobId
 * @param {Record<string, any>} job  the API's job
 * @param {(url: string) => Promise<Response>} fetchFn
 * @returns {Promise<number>} how many charts were redrawn
 */
export async function refreshSweepCharts(root, jobId, job, fetchFn) {
  const charts = [.../** @type {NodeListOf<HTMLElement>|[]} */ (root.querySelectorAll?.("[data-sweep-chart]") ?? [])]
    .filter((chart) => chart.dataset?.jobId === jobId && chart.dataset.src);
  const drawn = `${job.status}:${job.progress_done}`;
  let redrawn = 0;
  for (const chart of charts) {
    if (chart.dataset.drawn === drawn) continue;
    const response = await fetchFn(chart.dataset.src);
    if (!response.ok) continue;
    chart.innerHTML = await response.text();
    chart.dataset.drawn = drawn;
    redrawn += 1;
  }
  return redrawn;
}

/**
 * Poll unfinished job rows of `root` once a second until they finish. On a page whose table
 * has `data-reload-on-finish` (a job's own page), reload once the job is finished so that the
 * server renders its result.
 * @param {Document|HTMLElement} root
 * @param {(url: string) => Promise<Response>} [fetchFn]
 * @param {() => void} [reload]
 */
export function startJobPolling(
  root,
  fetchFn = (url) => fetch(url, { credentials: "same-origin" }),
  reload = () => window.location.reload(),
) {
  const tables = [...(root.querySelectorAll?.("[data-live-jobs]") ?? [])];
  if (!tables.length) return;
  const tick = async () => {
    const rows = tables.flatMap((t) => [.../** @type {NodeListOf<HTMLTableRowElement>} */ (t.querySelectorAll("tr[data-job-id]"))]);
    const open = rows.filter((r) => !FINISHED.has(r.dataset.status));
    if (!open.length) return;
    let reloadNow = false;
    await Promise.all(open.map(async (row) => {
      try {
        const response = await fetchFn(`/api/simulation/jobs/${row.dataset.jobId}/`);
        if (!response.ok) return;
        const job = await response.json();
        updateRow(row, job);
        await refreshSweepCharts(root, row.dataset.jobId, job, fetchFn).catch(() => 0);
        if (FINISHED.has(job.status) && row.closest("[data-reload-on-finish]")) reloadNow = true;
      } catch {
        // A failed poll is retried at the next tick.
      }
    }));
    if (reloadNow) {
      reload();
      return;
    }
    setTimeout(tick, 1000);
  };
  setTimeout(tick, 500);
}
