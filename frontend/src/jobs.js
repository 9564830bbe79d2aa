// Live progress for the Jobs page: polls the REST API for rows that are not finished.

/** Statuses after which a job never changes. */
export const FINISHED = new Set(["succeeded", "failed", "cancelled"]);

/**
 * Describe a job's outcome for the table cell.
 * @param {{status: string, error?: string, result?: object|null}} job
 * @returns {string}
 */
export function outcomeText(job) {
  if (job.error) return job.error;
  if (job.result && job.result.hostname) return `${job.result.hostname} pid ${job.result.pid}`;
  return "";
}

/**
 * Poll unfinished job rows of `root` once a second until they finish.
 * @param {Document|HTMLElement} root
 * @param {(url: string) => Promise<Response>} [fetchFn]
 */
export function startJobPolling(root, fetchFn = (url) => fetch(url, { credentials: "same-origin" })) {
  const table = root.querySelector?.("[data-live-jobs]");
  if (!table) return;
  const tick = async () => {
    const rows = [...table.querySelectorAll("tr[data-job-id]")].filter((r) => !FINISHED.has(r.dataset.status));
    if (!rows.length) return;
    await Promise.all(rows.map(async (row) => {
      const response = await fetchFn(`/api/simulation/jobs/${row.dataset.jobId}/`);
      if (!response.ok) return;
      const job = await response.json();
      row.dataset.status = job.status;
      const badge = row.querySelector('[data-field="status"]');
      badge.textContent = job.status[0].toUpperCase() + job.status.slice(1);
      badge.className = `badge status-${job.status}`;
      const bar = row.querySelector('[data-field="progress"]');
      bar.max = job.progress_total || 1;
      bar.value = job.progress_done;
      row.querySelector('[data-field="finished"]').textContent = job.finished ? job.finished.replace("T", " ").slice(0, 19) : "";
      row.querySelector('[data-field="outcome"]').textContent = outcomeText(job);
    }));
    setTimeout(tick, 1000);
  };
  setTimeout(tick, 500);
}
