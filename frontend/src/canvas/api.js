// The REST calls of the canvas. Every call sends the session cookie and, for writes, the
// CSRF token (as the wizard does); answers come back as {status, ok, data} and never throw
// on an HTTP error, so callers handle 400/409 as ordinary answers.

const PLANNER = "/api/planner";

/** URLs of the canvas endpoints. */
export const urls = {
  design: (id) => `${PLANNER}/designs/${id}/`,
  designs: () => `${PLANNER}/designs/`,
  /**
   * @param {number|string} id
   * @param {number|string} revision
   * @param {{view?: string, scope?: string, plane?: number|string}} [options]
   */
  canvas: (id, revision, { view, scope, plane } = {}) => {
    const params = new URLSearchParams();
    if (view) params.set("view", view);
    if (scope) params.set("scope", scope);
    if (plane) params.set("plane", String(plane));
    const query = params.toString();
    return `${PLANNER}/designs/${id}/revisions/${revision}/canvas/${query ? `?${query}` : ""}`;
  },
  topology: (id) => `${PLANNER}/designs/${id}/topology/`,
  revisionTopology: (id, revision) => `${PLANNER}/designs/${id}/revisions/${revision}/topology/`,
  opticalBudget: (id, revision) => `${PLANNER}/designs/${id}/revisions/${revision}/optical-budget/`,
  counters: (id, revision) => `${PLANNER}/designs/${id}/revisions/${revision}/counters/`,
  overlays: (id, revision, from = null) => `${PLANNER}/designs/${id}/revisions/${revision}/overlays/${from ? `?from=${from}` : ""}`,
  linkOptions: ({ a, b, speed_gbps, length_m }) => {
    const params = new URLSearchParams({ a, b });
    if (speed_gbps) params.set("speed_gbps", String(speed_gbps));
    if (length_m !== null && length_m !== undefined && length_m !== "") params.set("length_m", String(length_m));
    return `${PLANNER}/link-options/?${params}`;
  },
  catalog: (category, search = "", pageSize = 100) => {
    const route = category === "server" ? "servers" : "switches";
    const params = new URLSearchParams({ page_size: String(pageSize), ordering: "slug" });
    if (search) params.set("search", search);
    return `/api/inventory/${route}/?${params}`;
  },
};

/**
 * @param {{csrfToken: string, fetchFn?: (url: string, init: Record<string, any>) => Promise<Response>}} options
 */
export function createApi({ csrfToken, fetchFn = (url, init) => fetch(url, init) }) {
  async function call(method, url, body) {
    const init = {
      method,
      credentials: "same-origin",
      headers: { Accept: "application/json" },
    };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    if (method !== "GET") init.headers["X-CSRFToken"] = csrfToken;
    let response;
    try {
      response = await fetchFn(url, init);
    } catch (error) {
      return { status: 0, ok: false, data: { detail: `The server did not answer: ${error.message}` } };
    }
    const data = await response.json().catch(() => ({}));
    return { status: response.status, ok: response.ok, data };
  }
  return {
    get: (url) => call("GET", url),
    put: (url, body) => call("PUT", url, body),
    patch: (url, body) => call("PATCH", url, body),
    post: (url, body) => call("POST", url, body),
  };
}
