import assert from "node:assert/strict";
import { test } from "node:test";

import { formatCount, formatMoney, formatNumber, formatQuantity, formatSeverityCounts } from "./format.js";

test("numbers get thousands separators, none is a dash", () => {
  assert.equal(formatNumber(1016), "1,016");
  assert.equal(formatNumber(4620858), "4,620,858");
  assert.equal(formatNumber(2.5), "2.5");
  assert.equal(formatNumber(1234.56), "1,234.6");
  assert.equal(formatNumber(null), "—");
  assert.equal(formatNumber(undefined), "—");
});

test("quantities carry their unit", () => {
  assert.equal(formatQuantity(409600, "Gb/s"), "409,600 Gb/s");
  assert.equal(formatQuantity(null, "W"), "—");
});

test("counts name the noun, singular for one", () => {
  assert.equal(formatCount(1016, "GPU"), "1,016 GPUs");
  assert.equal(formatCount(1, "note"), "1 note");
  assert.equal(formatCount(2, "entry", "entries"), "2 entries");
});

test("money is to the cent with separators and currency", () => {
  assert.equal(formatMoney(32870, "USD"), "32,870.00 USD");
  assert.equal(formatMoney("32870.5"), "32,870.50");
  assert.equal(formatMoney(null, "USD"), "—");
});

test("severity counts read errors, warnings, notes", () => {
  assert.equal(formatSeverityCounts({ error: 0, warning: 1, info: 3 }), "1 warning, 3 notes");
  assert.equal(formatSeverityCounts({ error: 2 }), "2 errors");
  assert.equal(formatSeverityCounts({}), "no problems");
});
