import { test } from "node:test";
import assert from "node:assert/strict";

import { createSaveTracker, inversePatch } from "./history.js";

test("dirty follows the undo stack relative to the saved point", () => {
  const t = createSaveTracker();
  assert.equal(t.dirty(), false);
  t.done();
  assert.equal(t.dirty(), true);
  t.undone();
  assert.equal(t.dirty(), false, "undone back to the saved state");
  t.redone();
  t.saved();
  assert.equal(t.dirty(), false);
  t.done();
  t.undone();
  assert.equal(t.dirty(), false);
});

test("a new action after undoing past the save point loses the saved state", () => {
  const t = createSaveTracker();
  t.done();
  t.done();
  t.saved(); // at 2
  t.undone();
  t.undone(); // at 0, saved state is on the redo stack
  t.done(); // redo stack gone
  assert.equal(t.dirty(), true);
  t.undone();
  assert.equal(t.dirty(), true, "position 0 is not the saved state");
});

test("reset: a loaded drawing is clean, a blank unsaved one may be forced dirty", () => {
  const t = createSaveTracker();
  t.done();
  t.reset();
  assert.equal(t.dirty(), false);
  assert.equal(t.depth(), 0);
  t.reset(true);
  assert.equal(t.dirty(), true);
  t.saved();
  assert.equal(t.dirty(), false);
});

test("inversePatch keeps the replaced values", () => {
  assert.deepEqual(inversePatch({ name: "a", cable: "X" }, { name: "b", a_part: "P" }), { name: "a", a_part: null });
});
