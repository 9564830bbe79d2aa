// What the canvas says about overlays a revision has no job for: "No simulation for revision 2 —
// run one, or show revision 1's", and whose overlays it shows when they are an older revision's.

/** The job kinds that fill each overlay (checkbox names without "overlay-"). */
export const OVERLAY_JOBS = { problems: ["validate", "power"], power: ["power"], util: ["simulate"] };

/** What each overlay needs, in words. */
export const OVERLAY_WHAT = { problems: "validation", power: "power budget", util: "simulation" };

/**
 * Notes for the wanted overlays that the loaded data has no job for.
 * @param {{revision: number, jobs?: {kind: string}[], older?: Object<string, number>, source_revision?: number}} data
 *   the overlays API's answer
 * @param {string[]} wanted  overlays ticked: "problems", "power", "util"
 * @returns {{overlay: string, text: string, older: number|null}[]}  `older`: a revision whose
 *   overlay can be shown instead (null when there is none)
 */
export function missingOverlays(data, wanted) {
  const kinds = new Set((data.jobs ?? []).map((job) => job.kind));
  const revision = data.source_revision ?? data.revision;
  const notes = [];
  for (const overlay of wanted) {
    if (OVERLAY_JOBS[overlay].some((kind) => kinds.has(kind))) continue;
    const older = data.source_revision ? null : data.older?.[overlay] ?? null;
    const what = OVERLAY_WHAT[overlay];
    const text = older
      ? `No ${what} for revision ${revision} — run one, or show revision ${older}'s.`
      : `No ${what} for revision ${revision} yet — run one from the design page (Analysis).`;
    notes.push({ overlay, text, older });
  }
  return notes;
}

/**
 * The label of overlays drawn from an older revision, or "" for the canvas's own.
 * @param {{revision?: number, source_revision?: number, unmatched_links?: number}} data
 * @param {number} canvasRevision  the revision on the canvas
 * @returns {string}
 */
export function overlaySourceLabel(data, canvasRevision) {
  if (!data.source_revision || data.source_revision === canvasRevision) return "";
  const gone = data.unmatched_links ? `; ${data.unmatched_links.toLocaleString("en-US")} of its links are not in revision ${canvasRevision}` : "";
  return `Showing revision ${data.source_revision}'s results, older than this canvas (revision ${canvasRevision})${gone}.`;
}
