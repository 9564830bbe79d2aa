import { test } from "node:test";
import assert from "node:assert/strict";

import { NO_DATA, formatPower, heatColor, heatLegend, rackPower } from "./heat.js";

function rgb(hex) {
  return [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
}

test("heat colour runs green -> yellow -> red and clamps", () => {
  const [r0, g0] = rgb(heatColor(0));
  assert.ok(g0 > r0 * 3, "idle is green");
  const [r1, g1] = rgb(heatColor(1));
  assert.ok(r1 > g1 * 3, "full is red");
  const [rh, gh, bh] = rgb(heatColor(0.5));
  assert.ok(Math.abs(rh - gh) < 10 && bh < rh / 3, "half is yellow");
  assert.equal(heatColor(1.7), heatColor(1));
  assert.equal(heatColor(-1), heatColor(0));
  assert.equal(heatColor(null), NO_DATA);
  assert.equal(heatColor(/** @type {any} */ ("x")), NO_DATA);
  assert.match(heatColor(0.33), /^#[0-9a-f]{6}$/);
});

test("redness grows with utilization", () => {
  let previous = -Infinity;
  for (let u = 0; u <= 1; u += 0.1) {
    const [r, g] = rgb(heatColor(u));
    const redness = r - g;
    assert.ok(redness >= previous, `u=${u}`);
    previous = redness;
  }
});

test("legend stops", () => {
  const stops = heatLegend(3);
  assert.deepEqual(stops.map((s) => s.label), ["0 %", "50 %", "100 %"]);
  assert.equal(stops[2].color, heatColor(1));
});

test("rack power levels and labels", () => {
  assert.equal(rackPower({ rack: "A1", power_w: 30000, limit_w: 40000 }).level, "ok");
  assert.equal(rackPower({ rack: "A1", power_w: 39000, limit_w: 40000 }).level, "tight");
  const over = rackPower({ rack: "A1", power_w: 41500, limit_w: 40000 });
  assert.equal(over.level, "over");
  assert.equal(over.label, "A1: 41.5 kW / 40 kW (104 %)");
  assert.equal(rackPower({ rack: "B", power_w: null, limit_w: 1 }).level, "unknown");
  assert.equal(rackPower({ rack: "B", power_w: 900, limit_w: null }).label, "B: 900 W");
  assert.equal(formatPower(undefined), "—");
});
