// Overlay colours: link utilization as a green-yellow-red heat map, rack power by headroom.

/** Colour of an element without a value. */
export const NO_DATA = "#9aa3b2";
/** Rack power levels: up to 80 % of the limit is fine, up to 100 % is tight, above is over. */
export const POWER_LEVELS = [
  { level: "ok", upTo: 0.8, color: "#1b7f3b", label: "≤ 80 % of the limit" },
  { level: "tight", upTo: 1, color: "#c98a00", label: "80–100 % of the limit" },
  { level: "over", upTo: Infinity, color: "#b3261e", label: "over the limit" },
];

function hex(value) {
  return Math.round(value).toString(16).padStart(2, "0");
}

/**
 * Heat-map colour of a utilization 0..1: green (idle) through yellow (half) to red (full).
 * Values outside 0..1 are clamped; a missing value is grey.
 * @param {number|null|undefined} utilization
 * @returns {string} "#rrggbb"
 */
export function heatColor(utilization) {
  if (utilization === null || utilization === undefined || Number.isNaN(Number(utilization))) {
    return NO_DATA;
  }
  const u = Math.min(1, Math.max(0, Number(utilization)));
  // Hue 120 (green) -> 0 (red), saturated but dark enough to read on white.
  const hue = 120 * (1 - u);
  const s = 0.8;
  const l = 0.42;
  const c = (1 - Math.abs(2 * l - 1)) * s;
  const x = c * (1 - Math.abs(((hue / 60) % 2) - 1));
  const m = l - c / 2;
  const [r, g, b] = hue >= 60 ? [x, c, 0] : [c, x, 0];
  return `#${hex((r + m) * 255)}${hex((g + m) * 255)}${hex((b + m) * 255)}`;
}

/**
 * Stops of the heat-map legend.
 * @param {number} [steps]
 * @returns {{value: number, label: string, color: string}[]}
 */
export function heatLegend(steps = 5) {
  const stops = [];
  for (let i = 0; i < steps; i += 1) {
    const value = i / (steps - 1);
    stops.push({ value, label: `${Math.round(value * 100)} %`, color: heatColor(value) });
  }
  return stops;
}

/**
 * "12.3 kW", "850 W".
 * @param {number|null|undefined} watts
 * @returns {string}
 */
export function formatPower(watts) {
  if (watts === null || watts === undefined || !Number.isFinite(Number(watts))) return "—";
  const w = Number(watts);
  if (Math.abs(w) >= 1000) return `${(w / 1000).toLocaleString("en-US", { maximumFractionDigits: 1 })} kW`;
  return `${Math.round(w)} W`;
}

/**
 * Level, colour and label of a rack's power against its limit.
 * @param {{rack: string|number, power_w: number|null, limit_w: number|null}} rack
 * @returns {{level: string, color: string, ratio: number|null, label: string}}
 */
export function rackPower(rack) {
  const power = Number(rack.power_w);
  const limit = Number(rack.limit_w);
  const known = Number.isFinite(power) && rack.power_w !== null && rack.power_w !== undefined;
  if (!known) return { level: "unknown", color: NO_DATA, ratio: null, label: `${rack.rack}: power unknown` };
  if (!Number.isFinite(limit) || !limit) {
    return { level: "unknown", color: NO_DATA, ratio: null, label: `${rack.rack}: ${formatPower(power)}` };
  }
  const ratio = power / limit;
  const { level, color } = POWER_LEVELS.find((entry) => ratio <= entry.upTo);
  return {
    level,
    color,
    ratio,
    label: `${rack.rack}: ${formatPower(power)} / ${formatPower(limit)} (${Math.round(ratio * 100)} %)`,
  };
}
