import { test } from "node:test";
import assert from "node:assert/strict";

import { buildEditDocument } from "./document.js";
import { editPatch, entriesAfter, linkRenumbering, patchProblemIds, savedEntries } from "./patch.js";

// A saved revision's edit document, as GET revisions/N/topology/ answers it (nulls included).
const SAVED = {
  nodes: [
    { name: "s1", model: "DGX-H100", role: "server", x: 0, y: 400, su: 1, rack: "r1", ru: 3 },
    { name: "s2", model: "DGX-H100", role: "server", x: 120, y: 400, su: 1, rack: "r1", ru: 9 },
    { name: "l1", model: "QM9700", role: "leaf", x: 0, y: 0, plane: 1 },
  ],
  links: [
    { a: "s1", a_port: 1, b: "l1", b_port: 1, speed_gbps: 400, a_part: "X", b_part: "Y", cable: null, length_m: 5 },
    { a: "s2", a_port: 1, b: "l1", b_port: 2, speed_gbps: 400, a_part: "X", b_part: "Y", cable: null, length_m: 5 },
    { a: "s2", a_port: 2, b: "l1", b_port: 3, speed_gbps: 400, a_part: null, b_part: null, cable: "C", length_m: 3 },
  ],
};

/**
 * The drawing of SAVED as the canvas holds it (ids as the server names them).
 * @returns {{nodes: {data: Record<string, any>, position: {x: number, y: number}}[], edges: {data: Record<string, any>}[]}}
 */
function drawing() {
  const extra = (node) => Object.fromEntries(["plane", "su", "rail", "group", "rack", "ru"].filter((k) => node[k] !== undefined).map((k) => [k, node[k]]));
  const nodes = SAVED.nodes.map((n) => ({
    data: { id: `node:${n.name}`, kind: "device", name: n.name, label: n.name, model: n.model, role: n.role, edit_extra: extra(n) },
    position: { x: n.x, y: n.y },
  }));
  const edges = SAVED.links.map((l, i) => ({
    data: { id: `link:${i}`, kind: "link", source: `node:${l.a}`, target: `node:${l.b}`, a_port: l.a_port, b_port: l.b_port, speed_gbps: l.speed_gbps, a_part: l.a_part, b_part: l.b_part, cable: l.cable, length_m: l.length_m },
  }));
  return { nodes, edges };
}

const patchOf = ({ nodes, edges }) => editPatch(savedEntries(SAVED), buildEditDocument(nodes, edges));

test("the drawing as saved makes an empty patch", () => {
  const made = patchOf(drawing());
  assert.equal(made.size, 0);
  assert.deepEqual(made.created, []);
});

test("a moved node is set whole, with the structure it keeps", () => {
  const d = drawing();
  d.nodes[1].position = { x: 130.04, y: 400 };
  const made = patchOf(d);
  assert.equal(made.size, 1);
  assert.deepEqual(made.patch.nodes_set, [{ su: 1, rack: "r1", ru: 9, name: "s2", model: "DGX-H100", role: "server", x: 130, y: 400 }]);
  assert.deepEqual(made.created, []);
});

test("a link removed is its index; one changed keeps it; a new one is added", () => {
  const d = drawing();
  d.edges.splice(1, 1);
  d.edges[1].data.length_m = 7;
  d.edges.push({ data: { id: "link:new-1", kind: "link", source: "node:s1", target: "node:l1", a_port: 2, b_port: 4 } });
  const made = patchOf(d);
  assert.deepEqual(made.patch.links_removed, [1]);
  assert.deepEqual(made.patch.links_changed, [{ index: 2, link: { a: "s2", a_port: 2, b: "l1", b_port: 3, cable: "C", length_m: 7, speed_gbps: 400 } }]);
  assert.deepEqual(made.patch.links_added, [{ a: "s1", a_port: 2, b: "l1", b_port: 4 }]);
  assert.deepEqual(made.addedLinkIds, ["link:new-1"]);
  assert.deepEqual(made.created, ["link:new-1"]);
  assert.equal(made.size, 3);
});

test("a renamed node is removed and set, and its links change", () => {
  const d = drawing();
  d.nodes[2].data = { ...d.nodes[2].data, name: "leaf-a", label: "leaf-a" };
  const made = patchOf(d);
  assert.deepEqual(made.patch.nodes_removed, ["l1"]);
  assert.deepEqual(made.patch.nodes_set.map((n) => n.name), ["leaf-a"]);
  assert.deepEqual(made.patch.links_changed.map((c) => [c.index, c.link.b]), [[0, "leaf-a"], [1, "leaf-a"], [2, "leaf-a"]]);
  assert.deepEqual(made.created, ["node:l1"]);
});

test("two nodes swapping names set each other (a name is never removed and set)", () => {
  const d = drawing();
  d.nodes[0].data = { ...d.nodes[0].data, name: "s2" };
  d.nodes[1].data = { ...d.nodes[1].data, name: "s1" };
  const made = patchOf(d);
  assert.deepEqual(made.patch.nodes_removed, []);
  assert.deepEqual(made.patch.nodes_set.map((n) => n.name).sort(), ["s1", "s2"]);
  assert.deepEqual(made.created.sort(), ["node:s1", "node:s2"]);
});

test("a node deleted with its links", () => {
  const d = drawing();
  d.nodes.splice(0, 1);
  d.edges.splice(0, 1);
  const made = patchOf(d);
  assert.deepEqual(made.patch.nodes_removed, ["s1"]);
  assert.deepEqual(made.patch.links_removed, [0]);
});

test("links after a removed one move up; only those are renumbered", () => {
  assert.deepEqual([...linkRenumbering(5, [1, 3])], [["link:2", "link:1"], ["link:4", "link:2"]]);
  assert.deepEqual([...linkRenumbering(3, [2])], []);
  assert.deepEqual([...linkRenumbering(3, [])], []);
});

test("after a save the saved entries follow the renumbering", () => {
  const saved = savedEntries(SAVED);
  const after = entriesAfter(saved, { nodes_removed: ["s1"], nodes_set: [], links_removed: [0], links_changed: [], links_added: [{}] });
  assert.deepEqual([...after.links.keys()], ["link:0", "link:1"]);
  assert.equal(after.links.get("link:0"), saved.links.get("link:1"));
  assert.equal(after.linkCount, 3);
  assert.deepEqual([...after.nodes.keys()], ["node:s2", "node:l1"]);
});

test("a patch's problems name the drawing's elements", () => {
  const sent = { addedLinkIds: ["link:new-4"], nodeIds: new Map([["leaf-a", "node:l1"]]) };
  assert.deepEqual(patchProblemIds(["link:added-0", "link:3", "node:leaf-a", "node:s9"], sent), ["link:new-4", "link:3", "node:l1", "node:s9"]);
});
