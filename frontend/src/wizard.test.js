import { test } from "node:test";
import assert from "node:assert/strict";
import {
  debounce,
  formatBandwidth,
  formatNumber,
  formatPower,
  networkRows,
  problemsByField,
  summaryFigures,
  summaryRequest,
  summaryTables,
  transportView,
} from "./wizard.js";

test("the summary request: the fields as typed (the server builds the spec), or the text", () => {
  const values = { csrfmiddlewaretoken: "t", name: "x", servers: " 12 ", spec_text: "name: y", source: "form" };
  assert.deepEqual(summaryRequest(values, false), { fields: { name: "x", servers: " 12 ", source: "form" }, draft: true });
  assert.deepEqual(summaryRequest(values, true), { spec: "name: y", draft: true });
  assert.equal(values.csrfmiddlewaretoken, "t"); // the form's values are left as they were
});

test("problems land on the form field the server names; from text, all in the text", () => {
  const grouped = problemsByField([
    { field: "tiers", message: "need 3 tiers" },
    { field: "leaf", spec_field: "switches.leaf", message: "no switch 'X'" },
    { field: "", spec_field: "layout.rack_units", message: "layout.rack_units: too small" },
    { field: "", message: "malformed" },
  ]);
  assert.deepEqual(grouped.get("tiers"), ["need 3 tiers"]);
  assert.deepEqual(grouped.get("leaf"), ["no switch 'X'"]);
  assert.deepEqual(grouped.get(""), ["layout.rack_units: too small", "malformed"]);
  const text = problemsByField([{ field: "servers", message: "bad" }, { field: "", message: "x" }], true);
  assert.deepEqual(text.get("spec_text"), ["servers: bad", "x"]);
});

test("power with units and separators, as the designs list shows it", () => {
  assert.equal(formatPower(330912.4), "330.9 kW");
  assert.equal(formatPower(1234500), "1,234.5 kW");
  assert.equal(formatPower(950), "950 W");
  assert.equal(formatPower(2000), "2.0 kW");
  assert.equal(formatPower(null), "—");
});

test("figures and tables of a summary", () => {
  const summary = {
    gpus: 1016, servers: 127, tiers: 2, switches: { leaf: 32, spine: 16, core: 0 },
    switches_total: 48, switches_by_model: { leaf: { QM9700: 32 }, spine: { QM9700: 16 } },
    links: { "server-leaf": 1020, "leaf-spine": 1024, "spine-core": 0 },
    bisection_gbps: 204000, oversubscription: { leaf: 1, spine: 1 },
    transceivers: { "MMA4Z00-NS": 1536 }, cables: {},
  };
  const figures = Object.fromEntries(summaryFigures(summary).map((f) => [f.id, f.value]));
  assert.equal(figures.gpus, "1,016");
  assert.equal(figures.switches, "48");
  assert.equal(figures.bisection, "204 Tb/s");
  assert.equal(figures.oversubscription, "1:1");
  assert.equal(figures.power, "—");
  assert.equal(figures.cost, undefined); // no price right: no cost figure at all
  const priced = summaryFigures({ ...summary, power_w: 330912, cost: { text: "unpriced (2 parts)" } });
  const byId = Object.fromEntries(priced.map((f) => [f.id, f.value]));
  assert.equal(byId.power, "330.9 kW");
  assert.equal(byId.cost, "unpriced (2 parts)");
  const tables = summaryTables(summary);
  assert.deepEqual(tables.map((t) => t.title), ["Switches", "Links", "Transceivers"]);
  assert.deepEqual(tables[1].rows, [["Server – leaf", "1,020"], ["Leaf – spine", "1,024"]]);
  assert.equal(formatNumber(null), "—");
  assert.equal(formatBandwidth(400), "400 Gb/s");
});

test("debounce runs once after the last call", () => {
  const timers = [];
  const clock = {
    setTimeout: (fn, ms) => timers.push({ fn, ms, live: true }) - 1,
    clearTimeout: (id) => { timers[id].live = false; },
  };
  let calls = 0;
  const run = debounce(() => { calls += 1; }, 300, clock);
  run(); run(); run();
  assert.equal(timers.filter((t) => t.live).length, 1);
  assert.equal(timers.at(-1).ms, 300);
  timers.filter((t) => t.live).forEach((t) => t.fn());
  assert.equal(calls, 1);
});

