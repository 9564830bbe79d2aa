import assert from "node:assert/strict";
import { test } from "node:test";

import { checkedOption, linkData, optionLabel, optionsHeading, portsHeading, refusalReasons } from "./link_options.js";

test("an option names its parts once, then reach, price and power", () => {
  const optics = { kind: "optics", a_part: "MMA4Z00-NS", cable: "MFP7E10-N003", b_part: "MMA4Z00-NS", reach_m: 50, price: 1200, power_w: 17 };
  assert.equal(optionLabel(optics), "optics: MMA4Z00-NS + MFP7E10-N003 + MMA4Z00-NS (reach 50 m, $1,200, 17 W)");
  assert.equal(optionLabel({ kind: "DAC", a_part: "MCP4Y10-N002", cable: "MCP4Y10-N002", b_part: "MCP4Y10-N002" }), "DAC: MCP4Y10-N002 + MCP4Y10-N002");
  assert.equal(optionLabel({ label: "Breakout 2×400G", price: "99.5", reach_m: 0 }), "media: Breakout 2×400G (reach 0 m, $99.5)");
});

test("the heading counts the choices and says the speed", () => {
  assert.equal(optionsHeading(1, 800), "1 compatible choice at 800 Gb/s:");
  assert.equal(optionsHeading(3, null), "3 compatible choices:");
  assert.equal(portsHeading("leaf-1", 30, 32), "Port on leaf-1 (30 of 32 free)");
});

test("the edited link's media starts picked when offered", () => {
  const options = [{ a_part: "x", b_part: "x", cable: null }, { a_part: "y", b_part: "y", cable: "c" }];
  assert.equal(checkedOption(options, { a_part: "y", b_part: "y", cable: "c" }), 1);
  assert.equal(checkedOption(options, { a_part: "z" }), 0);
  assert.equal(checkedOption(options, undefined), 0);
});

test("refusals: the server's reasons, its error, or that nothing fits", () => {
  assert.deepEqual(refusalReasons({ ok: true, data: { options: [], refusal: ["No cage fits", { message: "Speeds differ" }, { code: 7 }] } }), [
    "No cage fits", "Speeds differ", '{"code":7}',
  ]);
  assert.deepEqual(refusalReasons({ ok: false, data: { detail: "Not found." } }), ["Not found."]);
  assert.deepEqual(refusalReasons({ ok: false, data: { speed_gbps: ["Enter a whole number."], a: "unknown" } }), [
    "speed_gbps: Enter a whole number.", "a: unknown",
  ]);
  assert.deepEqual(refusalReasons({ ok: true, data: { options: [] } }), ["The catalog has no media that fits both ends."]);
  assert.deepEqual(refusalReasons({ ok: false }), ["The catalog has no media that fits both ends."]);
});

test("the picked option and fields give the link's data and label", () => {
  const option = { kind: "optics", a_part: "A", b_part: "B", cable: "C" };
  const data = linkData(option, { aPort: "3", bPort: "17", speed: "", length: "5", offeredSpeed: 400, aRole: "leaf", bRole: "server" });
  assert.deepEqual(data, {
    kind: "link", a_port: 3, b_port: 17, speed_gbps: 400, length_m: 5, a_part: "A", b_part: "B", cable: "C",
    media_kind: "optics", tier: "server-leaf", label: "400G optics 5 m",
  });
  const bare = linkData({}, { aPort: "1", bPort: "2", speed: "800", length: "", offeredSpeed: null, aRole: "leaf", bRole: "spine" });
  assert.equal(bare.speed_gbps, 800);
  assert.equal(bare.length_m, null);
  assert.equal(bare.a_part, null);
  assert.equal(bare.media_kind, null);
  assert.equal(bare.label, "800G");
});
