import assert from "node:assert/strict";
import { test } from "node:test";

import { formatBandwidth, formatCount, formatUtilization } from "./format.js";

test("bandwidth in Gb/s, and Tb/s from 1,000 Gb/s", () => {
  assert.equal(formatBandwidth(800), "800 Gb/s");
  assert.equal(formatBandwidth("400"), "400 Gb/s");
  assert.equal(formatBandwidth(12800), "12.8 Tb/s");
  assert.equal(formatBandwidth(1000), "1 Tb/s");
  for (const unknown of [null, undefined, ""]) assert.equal(formatBandwidth(unknown), "—");
});

test("counts have separators; text stays as it is", () => {
  assert.equal(formatCount(1024), "1,024");
  assert.equal(formatCount(0), "0");
  assert.equal(formatCount("SU 1"), "SU 1");
  assert.equal(formatCount(null), "—");
});

test("utilization in whole percent, none when absent", () => {
  assert.equal(formatUtilization(0.426), "43 %");
  assert.equal(formatUtilization(0), "0 %");
  assert.equal(formatUtilization(undefined), null);
});
