import { test } from "node:test";
import assert from "node:assert/strict";
import cytoscape from "cytoscape";

import {
  buildEditDocument,
  freeNodeId,
  freePorts,
  linkLabel,
  nameProblem,
  nextName,
  nodeName,
  orientLink,
  pasteElements,
  portChoices,
  resolveProblemIds,
  tierOf,
  tierProblem,
  usedPorts,
} from "./document.js";

test("nextName continues after the highest number in use", () => {
  assert.equal(nextName("leaf", []), "leaf-1");
  assert.equal(nextName("leaf", ["leaf-1", "leaf-2", "server-9"]), "leaf-3");
  assert.equal(nextName("leaf", ["leaf-7", "leaf-2"]), "leaf-8");
  assert.equal(nextName("leaf", ["leafy-4", "leaf-x"]), "leaf-1");
  assert.equal(nextName("a.b", ["axb-3"]), "a.b-1", "prefix is literal, not a pattern");
});

test("freeNodeId avoids ids in use (a renamed device keeps its old id)", () => {
  const ids = new Set(["node:leaf-1", "node:leaf-1~2"]);
  assert.equal(freeNodeId("leaf-2", (id) => ids.has(id)), "node:leaf-2");
  assert.equal(freeNodeId("leaf-1", (id) => ids.has(id)), "node:leaf-1~3");
});

test("nodeName prefers name, then label, then the id", () => {
  assert.equal(nodeName({ id: "node:a", label: "b", name: "c" }), "c");
  assert.equal(nodeName({ id: "node:a", label: "b" }), "b");
  assert.equal(nodeName({ id: "node:a" }), "a");
});

test("nameProblem: empty, padded, duplicate, fine", () => {
  assert.match(nameProblem("", []), /name/);
  assert.match(nameProblem(" x", []), /space/);
  assert.match(nameProblem("leaf-1", ["leaf-1"]), /Another device/);
  assert.equal(nameProblem("leaf-9", ["leaf-1"]), null);
});

test("orientLink puts the lower tier first", () => {
  const server = { id: "s", role: "server" };
  const leaf = { id: "l", role: "leaf" };
  assert.deepEqual(orientLink(leaf, server), { a: server, b: leaf, swapped: true });
  assert.deepEqual(orientLink(server, leaf), { a: server, b: leaf, swapped: false });
  assert.equal(tierOf("spine", "leaf"), "leaf-spine");
  assert.equal(tierOf("server", "leaf"), "server-leaf");
  assert.equal(tierOf("core", "spine"), "spine-core");
});

test("tierProblem allows adjacent tiers only", () => {
  assert.equal(tierProblem({ role: "leaf" }, { role: "server" }), null);
  assert.equal(tierProblem({ role: "spine" }, { role: "core" }), null);
  assert.match(tierProblem({ role: "server" }, { role: "server" }), /Two servers/);
  assert.match(tierProblem({ role: "server" }, { role: "spine" }), /not adjacent/);
  assert.match(tierProblem({ role: "leaf" }, { role: "leaf" }), /not adjacent/);
});

test("port allocation offers only free ports, per end", () => {
  const edges = [
    { kind: "link", source: "s1", target: "l1", a_port: 1, b_port: 1 },
    { kind: "link", source: "s1", target: "l1", a_port: 2, b_port: 3 },
    { kind: "bundle", source: "s1", target: "l1", a_port: 4, b_port: 4 },
  ];
  assert.deepEqual([...usedPorts("l1", edges)].sort(), [1, 3]);
  assert.deepEqual(freePorts(4, new Set([1, 3])), [2, 4]);
  const choice = portChoices({ id: "s1", ports: 2 }, { id: "l1", ports: 4 }, edges);
  assert.deepEqual(choice.a, []);
  assert.deepEqual(choice.b, [2, 4]);
  assert.match(choice.problem, /no free port/);
  // Editing a link keeps its own ports on offer.
  const editing = portChoices({ id: "s1", ports: 2 }, { id: "l1", ports: 4 }, edges, { a_port: 2, b_port: 3 });
  assert.deepEqual(editing.a, [2]);
  assert.deepEqual(editing.b, [2, 3, 4]);
  assert.equal(editing.problem, null);
  assert.match(portChoices({ id: "x", ports: 0, label: "x" }, { id: "y", ports: 2 }, []).problem, /no known/);
});

