import assert from "node:assert/strict";
import { test } from "node:test";

import { breakoutLinks, breakoutPorts, checkedOption, legProblem, linkData, optionLabel, optionsHeading, portsHeading, refusalReasons } from "./link_options.js";

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

test("a breakout head takes the ports of the picked port's cage", () => {
  const free = [1, 2, 3, 4, 5, 6, 7, 8];
  assert.deepEqual(breakoutPorts(2, 2, 2, free), { ports: [1, 2], problem: null });
  assert.deepEqual(breakoutPorts(7, 4, 4, free).ports, [5, 6, 7, 8]);
  assert.match(breakoutPorts(3, 2, 2, [3, 5]).problem, /ports 3, 4 of one cage; port 4 is in use/);
  assert.match(breakoutPorts(1, 4, 2, free).problem, /1:4 head takes 4 ports of one cage; this switch has 2 per cage/);
});

test("every leg needs its own device port", () => {
  assert.equal(legProblem([{ node: "node:s1", port: 1, label: "s1" }, { node: "node:s2", port: 1, label: "s2" }]), null);
  assert.match(legProblem([{ node: "node:s1", port: 1, label: "s1" }, { node: "", port: null, label: "" }]), /Leg 2 needs/);
  assert.match(legProblem([{ node: "node:s1", port: 1, label: "s1" }, { node: "node:s1", port: 1, label: "s1" }]), /twice on s1 port 1/);
});

test("a breakout makes one link per leg, all naming the part", () => {
  const option = { cable: "MCP7Y00-N002", kind: "DAC", legs: 2 };
  const legs = [{ node: "node:s1", port: 1, role: "server" }, { node: "node:s2", port: 3, role: "server" }];
  const links = breakoutLinks(option, legs, [5, 6], { speed: "", length: "2", offeredSpeed: 400, bRole: "leaf" });
  assert.deepEqual(links.map((l) => [l.source, l.data.a_port, l.data.b_port, l.data.cable, l.data.speed_gbps]), [
    ["node:s1", 1, 5, "MCP7Y00-N002", 400],
    ["node:s2", 3, 6, "MCP7Y00-N002", 400],
  ]);
  assert.equal(links[0].data.tier, "server-leaf");
});
