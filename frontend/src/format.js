// Numbers as the pages write them: thousands separators, units, counts and money. The twin of
// the server's `{% load units %}` filters (planner/templatetags/units.py, planner/presentation.py);
// keep both writing the same text.

const DASH = "—";

/**
 * A number with thousands separators: 1016 → "1,016", 2.5 → "2.5", null → "—".
 * @param {number|string|null|undefined} value  ("" and non-numbers as they are)
 * @returns {string}
 */
export function formatNumber(value) {
  if (value === null || value === undefined || value === "") return DASH;
  if (typeof value !== "number" || !Number.isFinite(value)) return String(value);
  if (Number.isInteger(value)) return value.toLocaleString("en-US");
  if (Math.abs(value) >= 1000) return value.toLocaleString("en-US", { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  return value.toLocaleString("en-US", { maximumSignificantDigits: 4 });
}

/**
 * A number and its unit: (409600, "Gb/s") → "409,600 Gb/s"; null → "—".
 * @param {number|null|undefined} value
 * @param {string} unit
 * @returns {string}
 */
export function formatQuantity(value, unit) {
  const text = formatNumber(value);
  return text === DASH || !unit ? text : `${text} ${unit}`;
}

/**
 * A count and its noun: (1016, "GPU") → "1,016 GPUs"; (1, "note") → "1 note".
 * @param {number} value
 * @param {string} word
 * @param {string} [plural]
 * @returns {string}
 */
export function formatCount(value, word, plural = `${word}s`) {
  return `${formatNumber(value)} ${value === 1 ? word : plural}`;
}

/**
 * An amount to the cent: (32870, "USD") → "32,870.00 USD"; null → "—".
 * @param {number|string|null|undefined} amount  (API decimals arrive as strings)
 * @param {string} [currency]
 * @returns {string}
 */
export function formatMoney(amount, currency = "") {
  if (amount === null || amount === undefined || amount === "") return DASH;
  const value = Number(amount);
  if (!Number.isFinite(value)) return String(amount);
  const text = value.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  return currency ? `${text} ${currency}` : text;
}

/** @type {Record<string, [string, string]>} */
const SEVERITY_WORDS = { error: ["error", "errors"], warning: ["warning", "warnings"], info: ["note", "notes"] };

/**
 * Counts by severity, errors first: {warning: 1, info: 3} → "1 warning, 3 notes"; none → "no problems".
 * @param {{error?: number, warning?: number, info?: number}} counts
 * @returns {string}
 */
export function formatSeverityCounts(counts) {
  const parts = ["error", "warning", "info"].filter((key) => counts[key]).map((key) => formatCount(counts[key], ...SEVERITY_WORDS[key]));
  return parts.join(", ") || "no problems";
}
