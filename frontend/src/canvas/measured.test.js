import { test } from "node:test";
import assert from "node:assert/strict";

import { MEASURED_FLAGS, flaggedText, measuredFacts, measuredStyles, rxText, snapshotFormat } from "./measured.js";

const ENTRY = {
  util: 0.5,
  util_ab: 0,
  util_ba: 0.5,
  simulated_util: 0.42,
  errors: { fec_corrected: 1200, fec_uncorrected: 3 },
  a: { rx_dbm: -3, expected_rx_dbm: -3.2, margin_db: 0.2, sensitivity_dbm: -7 },
  flags: ["fec-uncorrected"],
};

test("flagged links take their worst flag's colour, the others the utilization heat", () => {
  const styles = measuredStyles({ links: { "link:1": ENTRY, "link:2": { util: 0.1, flags: [] } } }, ["link:1", "link:2", "link:3"]);
  assert.deepEqual(Object.keys(styles), ["link:1", "link:2"]);
  assert.equal(styles["link:1"].color, MEASURED_FLAGS[2].color);
  assert.equal(styles["link:2"].label, "10 % measured");
});

test("details put simulated and measured side by side, with the Rx margin in words", () => {
  const facts = Object.fromEntries(measuredFacts(ENTRY));
  assert.equal(facts.Simulated, "42 %");
  assert.equal(facts.Measured, "50 % (A→B 0 %, B→A 50 %)");
  assert.equal(facts.Errors, "FEC corrected 1,200, FEC uncorrectable 3");
  assert.equal(facts["Rx A end"], "−3.00 dBm weakest lane (expected −3.20 dBm, margin +0.20 dB; sensitivity −7.00 dBm)");
  assert.equal(facts["Rx B end"], null);
  assert.match(rxText({ rx_dbm: -2, expected_rx_dbm: null }), /no expectation/);
});

test("flagged list text and the snapshot's format by file name", () => {
  const text = flaggedText({ a: "leaf-1", a_port: 3, b: "spine-2", b_port: 7, flags: ["rx-below-expected"], margin_db: -1.2 });
  assert.equal(text, "leaf-1 port 3 ↔ spine-2 port 7: Rx below the budget's expectation (margin −1.20 dB)");
  assert.equal(snapshotFormat("snap.JSON"), "counters-json");
  assert.equal(snapshotFormat("snap.csv"), "counters-csv");
});
