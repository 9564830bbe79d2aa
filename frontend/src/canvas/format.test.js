import assert from "node:assert/strict";
import { test } from "node:test";

import { endText, formatBandwidth, formatCount, formatUtilization, portName } from "./format.js";

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

test("ports are named cage/lane, tray/NIC, or by number (planner.domain.names)", () => {
  assert.equal(portName({ per_cage: 2, tray_ports: 0, planes: 1 }, 6), "3/2");
  assert.equal(portName({ per_cage: 1, tray_ports: 0, planes: 1 }, 17), "17");
  assert.equal(portName({ per_cage: 1, tray_ports: 4, planes: 1 }, 5), "tray 2 NIC 1");
  assert.equal(portName({ per_cage: 1, tray_ports: 8, planes: 2 }, 4), "tray 1 NIC 2 plane 2");
  assert.equal(portName(undefined, 3), "3");
  assert.equal(endText("leaf-1", "3/2"), "leaf-1 3/2");
  assert.equal(endText("leaf-1", "17"), "leaf-1 port 17");
  assert.equal(endText("gpu00001", "tray 2 NIC 1"), "gpu00001 tray 2 NIC 1");
});
