// How the canvas writes numbers: bandwidth with units, counts with separators, utilization in
// percent. No DOM: used by the views (bundle labels) and the inspector.

/**
 * A bandwidth in words: "800 Gb/s", "12.8 Tb/s"; "—" when unknown.
 * @param {number|string|null|undefined} gbps
 * @returns {string}
 */
export function formatBandwidth(gbps) {
  if (gbps === null || gbps === undefined || gbps === "") return "—";
  const n = Number(gbps);
  if (n >= 1000) return `${(n / 1000).toLocaleString("en-US", { maximumFractionDigits: 1 })} Tb/s`;
  return `${n} Gb/s`;
}

/**
 * A count with thousands separators ("1,024"); other values as text; "—" when unknown.
 * @param {unknown} value
 * @returns {string}
 */
export function formatCount(value) {
  if (value === null || value === undefined || value === "") return "—";
  return typeof value === "number" ? value.toLocaleString("en-US") : String(value);
}

/**
 * A utilization (0..1) in whole percent ("42 %"), or null when the element has none.
 * @param {number|undefined} utilization
 * @returns {string|null}
 */
export function formatUtilization(utilization) {
  return utilization !== undefined ? `${Math.round(utilization * 100)} %` : null;
}
