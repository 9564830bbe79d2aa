import assert from "node:assert/strict";
import { test } from "node:test";

import {
  aggregateFacts,
  bundleFacts,
  deviceFacts,
  groupFacts,
  linkFacts,
  networkAggregateFacts,
  networkBundleFacts,
  networkDeviceFacts,
  networkLinkFacts,
  powerText,
  selectionSummary,
  shownFacts,
  trayTables,
  viewFacts,
} from "./inspector_facts.js";

test("unknown facts are left out, the rest shown as text", () => {
  assert.deepEqual(shownFacts([["A", null], ["B", undefined], ["C", ""], ["D", 0], ["E", "x"]]), [["D", "0"], ["E", "x"]]);
});

test("an empty selection describes the view", () => {
  const facts = shownFacts(viewFacts({ view: "SU 1", devices: 1200, links: 0, aggregates: 0, bundles: 0, editable: false, reason: "" }));
  assert.deepEqual(facts, [["View", "SU 1"], ["Devices", "1,200"], ["Editing", "read-only"]]);
  const why = shownFacts(viewFacts({ view: "Overview", devices: 0, links: 0, aggregates: 4, bundles: 3, editable: false, reason: "The overview is read-only." }));
  assert.deepEqual(why, [["View", "Overview"], ["Aggregates", "4"], ["Bundles", "3"], ["Editing", "The overview is read-only."]]);
  assert.deepEqual(shownFacts(viewFacts({ view: "All", devices: 2, links: 1, aggregates: 0, bundles: 0, editable: true })).at(-1), ["Editing", "allowed"]);
  assert.equal(selectionSummary(3, 2), "3 nodes and 2 edges selected.");
});

test("a device: ports used of its own or the catalog's count, speed, power", () => {
  const info = { ports: 64, speed_gbps: 400, power_typical_w: 1100, power_max_w: 1720 };
  const facts = new Map(shownFacts(deviceFacts({ model: "QM9700", role: "leaf", ports: 0, rack: 3, ru: 40 }, info, 4)));
  assert.equal(facts.get("Ports used"), "4 of 64");
  assert.equal(facts.get("Ports free"), "60");
  assert.equal(facts.get("Port speed"), "400 Gb/s");
  assert.equal(facts.get("Power"), "1.1 kW typical, 1.7 kW max");
  assert.equal(facts.get("Rack"), "3");
  assert.equal(facts.has("SU"), false);
  const bare = new Map(shownFacts(deviceFacts({ model: "X", role: "server", speed_gbps: 800 }, undefined, 0)));
  assert.deepEqual([...bare.keys()], ["Model", "Role", "Port speed"]);
});

test("power says typical and max when the catalog has them", () => {
  assert.equal(powerText({ power_typical_w: 650 }), "650 W typical");
  assert.equal(powerText({ power_max_w: 2000 }), "2 kW max");
  assert.equal(powerText({ power_typical_w: null, power_max_w: null }), null);
  assert.equal(powerText(undefined), null);
});

test("aggregates, groups and bundles", () => {
  assert.deepEqual(shownFacts(aggregateFacts({ role: "leaf", model: "QM9700", count: 1024, scope: "su:1" })), [
    ["Kind", "aggregate"], ["Role", "leaf"], ["Model", "QM9700"], ["Devices", "1,024"], ["Scope", "su:1"],
  ]);
  assert.deepEqual(shownFacts(groupFacts({ rack: "R3", power_label: "12 kW of 40 kW" }, 18)), [
    ["Kind", "group"], ["Devices", "18"], ["Rack", "R3"], ["Rack power", "12 kW of 40 kW"],
  ]);
  assert.deepEqual(shownFacts(bundleFacts({ tier: "leaf-spine", links: 2048, bandwidth_gbps: 819200, utilization: 0.5 })), [
    ["Kind", "bundle"], ["Tier", "leaf-spine"], ["Links", "2,048"], ["Bandwidth", "819.2 Tb/s"], ["Utilization", "50 %"],
  ]);
});

test("a link names both ends by device and port", () => {
  const facts = shownFacts(linkFacts("server-1", "leaf-1", { a_port: 1, tier: "server-leaf", speed_gbps: 400, length_m: 0, media_kind: "DAC", cable: "C" }));
  assert.deepEqual(facts, [
    ["A end", "server-1 port 1"], ["B end", "leaf-1 port ?"], ["Tier", "server-leaf"], ["Speed", "400 Gb/s"],
    ["Length", "0 m"], ["Media", "DAC"], ["Cable", "C"],
  ]);
});

