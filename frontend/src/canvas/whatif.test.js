import { test } from "node:test";
import assert from "node:assert/strict";

import { failedIdsOf, whatifLines, whatifUrl } from "./whatif.js";

test("selected devices, links, racks and SUs become what-if ids; the rest are left out", () => {
  assert.deepEqual(
    failedIdsOf(["node:spine-01", "link:12", "group:rack:R001-02", "group:su:3", "group:rail:1", "agg:leaf:su:1", "link:new-1", "node:spine-01"]),
    ["node:spine-01", "link:12", "rack:R001-02", "su:3"],
  );
  assert.equal(whatifUrl(4, 2), "/api/planner/designs/4/revisions/2/what-if/");
});

test("the numbers panel says GPUs, capacity per tier, uplinks and bisection with units", () => {
  const lines = whatifLines({
    gpus: { total: 1016, lost: 32, leaf_only: 0, degraded: 8 },
    bandwidth_lost: { "leaf-spine": { lost_tbps: 25.6, capacity_tbps: 409.6, share_lost: 0.0625 } },
    leaf_uplink_left: { leaves: 32, leaves_degraded: 32, min_share: 0.9375 },
    bisection: { before_gbps: 203200, after_gbps: 193600, share_left: 0.952756 },
  });
  assert.equal(lines[0], "GPUs losing all fabric connectivity: 32 of 1,016");
  assert.equal(lines[3], "Leaf–spine: 25.6 Tb/s lost of 409.6 Tb/s (6.3 %)");
  assert.match(lines[4], /32 of 32; the worst keeps 93.8 %/);
  assert.equal(lines[5], "Bisection: 203.2 Tb/s before, 193.6 Tb/s after (95.3 % left)");
});
