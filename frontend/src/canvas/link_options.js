// The link dialog's pure part: how compatible media options read, which one starts picked,
// why a link cannot be made, and the link data a picked option gives. No DOM, no cytoscape.
// The server decides what is compatible (`/api/planner/link-options/`); this only presents it.

import { linkLabel, tierOf } from "./document.js";

/**
 * One media option in words: "optics: MMA4Z00-NS + MFP7E10-N003 (reach 50 m, $1,200, 17 W)".
 * A part named at both ends is named once, unless it is the B end's.
 * @param {{kind?: string, label?: string, a_part?: string, cable?: string, b_part?: string,
 *   reach_m?: number|null, price?: number|string|null, power_w?: number|null}} option
 * @returns {string}
 */
export function optionLabel(option) {
  const parts = [option.a_part, option.cable, option.b_part].filter(Boolean);
  const unique = parts.filter((p, i) => parts.indexOf(p) === i || i === 2);
  const facts = [];
  if (option.reach_m !== null && option.reach_m !== undefined) facts.push(`reach ${option.reach_m} m`);
  if (option.price !== null && option.price !== undefined) facts.push(`$${Number(option.price).toLocaleString("en-US")}`);
  if (option.power_w !== null && option.power_w !== undefined) facts.push(`${option.power_w} W`);
  const what = option.label || unique.join(" + ");
  return `${option.kind ?? "media"}: ${what}${facts.length ? ` (${facts.join(", ")})` : ""}`;
}

/**
 * The heading above the options: "3 compatible choices at 800 Gb/s:".
 * @param {number} count options offered (at least one)
 * @param {number|null} speed the speed the server chose or was asked for
 * @returns {string}
 */
export function optionsHeading(count, speed) {
  const at = speed ? ` at ${speed} Gb/s` : "";
  return `${count} compatible choice${count === 1 ? "" : "s"}${at}:`;
}

/**
 * Which option starts picked: the edge's current media when it is offered, else the first.
 * @param {{a_part?: string, b_part?: string, cable?: string}[]} options
 * @param {{a_part?: string, b_part?: string, cable?: string}|undefined} current the edited link's data
 * @returns {number}
 */
export function checkedOption(options, current) {
  let checked = 0;
  options.forEach((option, i) => {
    if (current && option.a_part === current.a_part && option.b_part === current.b_part && option.cable === current.cable) checked = i;
  });
  return checked;
}

/**
 * Why no link can be made, as lines of text, from a link-options answer without options:
 * the server's refusal, else its error, else that the catalog has nothing fitting both ends.
 * @param {{ok: boolean, data?: Record<string, any>}} answer the API answer
 * @returns {string[]}
 */
export function refusalReasons(answer) {
  const data = answer.data ?? {};
  let reasons = data.refusal ?? [];
  if (!answer.ok && !reasons.length) {
    reasons = data.detail ? [data.detail] : Object.entries(data).map(([k, v]) => `${k}: ${[].concat(v).join(" ")}`);
  }
  if (!reasons.length) reasons = ["The catalog has no media that fits both ends."];
  return reasons.map((reason) => (typeof reason === "string" ? reason : reason.message ?? JSON.stringify(reason)));
}

/**
 * The label above a port list: "Port on leaf-1 (30 of 32 free)".
 * @param {string} device
 * @param {number} free
 * @param {number} total
 * @returns {string}
 */
export function portsHeading(device, free, total) {
  return `Port on ${device} (${free} of ${total} free)`;
}

/**
 * The data of the link the dialog makes (or changes to).
 * @param {{a_part?: string, b_part?: string, cable?: string, kind?: string}} option the picked media
 * @param {{aPort: string, bPort: string, speed: string, length: string, offeredSpeed: number|null,
 *   aRole: string, bRole: string}} form the dialog's fields as typed, the speed the server
 *   chose when the speed field was empty, and the two ends' roles
 * @returns {Record<string, any>} edge data: kind, ports, speed, length, parts, media kind, tier and label
 */
export function linkData(option, { aPort, bPort, speed, length, offeredSpeed, aRole, bRole }) {
  const data = {
    kind: "link",
    a_port: Number(aPort),
    b_port: Number(bPort),
    speed_gbps: Number(speed) || offeredSpeed || null,
    length_m: length === "" ? null : Number(length),
    a_part: option.a_part ?? null,
    b_part: option.b_part ?? null,
    cable: option.cable ?? null,
    media_kind: option.kind ?? null,
    tier: tierOf(aRole, bRole),
  };
  data.label = linkLabel(data);
  return data;
}

/**
 * The switch ports a breakout's head takes: the `legs` ports of the cage that holds `bPort`
 * (`perCage` ports per cage at the link's speed, as the server says in `b_ports_per_cage`),
 * or why the head does not fit there.
 * @param {number} bPort the port picked on the switch (1-based)
 * @param {number} legs the part's legs (2 for 1:2, 4 for 1:4)
 * @param {number|null} perCage the switch's ports per cage at the speed
 * @param {number[]} freeB the switch's free ports (the picked one included)
 * @returns {{ports: number[], problem: string|null}}
 */
export function breakoutPorts(bPort, legs, perCage, freeB) {
  const cage = perCage && perCage > 0 ? perCage : 1;
  if (legs > cage) {
    return { ports: [], problem: `A 1:${legs} head takes ${legs} ports of one cage; this switch has ${cage} per cage at this speed.` };
  }
  const first = Math.floor((bPort - 1) / cage) * cage + 1;
  const ports = Array.from({ length: legs }, (_, i) => first + i);
  const taken = ports.filter((port) => !freeB.includes(port));
  const problem = taken.length ? `The breakout head takes ports ${ports.join(", ")} of one cage; port ${taken.join(", ")} is in use.` : null;
  return { ports, problem };
}

/**
 * Why the picked legs cannot be made: a leg without a device or port, or two legs on one
 * device port. Null when every leg is set.
 * @param {{node: string, port: number|null, label: string}[]} legs leg 1 first
 * @returns {string|null}
 */
export function legProblem(legs) {
  const seen = new Set();
  for (const [i, leg] of legs.entries()) {
    if (!leg.node || !leg.port) return `Leg ${i + 1} needs a device and a free port.`;
    const key = `${leg.node}#${leg.port}`;
    if (seen.has(key)) return `Legs land twice on ${leg.label} port ${leg.port}.`;
    seen.add(key);
  }
  return null;
}

/**
 * The links of a breakout: one per leg, each from its device port to the next port of the
 * head's cage, all naming the same 1:N part (the server takes links through one cage that
 * name one 1:N part as one assembly).
 * @param {Record<string, any>} option the picked breakout (legs > 1)
 * @param {{node: string, port: number, role: string}[]} legs the legs' lower ends, leg 1 first
 * @param {number[]} headPorts the switch ports, from {@link breakoutPorts}
 * @param {{speed: string, length: string, offeredSpeed: number|null, bRole: string}} form
 * @returns {{source: string, data: Record<string, any>}[]}
 */
export function breakoutLinks(option, legs, headPorts, { speed, length, offeredSpeed, bRole }) {
  return legs.map((leg, i) => ({
    source: leg.node,
    data: linkData(option, { aPort: String(leg.port), bPort: String(headPorts[i]), speed, length, offeredSpeed, aRole: leg.role, bRole }),
  }));
}
