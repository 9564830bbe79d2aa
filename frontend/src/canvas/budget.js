// Element budgets: which view a design opens in, which views may be edited, and whether an
// edit still fits. The server enforces the same limit (GET /topology/ answers 400 above it).

/** Hand edits (the "all" view, hand-drawn designs) stay at or below this many elements. */
export const EDIT_LIMIT = 5000;
/** Views above this many elements are not offered (use the overview and drill down). */
export const RENDER_LIMIT = 20000;
/**
 * Generated designs up to this many elements open in the "all" view; larger ones open on the
 * overview (SUs, racks and tiers aggregated), which reads at a glance: the whole of a GB300
 * NVL72 fabric is a hairball of 1,152 links (issue 37 item 6). "Whole fabric" is a choice away.
 */
export const OPEN_ALL_LIMIT = 400;

/**
 * Elements (nodes and links) of a design by its summary: servers + switches + links.
 * @param {Record<string, any>|null|undefined} summary a revision summary
 * @returns {number|null} null when the summary does not say
 */
export function summaryElements(summary) {
  if (!summary || summary.servers === undefined) return null;
  const links = Object.values(summary.links ?? {}).reduce((sum, n) => sum + (Number(n) || 0), 0);
  return (Number(summary.servers) || 0) + (Number(summary.switches_total) || 0) + links;
}

/**
 * The view a design opens in: "all" (detail of everything, editable) for small designs and
 * hand-drawn ones, the aggregated overview otherwise.
 * @param {{elements: number|null, handDrawn?: boolean}} design
 * @returns {{view: "overview"|"detail", scope: string}}
 */
export function initialView({ elements, handDrawn = false }) {
  if (handDrawn || (elements !== null && elements !== undefined && elements <= OPEN_ALL_LIMIT)) {
    return { view: "detail", scope: "all" };
  }
  return { view: "overview", scope: "" };
}

/**
 * What to say when a whole design is over the edit limit: no view of it is editable, and
 * the cabling-plan upload has the same limit, so the spec is the way to change it.
 * @param {number} designElements nodes + links of the whole design
 * @returns {string}
 */
export function tooLargeToEdit(designElements) {
  const n = designElements.toLocaleString("en-US");
  const limit = EDIT_LIMIT.toLocaleString("en-US");
  return (
    `This design has ${n} elements: the canvas and cabling-plan uploads edit designs of up to ${limit}, ` +
    "so every view here is read-only. Change it through its spec (“Edit spec” on the design page); " +
    "editing one SU, pod or rack at a time is not available yet."
  );
}

/**
 * Whether the current view may be edited, and if not, why (shown to the user).
 * @param {{view: string, scope: string, elements: number, canWrite: boolean, designElements?: number|null, plane?: number|null}} state
 *   designElements: nodes + links of the whole design, when known; plane: the one plane shown, or null
 * @returns {{editable: boolean, reason: string}}
 */
export function editability({ view, scope, elements, canWrite, designElements = null, plane = null }) {
  if (!canWrite) return { editable: false, reason: "You may view this design but not change it." };
  if (designElements !== null && designElements !== undefined && designElements > EDIT_LIMIT) {
    return { editable: false, reason: tooLargeToEdit(designElements) };
  }
  if (view !== "detail" || scope !== "all") {
    return {
      editable: false,
      reason: "Aggregated and scoped views are for exploring; edit in the “Whole fabric” view (designs up to 5,000 elements).",
    };
  }
  if (plane) {
    return { editable: false, reason: `Only plane ${plane} is shown: choose “All planes” to edit.` };
  }
  if (elements > EDIT_LIMIT) {
    return {
      editable: false,
      reason: `This view has ${elements.toLocaleString("en-US")} elements; hand edits are limited to ${EDIT_LIMIT.toLocaleString("en-US")}.`,
    };
  }
  return { editable: true, reason: "" };
}

/**
 * Whether adding `adding` elements keeps the drawing within the edit limit.
 * @param {number} current elements now
 * @param {number} adding
 * @returns {string|null} the problem, or null
 */
export function budgetProblem(current, adding) {
  if (current + adding <= EDIT_LIMIT) return null;
  return `That would make ${(current + adding).toLocaleString("en-US")} elements; a hand-edited design holds at most ${EDIT_LIMIT.toLocaleString("en-US")}.`;
}

/**
 * Scope choices for the view picker: each scope, marked unavailable above the render limit.
 * @param {{id: string, label: string, elements: number}[]} scopes
 * @returns {{id: string, label: string, disabled: boolean}[]}
 */
export function scopeChoices(scopes) {
  return (scopes ?? []).map((scope) => {
    const count = Number(scope.elements) || 0;
    const tooBig = count > RENDER_LIMIT;
    const size = count ? ` (${count.toLocaleString("en-US")} elements${tooBig ? ", too large to draw" : ""})` : "";
    return { id: scope.id, label: `${scope.label}${size}`, disabled: tooBig };
  });
}
