// Multi-plane designs on the canvas: the plane picker's choices and the `plane` value the
// canvas API takes (1-based, or nothing for every plane). No DOM.

/**
 * Choices of the plane picker: "All planes", then "Plane 1" … "Plane n"; none for a design
 * of one plane (the picker is hidden).
 * @param {number|null|undefined} planes the design's plane count
 * @returns {{value: string, label: string}[]}
 */
export function planeChoices(planes) {
  const count = Math.floor(Number(planes) || 0);
  if (count <= 1) return [];
  const out = [{ value: "", label: "All planes" }];
  for (let plane = 1; plane <= count; plane += 1) out.push({ value: String(plane), label: `Plane ${plane.toLocaleString("en-US")}` });
  return out;
}

/**
 * The plane to ask the API for, from a picker or URL value: a whole number from 1 to
 * `planes`, else null (every plane). When the plane count is not known yet, any positive
 * whole number is kept (the API checks it).
 * @param {string|number|null|undefined} value
 * @param {number|null} [planes]
 * @returns {number|null}
 */
export function planeValue(value, planes = null) {
  const text = String(value ?? "").trim();
  if (!/^\d+$/.test(text)) return null;
  const plane = Number(text);
  if (plane < 1) return null;
  if (planes !== null && planes !== undefined && plane > planes) return null;
  return plane;
}
