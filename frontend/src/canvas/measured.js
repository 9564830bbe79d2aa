// The "Measured" overlay: a counter snapshot of the built fabric (imported through the API)
// drawn on the links: flagged links by their worst flag, the others by measured utilization,
// and the link's details with the simulated and measured figures side by side. No DOM.

import { endText, formatCount } from "./format.js";
import { heatColor } from "./heat.js";

/** Link flags, worst first, with their colour and words. */
export const MEASURED_FLAGS = [
  { flag: "rx-below-sensitivity", color: "#b3261e", label: "Rx below the receiver's sensitivity" },
  { flag: "rx-below-expected", color: "#c98a00", label: "Rx below the budget's expectation" },
  { flag: "fec-uncorrected", color: "#7b1fa2", label: "uncorrectable FEC codewords" },
];

const FLAG = Object.fromEntries(MEASURED_FLAGS.map((f) => [f.flag, f]));

/** Error counters as the details name them. */
const ERROR_WORDS = {
  fec_corrected: "FEC corrected",
  fec_uncorrected: "FEC uncorrectable",
  discards: "discards",
  pfc_pause: "PFC pause frames",
  ecn_marked: "ECN marked",
};

/**
 * A utilization 0..1 in percent with one decimal under 10 % ("4.2 %", "63 %"); null when unknown.
 * @param {number|null|undefined} value
 * @returns {string|null}
 */
export function formatPercent(value) {
  if (value === null || value === undefined || !Number.isFinite(Number(value))) return null;
  const pct = Number(value) * 100;
  return `${pct < 10 ? pct.toLocaleString("en-US", { maximumFractionDigits: 1 }) : Math.round(pct).toLocaleString("en-US")} %`;
}

/** dBm with sign and two decimals ("−2.50 dBm"); null when unknown. */
export function formatDbm(value, unit = "dBm") {
  if (value === null || value === undefined || !Number.isFinite(Number(value))) return null;
  const n = Number(value);
  return `${n < 0 ? "−" : n > 0 && unit === "dB" ? "+" : ""}${Math.abs(n).toFixed(2)} ${unit}`;
}

/**
 * Colour and label of a link's measured entry: its worst flag, else the utilization heat.
 * @param {{flags?: string[], util?: number|null}} entry
 * @returns {{color: string, label: string}}
 */
export function measuredStyle(entry) {
  const flag = (entry?.flags ?? []).find((f) => FLAG[f]);
  if (flag) return { color: FLAG[flag].color, label: FLAG[flag].label };
  const util = formatPercent(entry?.util);
  return { color: heatColor(entry?.util), label: util ? `${util} measured` : "no utilization measured" };
}

/**
 * Per drawn link edge the API names, its style: `{id: {color, label}}`.
 * @param {{links?: Object<string, Record<string, any>>}} data  the counters API's answer
 * @param {string[]} edgeIds
 */
export function measuredStyles(data, edgeIds) {
  const out = {};
  for (const id of edgeIds) {
    const entry = data?.links?.[id];
    if (entry) out[id] = measuredStyle(entry);
  }
  return out;
}

/**
 * One end's optical figures in words: "A end Rx −2.50 dBm (expected −3.20 dBm, margin +0.70 dB;
 * sensitivity −7.00 dBm)".
 * @param {Record<string, any>|undefined} end
 * @returns {string|null}
 */
export function rxText(end) {
  if (!end) return null;
  if (end.rx_dark) return "no light on a lane";
  const rx = formatDbm(end.rx_dbm);
  if (!rx) return null;
  const parts = [];
  if (end.expected_rx_dbm !== null && end.expected_rx_dbm !== undefined) {
    parts.push(`expected ${formatDbm(end.expected_rx_dbm)}, margin ${formatDbm(end.margin_db, "dB")}`);
  } else {
    parts.push("no expectation: the catalog lacks the launch power or the budget the length");
  }
  if (end.sensitivity_dbm !== null && end.sensitivity_dbm !== undefined) parts.push(`sensitivity ${formatDbm(end.sensitivity_dbm)}`);
  return `${rx} weakest lane (${parts.join("; ")})`;
}

/**
 * The link's details from the measured overlay, simulated and measured side by side.
 * @param {Record<string, any>|undefined} entry  the API's entry for the link
 * @returns {[string, unknown][]}
 */
export function measuredFacts(entry) {
  if (!entry) return [];
  const simulated = formatPercent(entry.simulated_util);
  const measured = formatPercent(entry.util);
  const errors = Object.entries(entry.errors ?? {}).map(([name, n]) => `${ERROR_WORDS[name] ?? name} ${formatCount(n)}`);
  const ways = entry.util_ab !== null || entry.util_ba !== null ? ` (A→B ${formatPercent(entry.util_ab) ?? "—"}, B→A ${formatPercent(entry.util_ba) ?? "—"})` : "";
  return [
    ["Simulated", simulated ?? "no simulation"],
    ["Measured", measured ? `${measured}${ways}` : "—"],
    ["Errors", errors.length ? errors.join(", ") : null],
    ["Rx A end", rxText(entry.a)],
    ["Rx B end", rxText(entry.b)],
    ["Flags", (entry.flags ?? []).map((f) => FLAG[f]?.label ?? f).join("; ") || null],
  ];
}

/**
 * A flagged link in the legend's list: "leaf-1 2/1 ↔ spine-2 4/1: Rx below the receiver's
 * sensitivity (margin −1.20 dB)", its ports named as everywhere (`*_port_name`, else the
 * number).
 * @param {{a: string, a_port: number, a_port_name?: string, b: string, b_port: number, b_port_name?: string, flags: string[], margin_db?: number|null}} item
 * @returns {string}
 */
export function flaggedText(item) {
  const words = item.flags.map((f) => FLAG[f]?.label ?? f).join(", ");
  const margin = formatDbm(item.margin_db, "dB");
  const a = endText(item.a, item.a_port_name ?? item.a_port);
  const b = endText(item.b, item.b_port_name ?? item.b_port);
  return `${a} ↔ ${b}: ${words}${margin ? ` (margin ${margin})` : ""}`;
}

/**
 * The format of a snapshot file by its name: ".json" is counters-json, anything else CSV.
 * @param {string} name
 * @returns {"counters-json"|"counters-csv"}
 */
export function snapshotFormat(name) {
  return /\.json$/i.test(name ?? "") ? "counters-json" : "counters-csv";
}
