import { test } from "node:test";
import assert from "node:assert/strict";
import {
  debounce,
  fieldsFromSpec,
  formatBandwidth,
  formatNumber,
  numberOrText,
  problemTarget,
  problemsByField,
  specFromFields,
  summaryFigures,
  summaryTables,
} from "./wizard.js";

const SUPERPOD_4SU = {
  name: "DGX H100 SuperPOD, 4 SU",
  topology: "rail-optimized",
  server: "DGX-H100",
  servers: 127,
  servers_per_su: 32,
  reserved_leaf_ports: 4,
  switches: { leaf: "QM9700" },
  media: { "server-leaf": "MMF", "leaf-spine": "MMF" },
};

test("a preset goes into the fields and comes back as the same spec", () => {
  const values = fieldsFromSpec(SUPERPOD_4SU);
  assert.equal(values.servers, "127");
  assert.equal(values.leaf, "QM9700");
  assert.equal(values.spine, "");
  assert.equal(values.media_leaf_spine, "MMF");
  assert.equal(values.media_spine_core, "auto");
  assert.equal(values.tiers, "auto");
  assert.deepEqual(specFromFields(values), SUPERPOD_4SU);
});

test("servers per rack is the layout key", () => {
  const spec = { ...SUPERPOD_4SU, layout: { servers_per_rack: 4 } };
  const values = fieldsFromSpec(spec);
  assert.equal(values.servers_per_rack, "4");
  assert.deepEqual(specFromFields(values), spec);
  assert.equal(problemTarget("layout.servers_per_rack"), "servers_per_rack");
  assert.deepEqual(
    problemsByField([{ field: "layout.servers_per_rack", message: "set it" }]).get("servers_per_rack"),
    ["set it"],
  );
});

test("defaults are left out and topology-specific keys only go with their topology", () => {
  const spec = specFromFields({
    name: "x", topology: "clos", server: "S", servers: "8", servers_per_su: "4", k: "8",
    planes: "1", tiers: "auto", oversubscription: "3", reserved_leaf_ports: "0", leaf: "L",
  });
  assert.deepEqual(spec, {
    name: "x", topology: "clos", server: "S", servers: 8, oversubscription: 3, switches: { leaf: "L" },
  });
  const tree = specFromFields({ name: "t", topology: "fat-tree", server: "S", k: "48", tiers: "3",
    oversubscription: "2", leaf: "L" });
  assert.equal(tree.k, 48);
  assert.equal(tree.tiers, 3);
  assert.equal(tree.oversubscription, undefined);
});

test("numbers: empty is nothing, junk is passed on for the server to name", () => {
  assert.equal(numberOrText(""), null);
  assert.equal(numberOrText(" 12 "), 12);
  assert.equal(numberOrText("1.5"), 1.5);
  assert.equal(numberOrText("lots"), "lots");
});

test("problems land on the field they name", () => {
  assert.equal(problemTarget("servers"), "servers");
  assert.equal(problemTarget("switches.spine"), "spine");
  assert.equal(problemTarget("media.server-leaf"), "media_server_leaf");
  assert.equal(problemTarget("layout.rack_units"), null);
  assert.equal(problemTarget(""), null);
  const grouped = problemsByField([
    { field: "tiers", message: "need 3 tiers" },
    { field: "switches.leaf", message: "no switch 'X'" },
    { field: "layout.rack_units", message: "too small" },
    { field: "", message: "malformed" },
  ]);
  assert.deepEqual(grouped.get("tiers"), ["need 3 tiers"]);
  assert.deepEqual(grouped.get("leaf"), ["no switch 'X'"]);
  assert.deepEqual(grouped.get(""), ["layout.rack_units: too small", "malformed"]);
  const text = problemsByField([{ field: "servers", message: "bad" }], true);
  assert.deepEqual(text.get("spec_text"), ["servers: bad"]);
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
