import assert from "node:assert/strict";
import { test } from "node:test";

import cytoscape from "cytoscape";

import { updateElements } from "./views.js";

const node = (id, x, extra = {}) => ({ group: /** @type {const} */ ("nodes"), data: { id, kind: "device", ...extra }, position: { x, y: 0 } });
const edge = (id, source, target, extra = {}) => ({ group: /** @type {const} */ ("edges"), data: { id, source, target, kind: "link", ...extra } });

function drawing() {
  return cytoscape({ headless: true, layout: { name: "preset" }, elements: [node("a", 0), node("b", 100), node("c", 200), edge("link:0", "a", "b"), edge("link:1", "b", "c")] });
}

test("the same elements again change nothing: the elements stay the same objects", () => {
  const cy = drawing();
  const before = cy.getElementById("link:0");
  const counts = updateElements(cy, [node("a", 0), node("b", 100), node("c", 200)], [edge("link:0", "a", "b"), edge("link:1", "b", "c")]);
  assert.deepEqual(counts, { added: 0, removed: 0, changed: 0 });
  assert.equal(cy.getElementById("link:0"), before);
});

test("only what differs changes: a link gone, a node moved, data renamed, a new link", () => {
  const cy = drawing();
  cy.getElementById("a").data("edit_extra", { su: 1 });
  cy.getElementById("a").data("heat", "#ff0000");
  const counts = updateElements(
    cy,
    [node("a", 0, { label: "leaf-a" }), node("b", 150), node("c", 200)],
    [edge("link:0", "a", "b"), edge("link:2", "a", "c")],
  );
  assert.deepEqual(counts, { added: 1, removed: 1, changed: 2 });
  assert.ok(cy.getElementById("link:1").empty());
  assert.equal(cy.getElementById("link:2").data("target"), "c");
  assert.equal(cy.getElementById("b").position().x, 150);
  assert.equal(cy.getElementById("a").data("label"), "leaf-a");
  assert.deepEqual(cy.getElementById("a").data("edit_extra"), { su: 1 }, "kept: the canvas adds it");
  assert.equal(cy.getElementById("a").data("heat"), undefined, "an overlay's data goes");
});

test("an edge whose ends changed is replaced; a replaced node's links come back", () => {
  const cy = drawing();
  updateElements(cy, [node("a", 0), node("b", 100, { parent: "g" }), node("c", 200), { group: /** @type {const} */ ("nodes"), data: { id: "g", kind: "group" } }], [edge("link:0", "a", "c"), edge("link:1", "b", "c")]);
  assert.equal(cy.getElementById("link:0").data("target"), "c");
  assert.equal(cy.getElementById("b").data("parent"), "g");
  assert.equal(cy.getElementById("link:1").nonempty(), true);
  assert.equal(cy.elements().length, 6);
});
