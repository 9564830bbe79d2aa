import { test } from "node:test";
import assert from "node:assert/strict";

import { eventForResponse, initialSaveState, saveAction, saveProgressText, saveReducer } from "./save.js";

const run = (state, ...events) => events.reduce(saveReducer, state);

test("save then 201: new revision, idle", () => {
  const s = run(initialSaveState({ revision: 3 }), { type: "save" });
  assert.equal(s.status, "saving");
  assert.equal(s.base, 3);
  const done = saveReducer(s, eventForResponse({ status: 201, data: { revision: 4 } }));
  assert.equal(done.status, "idle");
  assert.equal(done.revision, 4);
  assert.match(done.message, /revision 4/);
  assert.deepEqual(eventForResponse({ status: 201, data: { number: 7, kind: "edited" } }), { type: "saved", revision: 7 });
  assert.deepEqual(eventForResponse({ status: 201, data: { id: 3, latest_revision: 1 } }), { type: "saved", revision: 1 });
});

test("409 with stale_parameters: not stored, back to idle (Save anyway stores it)", () => {
  const stale = [{ parameter: "servers", message: "servers: the spec says 288, the drawing has 287" }];
  const event = eventForResponse({ status: 409, data: { detail: "Not saved", stale_parameters: stale } });
  assert.deepEqual(event, { type: "stale", stale });
  const s = run(initialSaveState({ revision: 2 }), { type: "save" }, event);
  assert.equal(s.status, "idle");
  assert.equal(s.revision, 2);
  assert.equal(saveAction(s, { dirty: true, editable: true, designId: 3 }), "save");
  // a 409 without stale_parameters is still a conflict; "stale" only ends a save under way
  assert.equal(eventForResponse({ status: 409, data: { latest_revision: 5 } }).type, "conflict");
  assert.equal(saveReducer(initialSaveState({ revision: 2 }), event).status, "idle");
});

test("400 lists the problems; the next save clears them", () => {
  const problems = [{ code: "ports", message: "port 3 used twice", element_ids: ["link:0"], severity: "error" }];
  const s = run(initialSaveState({ revision: 1 }), { type: "save" }, eventForResponse({ status: 400, data: { problems } }));
  assert.equal(s.status, "problems");
  assert.deepEqual(s.problems, problems);
  const again = saveReducer(s, { type: "save" });
  assert.equal(again.status, "saving");
  assert.deepEqual(again.problems, []);
});

test("400 in DRF's field shape becomes problems too", () => {
  const event = eventForResponse({ status: 400, data: { name: ["This field is required."] } });
  assert.equal(event.type, "problems");
  assert.match(event.problems[0].message, /name: This field is required/);
});

test("409 then Keep mine: saves again based on the latest revision", () => {
  let s = run(initialSaveState({ revision: 2 }), { type: "save" });
  s = saveReducer(s, eventForResponse({ status: 409, data: { detail: "Revision 2 is no longer the latest", latest_revision: 5 } }));
  assert.equal(s.status, "conflict");
  assert.equal(s.latest, 5);
  assert.equal(saveAction(s, { dirty: true, editable: true, designId: 1 }), null, "choose first");
  assert.equal(saveReducer(s, { type: "save" }).status, "saving", "but a direct save is allowed");
  const keep = saveReducer(s, { type: "keepMine" });
  assert.equal(keep.status, "saving");
  assert.equal(keep.base, 5);
  const saved = saveReducer(keep, { type: "saved", revision: 6 });
  assert.equal(saved.revision, 6);
  assert.equal(saved.latest, null);
});

test("409 then Reload: loads the latest, drops the edit", () => {
  let s = run(initialSaveState({ revision: 2 }), { type: "save" }, { type: "conflict", latest: 4 });
  s = saveReducer(s, { type: "reload" });
  assert.equal(s.status, "reloading");
  assert.equal(saveReducer(s, { type: "save" }), s, "no save while reloading");
  s = saveReducer(s, { type: "reloaded", revision: 4 });
  assert.equal(s.status, "idle");
  assert.equal(s.revision, 4);
  assert.equal(s.base, 4);
});

test("reload and keepMine only act on a conflict; a network failure is an error", () => {
  const idle = initialSaveState({ revision: 1 });
  assert.equal(saveReducer(idle, { type: "reload" }), idle);
  assert.equal(saveReducer(idle, { type: "keepMine" }), idle);
  const failed = run(idle, { type: "save" }, eventForResponse({ status: 0, data: { detail: "The server did not answer" } }));
  assert.equal(failed.status, "error");
  assert.match(failed.message, /did not answer/);
  assert.equal(eventForResponse({ status: 403, data: {} }).type, "failed");
  assert.equal(saveReducer(failed, { type: "dismiss" }).status, "idle");
});

test("saveAction: create a new drawing, save a dirty one, nothing otherwise", () => {
  const idle = initialSaveState({ revision: null });
  assert.equal(saveAction(idle, { dirty: false, editable: true, designId: null }), "create");
  assert.equal(saveAction(idle, { dirty: true, editable: true, designId: 3 }), "save");
  assert.equal(saveAction(idle, { dirty: false, editable: true, designId: 3 }), null);
  assert.equal(saveAction(idle, { dirty: true, editable: false, designId: 3 }), null);
  assert.equal(saveAction({ ...idle, status: "saving" }, { dirty: true, editable: true, designId: 3 }), null);
});

test("a save under way says its step, the drawing's size and the time so far", () => {
  assert.equal(
    saveProgressText({ step: "store", elements: 4381, elapsedMs: 1234 }),
    "Saving… checking and storing the edit (4,381 elements) · 1.2 s",
  );
  assert.equal(saveProgressText({ step: "check", elapsedMs: 0 }), "Saving… checking the edit · 0.0 s");
  assert.equal(saveProgressText({ step: "reload", elements: 12, elapsedMs: 250 }), "Saving… loading the saved revision (12 elements) · 0.3 s");
  assert.equal(saveProgressText({ step: "other", elapsedMs: -5 }), "Saving… saving · 0.0 s");
  // a patch: how many changes it sends, then the size of the drawing
  assert.equal(
    saveProgressText({ step: "store", elements: 4946, changes: 1, elapsedMs: 600 }),
    "Saving… checking and storing the edit (1 change, 4,946 elements) · 0.6 s",
  );
  assert.equal(saveProgressText({ step: "redraw", elements: 4945, changes: 3, elapsedMs: 900 }), "Saving… drawing what changed (3 changes, 4,945 elements) · 0.9 s");
});