test("a rack-scale system lists its trays and where each NIC goes", () => {
  const trays = [
    { tray: 1, gpus: 4, nics: [{ rail: 1, plane: 1, port: 1, peer: "leaf-su001-r1-1", peer_port: 1 }, { rail: 2, plane: 1, port: 2, peer: null, peer_port: null }] },
  ];
  const [one] = trayTables(trays);
  assert.equal(one.summary, "Tray 1 · 4 GPUs · 2 NICs");
  assert.deepEqual(one.headers, ["NIC", "Rack port", "Leaf", "Leaf port"]);
  assert.deepEqual(one.rows, [["1", "1", "leaf-su001-r1-1", "1"], ["2", "2", "not connected", "—"]]);
  const planes = trayTables([{ tray: 12, gpus: null, nics: [{ rail: 1, plane: 1, port: 1, peer: "p1-leaf", peer_port: 1200 }, { rail: 1, plane: 2, port: 2, peer: "p2-leaf", peer_port: 3 }] }]);
  assert.equal(planes[0].summary, "Tray 12 · 1 NIC");
  assert.deepEqual(planes[0].headers, ["NIC", "Plane", "Rack port", "Leaf", "Leaf port"]);
  assert.deepEqual(planes[0].rows[0], ["1", "1", "1", "p1-leaf", "1,200"]);
  assert.deepEqual(trayTables(undefined), []);
  const facts = shownFacts(deviceFacts({ model: "GB300-NVL72", role: "server", compute_trays: 18, gpus: 72 }, null, 0));
  assert.deepEqual(facts.slice(-2), [["Compute trays", "18"], ["GPUs", "72"]]);
});

test("a network device: model, role, network, rack and links with separators", () => {
  const facts = Object.fromEntries(
    shownFacts(
      networkDeviceFacts({
        model: "QM9700",
        role: "storage-leaf",
        network: "storage",
        rack: "MGMT-01",
        ru: 3,
        links: 1234,
        links_by_network: { storage: 1233, oob: 1 },
      }),
    ),
  );
  assert.equal(facts.Model, "QM9700");
  assert.equal(facts.Role, "storage leaf");
  assert.equal(facts.Network, "Storage");
  assert.equal(facts.Rack, "MGMT-01");
  assert.equal(facts.Links, "1,234");
  assert.equal(facts["Links by network"], "Storage 1,233 · OOB 1");
  assert.equal(Object.fromEntries(shownFacts(networkDeviceFacts({ network: "inband", links: 2 }))).Rack, "not placed");
});

test("OOB managed ports, network bundles and links say their counts and units", () => {
  const managed = Object.fromEntries(
    shownFacts(networkAggregateFacts({ role: "managed", switch: "oob-01", count: 1040, managed: { "node BMCs": 1000, PDUs: 40 }, racks: ["R001-01", "R001-02"] })),
  );
  assert.equal(managed["Managed ports"], "1,040 × 1 Gb/s");
  assert.equal(managed.Serving, "1,000 node BMCs, 40 PDUs");
  assert.equal(managed.Racks, "2: R001-01, R001-02");
  const bundle = Object.fromEntries(shownFacts(networkBundleFacts({ network: "storage", links: 1016, bandwidth_gbps: 406400, groups: { "node-leaf": 1016 } })));
  assert.equal(bundle.Links, "1,016");
  assert.equal(bundle.Bandwidth, "406.4 Tb/s");
  assert.equal(bundle["Link groups"], "node-leaf 1,016");
  const link = Object.fromEntries(shownFacts(networkLinkFacts("dgx-1", "stor-leaf-01", { network: "storage", group: "node-leaf", a_port: "stor1", b_port: "3", speed_gbps: 400, cable_kind: "MMF" })));
  assert.equal(link["A end"], "dgx-1 stor1"); // a named port, as validation and the cabling plan write it
  assert.equal(link["B end"], "stor-leaf-01 port 3");
  assert.equal(link.Speed, "400 Gb/s");
  assert.equal(link.Cable, "MMF");
});
