// The optical margin overlay: each link drawn one by one coloured by its worst-case margin
// (channel insertion-loss limit minus computed loss, dB) from the revision's optical budget.

/** Margin levels: over the limit, under the design's threshold, fine. */
export const MARGIN_LEVELS = [
  { level: "over", color: "#b3261e", label: (_t) => "over the limit (margin < 0 dB)" },
  { level: "low", color: "#c98a00", label: (t) => `margin under ${t} dB` },
  { level: "ok", color: "#1b7f3b", label: (t) => `margin ≥ ${t} dB` },
];

/**
 * The level of a margin.
 * @param {number} margin  dB
 * @param {number} threshold  the design's warning threshold, dB
 * @returns {{level: string, color: string}|null}  null when the margin is not a number
 */
export function marginLevel(margin, threshold) {
  if (margin === null || margin === undefined || !Number.isFinite(Number(margin))) return null;
  const m = Number(margin);
  const [over, low, ok] = MARGIN_LEVELS;
  if (m < 0) return over;
  return m < Number(threshold) ? low : ok;
}

/**
 * Per link edge id in view, its colour and label: `{id: {color, label}}` for the ids the
 * budget names (cable assemblies and unknown limits are not there).
 * @param {{links?: Object<string, number>, threshold_db?: number}} budget  the API's answer
 * @param {string[]} edgeIds  link edge ids drawn ("link:<i>")
 * @returns {Object<string, {color: string, label: string, margin: number}>}
 */
export function marginStyles(budget, edgeIds) {
  const out = {};
  const threshold = budget?.threshold_db ?? 1;
  for (const id of edgeIds) {
    const margin = budget?.links?.[id];
    const level = marginLevel(margin, threshold);
    if (!level) continue;
    out[id] = { color: level.color, margin: Number(margin), label: `${Number(margin).toFixed(2)} dB margin` };
  }
  return out;
}
