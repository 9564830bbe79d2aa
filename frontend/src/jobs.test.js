import { test } from "node:test";
import assert from "node:assert/strict";
import { FINISHED, outcomeText } from "./jobs.js";

test("finished statuses are terminal", () => {
  assert.ok(FINISHED.has("succeeded"));
  assert.ok(!FINISHED.has("running"));
});

test("outcome prefers the error over the result", () => {
  assert.equal(outcomeText({ status: "failed", error: "boom", result: { hostname: "h", pid: 1 } }), "boom");
  assert.equal(outcomeText({ status: "succeeded", result: { hostname: "w1", pid: 42 } }), "w1 pid 42");
  assert.equal(outcomeText({ status: "queued", result: null }), "");
});
