import { test } from "node:test";
import assert from "node:assert/strict";

import { ASBUILT_KINDS, asbuiltCounts, asbuiltStyles, asbuiltUrl, findingText } from "./asbuilt.js";

const overlay = {
  links: { "link:1": "missing", "link:2": "swapped-ports", "link:9": "wrong-rail" },
  findings: [
    { kind: "missing", a: { device: "gpu00041", port: "2/2" }, b: { device: "leaf-su002-r4", port: "5/1", rack: "R001-14", ru: "4" }, links: ["link:1"] },
    { kind: "swapped-ports", a: { device: "gpu00001", port: "1/1" }, b: { device: "leaf-su001-r1", port: "1/2" }, links: ["link:2"] },
    { kind: "unexpected", a: { device: "leaf-su004-r8", port: "16/2" }, b: { device: "laptop", port: "eth0" }, links: [] },
  ],
};

test("only drawn links named by the check get a style; missing is dashed", () => {
  const styles = asbuiltStyles(overlay, ["link:1", "link:2", "link:3"]);
  assert.deepEqual(Object.keys(styles), ["link:1", "link:2"]);
  assert.equal(styles["link:1"].dashed, true);
  assert.equal(styles["link:2"].color, ASBUILT_KINDS.find((k) => k.kind === "swapped-ports").color);
  assert.deepEqual(asbuiltStyles({}, ["link:1"]), {});
});

test("counts per kind and one line per finding", () => {
  const counts = asbuiltCounts(overlay);
  assert.equal(counts.missing, 1);
  assert.equal(counts.unexpected, 1);
  assert.equal(counts["wrong-plane"], 0);
  assert.equal(findingText(overlay.findings[0]), "missing: gpu00041 2/2 → leaf-su002-r4 5/1 (rack R001-14 U4)");
  assert.equal(asbuiltUrl(3, 2), "/api/planner/designs/3/revisions/2/as-built/overlay/");
});
