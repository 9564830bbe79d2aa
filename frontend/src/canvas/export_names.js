// File names of canvas exports (PNG, SVG): which design, revision and view they show.
// "design-12-r3-su-1.png"; a drawing never saved is "new-fabric-all.svg". No DOM.

/**
 * The name of an export without its extension.
 * @param {{designId: number|null, revision: number|null, view: string, scope: string}} where
 *   the canvas's design, revision, view ("overview" or "detail") and scope ("su:1", "all", ...)
 * @returns {string}
 */
export function exportBaseName({ designId, revision, view, scope }) {
  const where = view === "overview" ? "overview" : (scope || "all").replace(/[^a-z0-9]+/gi, "-");
  return designId === null ? `new-fabric-${where}` : `design-${designId}-r${revision}-${where}`;
}

/**
 * The file name of an export.
 * @param {{designId: number|null, revision: number|null, view: string, scope: string}} where
 * @param {"png"|"svg"} extension
 * @returns {string}
 */
export function exportFileName(where, extension) {
  return `${exportBaseName(where)}.${extension}`;
}
