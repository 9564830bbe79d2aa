import { test } from "node:test";
import assert from "node:assert/strict";

import { createApi, urls } from "./api.js";

test("urls follow the API contract", () => {
  assert.equal(urls.canvas(3, 2, { view: "detail", scope: "su:1" }), "/api/planner/designs/3/revisions/2/canvas/?view=detail&scope=su%3A1");
  assert.equal(urls.canvas(3, 2), "/api/planner/designs/3/revisions/2/canvas/");
  assert.equal(urls.canvas(3, 2, { view: "overview", plane: 2 }), "/api/planner/designs/3/revisions/2/canvas/?view=overview&plane=2");
  assert.equal(urls.canvas(3, 2, { view: "overview", plane: null }), "/api/planner/designs/3/revisions/2/canvas/?view=overview");
  assert.equal(urls.topology(3), "/api/planner/designs/3/topology/");
  assert.equal(urls.linkOptions({ a: "DGX-H100", b: "QM9700", speed_gbps: 400, length_m: 0 }), "/api/planner/link-options/?a=DGX-H100&b=QM9700&speed_gbps=400&length_m=0");
  assert.match(urls.catalog("server", "dgx"), /^\/api\/inventory\/servers\/\?.*search=dgx/);
});

test("writes send JSON with the CSRF token; HTTP errors come back as answers", async () => {
  const calls = [];
  const api = createApi({
    csrfToken: "tok",
    // A stand-in fetch: its answers have only status, ok and json.
    fetchFn: /** @type {(url: string, init: Record<string, any>) => Promise<any>} */ (async (url, init) => {
      calls.push({ url, init });
      return { status: 409, ok: false, json: async () => ({ latest_revision: 4 }) };
    }),
  });
  const answer = await api.put("/x/", { a: 1 });
  assert.deepEqual(answer, { status: 409, ok: false, data: { latest_revision: 4 } });
  assert.equal(calls[0].init.method, "PUT");
  assert.equal(calls[0].init.headers["X-CSRFToken"], "tok");
  assert.equal(calls[0].init.headers["Content-Type"], "application/json");
  assert.equal(calls[0].init.body, '{"a":1}');
  await api.get("/y/");
  assert.equal(calls[1].init.headers["X-CSRFToken"], undefined);
});

test("a network failure is status 0 with a message", async () => {
  const api = createApi({ csrfToken: "", fetchFn: async () => { throw new Error("refused"); } });
  const answer = await api.get("/z/");
  assert.equal(answer.status, 0);
  assert.match(answer.data.detail, /refused/);
});
