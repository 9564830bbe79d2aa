import { test } from "node:test";
import assert from "node:assert/strict";

import { LAYER_COLORS, elementLayers, layerChoices, layerStatus, shownWith } from "./layers.js";

const NETWORKS = [
  { id: "compute", label: "Compute", devices: 176, links: 2044 },
  { id: "oob", label: "OOB", devices: 8, links: 333, managed_ports: 315 },
  { id: "storage", label: "Storage", devices: 17, links: 602 },
];

test("layer choices: only the layers present, in the control's order, with colour and counts", () => {
  const choices = layerChoices(NETWORKS);
  assert.deepEqual(
    choices.map((c) => c.id),
    ["compute", "storage", "oob"],
  );
  assert.equal(choices[0].detail, "176 devices · 2,044 links");
  assert.equal(choices[2].detail, "8 devices · 333 links · 315 managed ports drawn per OOB switch");
  assert.equal(choices[1].color, LAYER_COLORS.storage);
  assert.notEqual(choices[1].color, choices[2].color);
});

test("layer choices: none for a design with only its compute fabric", () => {
  assert.deepEqual(layerChoices([{ id: "compute", devices: 10, links: 4 }]), []);
  assert.deepEqual(layerChoices(undefined), []);
});

test("an element shows while any of its layers is on", () => {
  const server = { kind: "device", network: "compute", layers: ["compute", "storage"] };
  const leaf = { kind: "device", network: "compute" };
  const storageLink = { kind: "network-link", network: "storage" };
  assert.deepEqual(elementLayers(leaf), ["compute"]);
  assert.deepEqual(elementLayers({ kind: "device" }), ["compute"]);
  const noCompute = new Set(["compute"]);
  assert.equal(shownWith(server, noCompute), true);
  assert.equal(shownWith(leaf, noCompute), false);
  assert.equal(shownWith(storageLink, noCompute), true);
  const noStorage = new Set(["storage"]);
  assert.equal(shownWith(server, noStorage), true);
  assert.equal(shownWith(storageLink, noStorage), false);
  assert.equal(shownWith(server, new Set(["compute", "storage"])), false);
});

test("the status after a toggle names what is hidden, with separators", () => {
  const choices = layerChoices(NETWORKS);
  assert.equal(layerStatus(choices, new Set(), 3203, 3203), "Every network shown: 3,203 of 3,203 elements shown.");
  assert.equal(layerStatus(choices, new Set(["storage", "oob"]), 2500, 3203), "Storage, OOB hidden: 2,500 of 3,203 elements shown.");
});
