import { test } from "node:test";
import assert from "node:assert/strict";

import { planeChoices, planeValue } from "./planes.js";

test("plane choices: all planes, then each plane; none for one plane", () => {
  assert.deepEqual(planeChoices(2), [
    { value: "", label: "All planes" },
    { value: "1", label: "Plane 1" },
    { value: "2", label: "Plane 2" },
  ]);
  assert.deepEqual(planeChoices(1), []);
  assert.deepEqual(planeChoices(undefined), []);
  assert.equal(planeChoices(4).length, 5);
});

test("plane values: whole numbers within the plane count, else every plane", () => {
  assert.equal(planeValue("2", 2), 2);
  assert.equal(planeValue(" 1 ", 4), 1);
  assert.equal(planeValue("3", 2), null);
  assert.equal(planeValue("0", 2), null);
  assert.equal(planeValue("", 2), null);
  assert.equal(planeValue("all", 2), null);
  assert.equal(planeValue("1.5", 2), null);
  assert.equal(planeValue("7"), 7, "kept until the plane count is known");
  assert.equal(planeValue(null), null);
});