test("the cluster networks' switches: one row per network with switches, by model and role", () => {
  const summary = {
    networks: {
      storage: { switches: { leaf: { QM9700: 8 }, "storage-leaf": { QM9700: 4 }, spine: { QM9700: 4 } }, switches_total: 16 },
      oob: { switches: { leaf: { SN2201: 1200 } }, switches_total: 1200 },
      management: { switches: {}, switches_total: 0 },
    },
  };
  const labels = { storage: "Storage", oob: "Out-of-band management" };
  assert.deepEqual(networkRows(summary, labels), [
    ["Storage", "QM9700 (8 leaf, 4 storage leaf, 4 spine)", "16"],
    ["Out-of-band management", "SN2201 (1,200 leaf)", "1,200"],
  ]);
  const table = summaryTables(summary, labels).find((t) => t.id === "networks");
  assert.equal(table.title, "Cluster networks");
  assert.equal(table.rows.length, 2);
  assert.equal(summaryTables({}).find((t) => t.id === "networks"), undefined); // none: no table
});

test("the transport step picks the defaults of the leaf's transport and profile, the chosen ones first", () => {
  // A table as planner/designs/wizard_transport.py transport_table writes it (cut down).
  const entry = (value, help, url = "") => ({ default: value, help, url });
  const table = {
    leaves: {
      L: { type: "roce", profile: "arista", maker: "arista", sharp: false },
      Q: { type: "infiniband", profile: "nvidia-spectrum-x", maker: "nvidia", sharp: true },
    },
    servers: { S: { nic: "B3140H", nic_name: "NVIDIA BlueField-3 SuperNIC B3140H", nic_profile: "nvidia-connectx" } },
    switch_profiles: {
      arista: { ecn_min_kb: entry("", "Arista profile: no default"), lossless_dscp: entry("24", "Arista profile: 24", "https://a") },
      "nvidia-spectrum-x": { ecn_min_kb: entry("150", "NVIDIA Spectrum-X profile: 150", "https://o"), lossless_dscp: entry("24-31", "x") },
      custom: { ecn_min_kb: entry("", "Custom profile: no default"), lossless_dscp: entry("", "y") },
    },
    nic_profiles: { "nvidia-connectx": { cnp_dscp: entry("48", "n") }, custom: { cnp_dscp: entry("", "c") } },
    infiniband: { routing_engine: entry("ar_updn", "opensm: ar_updn"), sharp: entry("", "On where every switch runs SHARP.") },
    names: {
      transport: { roce: "RoCEv2", infiniband: "InfiniBand" },
      switch_profile: { arista: "Arista", "nvidia-spectrum-x": "NVIDIA Spectrum-X", custom: "Custom (no defaults)" },
      nic_profile: { "nvidia-connectx": "NVIDIA ConnectX / BlueField", custom: "Custom (no defaults)" },
    },
  };
  const arista = transportView(table, { leaf: "L", server: "S" });
  assert.equal(arista.kind, "roce");
  assert.equal(arista.fields.transport_ecn_min_kb.default, "");
  assert.equal(arista.fields.transport_lossless_dscp.url, "https://a");
  assert.equal(arista.fields.transport_nic_cnp_dscp.default, "48");
  assert.equal(arista.blanks.transport_type, "Default: RoCEv2 (from L)");
  assert.equal(arista.blanks.transport_nic_profile, "Default: NVIDIA ConnectX / BlueField (from B3140H)");
  assert.equal(arista.nic_heading, "Server NIC B3140H (NVIDIA BlueField-3 SuperNIC B3140H)");
  const chosen = transportView(table, { leaf: "L", server: "S", transport_profile: "nvidia-spectrum-x", transport_nic_profile: "custom" });
  assert.equal(chosen.fields.transport_ecn_min_kb.default, "150");
  assert.equal(chosen.fields.transport_nic_cnp_dscp.default, "");
  const ib = transportView(table, { leaf: "Q", server: "nope" });
  assert.equal(ib.kind, "infiniband");
  assert.equal(ib.fields.transport_sharp.default, "yes");
  assert.equal(ib.nic_heading, "The server's NIC");
  assert.equal(transportView(table, { leaf: "Q", transport_type: "roce" }).kind, "roce");
  assert.equal(transportView(table, {}).blanks.transport_type, "Default: from the leaf switch");
});