test("edit document from cytoscape elements: devices and links by name, groups left out", () => {
  const cy = cytoscape({ headless: true, styleEnabled: false });
  cy.add([
    { data: { id: "group:su:1", kind: "group", label: "SU 1" } },
    { data: { id: "node:leaf-1", name: "leaf-1", kind: "device", role: "leaf", model: "QM9700", parent: "group:su:1", edit_extra: { su: 1, rail: 2, group: 1 } }, position: { x: 10.04, y: 20 } },
    { data: { id: "node:srv", label: "dgx-a", kind: "device", role: "server", model: "DGX-H100" }, position: { x: 0, y: 100 } },
    { data: { id: "link:7", source: "node:srv", target: "node:leaf-1", kind: "link", a_port: 1, b_port: 5, a_part: "MMA4Z00-NS", b_part: "MMA4Z00-NS", cable: "MFP7E10-N003", length_m: 3, speed_gbps: 400, label: "x" } },
    { data: { id: "bundle:1", source: "node:srv", target: "node:leaf-1", kind: "bundle", links: 4 } },
  ]);
  const plain = (eles) => eles.map((e) => ({ data: e.data(), position: e.isNode() ? e.position() : undefined }));
  const doc = buildEditDocument(plain(cy.nodes()), plain(cy.edges()));
  assert.deepEqual(doc.nodes, [
    { name: "dgx-a", model: "DGX-H100", role: "server", x: 0, y: 100 },
    { su: 1, rail: 2, group: 1, name: "leaf-1", model: "QM9700", role: "leaf", x: 10, y: 20 },
  ]);
  assert.deepEqual(doc.links, [
    { a: "dgx-a", a_port: 1, b: "leaf-1", b_port: 5, a_part: "MMA4Z00-NS", b_part: "MMA4Z00-NS", cable: "MFP7E10-N003", length_m: 3, speed_gbps: 400 },
  ]);
  assert.deepEqual(doc.linkIds, ["link:7"]);
  // A renamed device is saved under its new name; its links follow it.
  cy.$id("node:leaf-1").data({ name: "leaf-A", label: "leaf-A" });
  const renamed = buildEditDocument(plain(cy.nodes()), plain(cy.edges()));
  assert.equal(renamed.links[0].b, "leaf-A");
  assert.deepEqual(resolveProblemIds(["link:0", "node:leaf-A", "rack:3"], renamed), ["link:7", "node:leaf-1", "rack:3"]);
});

test("paste copies devices with new names and the links among them", () => {
  let n = 0;
  const clip = {
    nodes: [
      { data: { id: "node:leaf-1", name: "leaf-1", label: "leaf-1", role: "leaf", parent: "g", edit_extra: { su: 1 } }, position: { x: 0, y: 0 } },
      { data: { id: "node:server-1", name: "server-1", label: "server-1", role: "server" }, position: { x: 5, y: 50 } },
    ],
    edges: [
      { data: { id: "link:0", source: "node:server-1", target: "node:leaf-1", a_port: 1, b_port: 1 } },
      { data: { id: "link:1", source: "node:server-1", target: "node:other", a_port: 2, b_port: 1 } },
    ],
  };
  const out = pasteElements(clip, {
    names: ["leaf-1", "server-1", "leaf-2"],
    exists: (id) => id === "node:leaf-3",
    offset: 40,
    edgeId: () => `link:new-${(n += 1)}`,
  });
  assert.equal(out.length, 3);
  assert.equal(out[0].data.name, "leaf-3");
  assert.equal(out[0].data.id, "node:leaf-3~2");
  assert.equal(out[0].data.parent, undefined);
  assert.equal(out[0].data.edit_extra, undefined);
  assert.deepEqual(out[0].position, { x: 40, y: 40 });
  assert.equal(out[1].data.name, "server-2");
  assert.deepEqual(out[2].data, { id: "link:new-1", source: "node:server-2", target: "node:leaf-3~2", a_port: 1, b_port: 1 });
});

test("linkLabel", () => {
  assert.equal(linkLabel({ speed_gbps: 400, media_kind: "DAC", length_m: 3 }), "400G DAC 3 m");
  assert.equal(linkLabel({}), "");
});
