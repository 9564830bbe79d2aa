import { test } from "node:test";
import assert from "node:assert/strict";

import { EDIT_LIMIT, OPEN_ALL_LIMIT, RENDER_LIMIT, budgetProblem, editability, initialView, scopeChoices, summaryElements, tooLargeToEdit } from "./budget.js";

test("summaryElements counts servers, switches and links", () => {
  assert.equal(summaryElements({ servers: 32, switches_total: 8, links: { "server-leaf": 256, "leaf-spine": 0 } }), 296);
  assert.equal(summaryElements(null), null);
  assert.equal(summaryElements({}), null);
});

test("small and hand-drawn designs open in 'all'; large ones in the overview", () => {
  assert.deepEqual(initialView({ elements: 300 }), { view: "detail", scope: "all" });
  assert.deepEqual(initialView({ elements: EDIT_LIMIT + 1 }), { view: "overview", scope: "" });
  // A GB300 NVL72 fabric (1,152 links) opens on the overview, though it could be edited whole.
  assert.deepEqual(initialView({ elements: OPEN_ALL_LIMIT }), { view: "detail", scope: "all" });
  assert.deepEqual(initialView({ elements: 1300 }), { view: "overview", scope: "" });
  assert.deepEqual(initialView({ elements: null, handDrawn: true }), { view: "detail", scope: "all" });
  assert.deepEqual(initialView({ elements: null }), { view: "overview", scope: "" });
});

test("only the 'all' view within the budget, for writers, is editable", () => {
  assert.equal(editability({ view: "detail", scope: "all", elements: 10, canWrite: true }).editable, true);
  assert.match(editability({ view: "overview", scope: "", elements: 10, canWrite: true }).reason, /exploring/);
  assert.match(editability({ view: "detail", scope: "su:1", elements: 10, canWrite: true }).reason, /exploring/);
  assert.match(editability({ view: "detail", scope: "all", elements: EDIT_LIMIT + 1, canWrite: true }).reason, /limited to 5,000/);
  assert.match(editability({ view: "detail", scope: "all", elements: 1, canWrite: false }).reason, /not change/);
  const onePlane = editability({ view: "detail", scope: "all", elements: 10, canWrite: true, plane: 2 });
  assert.equal(onePlane.editable, false);
  assert.match(onePlane.reason, /Only plane 2 is shown: choose “All planes” to edit/);
});

test("a design over the edit limit says what to use instead in every view (issue 15 item 4)", () => {
  const big = EDIT_LIMIT * 2;
  for (const [view, scope] of [["overview", ""], ["detail", "su:1"], ["detail", "all"]]) {
    const { editable, reason } = editability({ view, scope, elements: 600, canWrite: true, designElements: big });
    assert.equal(editable, false);
    assert.equal(reason, tooLargeToEdit(big));
    assert.doesNotMatch(reason, /Whole fabric/);
  }
  assert.match(tooLargeToEdit(big), /10,000 elements/);
  assert.match(tooLargeToEdit(big), /cabling-plan uploads edit designs of up to 5,000/);
  assert.match(tooLargeToEdit(big), /“Edit spec” on the design page/);
  // A small design's scoped view still points at the whole-fabric view, which exists for it.
  assert.match(editability({ view: "detail", scope: "su:1", elements: 10, canWrite: true, designElements: 300 }).reason, /Whole fabric/);
  // A viewer is told that first.
  assert.match(editability({ view: "overview", scope: "", elements: 10, canWrite: false, designElements: big }).reason, /not change/);
});

test("budgetProblem refuses growth past the edit limit", () => {
  assert.equal(budgetProblem(EDIT_LIMIT - 2, 2), null);
  assert.match(budgetProblem(EDIT_LIMIT, 1), /at most 5,000/);
});

test("scope choices mark views too large to draw", () => {
  const choices = scopeChoices([
    { id: "su:1", label: "SU 1", elements: 600 },
    { id: "all", label: "All", elements: RENDER_LIMIT + 1 },
  ]);
  assert.deepEqual(choices[0], { id: "su:1", label: "SU 1 (600 elements)", disabled: false });
  assert.equal(choices[1].disabled, true);
  assert.match(choices[1].label, /too large/);
});
