import assert from "node:assert/strict";
import { test } from "node:test";

import { crowdedLabels } from "./labels.js";

const box = (id, rank, x1, y1, w = 40, h = 10) => ({ id, rank, x1, y1, x2: x1 + w, y2: y1 + h });

test("of two overlapping labels the more important stays", () => {
  const hidden = crowdedLabels([box("server-1", 5, 0, 0), box("leaf-1", 3, 20, 2)]);
  assert.deepEqual([...hidden], ["server-1"]);
});

test("labels that only touch, or stand apart, all stay", () => {
  assert.equal(crowdedLabels([box("a", 5, 0, 0), box("b", 5, 38, 0), box("c", 5, 0, 200)]).size, 0);
});

test("a row of crowded labels keeps every other one, and none of the kept overlap", () => {
  const row = Array.from({ length: 10 }, (_, i) => box(`s${i}`, 5, i * 25, 0));
  const hidden = crowdedLabels(row);
  const kept = row.filter((b) => !hidden.has(b.id));
  assert.deepEqual(kept.map((b) => b.id), ["s0", "s2", "s4", "s6", "s8"]);
  for (const a of kept) for (const b of kept) if (a !== b) assert.ok(a.x2 - 4 <= b.x1 || b.x2 - 4 <= a.x1);
});

test("boxes across grid cells are compared; empty boxes are ignored", () => {
  const hidden = crowdedLabels([box("big", 0, 100, 100, 300, 300), box("inside", 5, 350, 350), box("empty", 0, 0, 0, 0, 0)]);
  assert.deepEqual([...hidden], ["inside"]);
});
