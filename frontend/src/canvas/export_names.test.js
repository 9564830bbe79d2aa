import assert from "node:assert/strict";
import { test } from "node:test";

import { exportBaseName, exportFileName } from "./export_names.js";

test("exports name the design, revision and scope", () => {
  assert.equal(exportFileName({ designId: 12, revision: 3, view: "detail", scope: "su:1" }, "png"), "design-12-r3-su-1.png");
  assert.equal(exportFileName({ designId: 12, revision: 3, view: "detail", scope: "group:rack:R 7" }, "svg"), "design-12-r3-group-rack-R-7.svg");
  assert.equal(exportBaseName({ designId: 5, revision: 1, view: "detail", scope: "" }), "design-5-r1-all");
});

test("the overview and unsaved drawings have names too", () => {
  assert.equal(exportBaseName({ designId: 4, revision: 2, view: "overview", scope: "su:9" }), "design-4-r2-overview");
  assert.equal(exportFileName({ designId: null, revision: null, view: "detail", scope: "all" }, "png"), "new-fabric-all.png");
});
