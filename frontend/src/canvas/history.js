// Where the undo stack stands relative to the last save: the drawing is "dirty" unless the
// user undid or redid back to exactly the saved state. cytoscape-undo-redo keeps the stacks;
// this tracker only counts, so it runs (and is tested) without a browser.

/**
 * @returns {{
 *   done: () => void, undone: () => void, redone: () => void, saved: () => void,
 *   reset: (dirty?: boolean) => void, dirty: () => boolean, depth: () => number
 * }}
 */
export function createSaveTracker() {
  let position = 0; // actions on the undo stack
  let savedAt = 0; // position of the saved state; -1 when it can no longer be reached
  let forcedDirty = false; // e.g. a blank drawing never saved, or a save that failed mid-way
  return {
    /** A new action: the redo stack is gone, and the saved state with it if it was there. */
    done() {
      if (savedAt > position) savedAt = -1;
      position += 1;
    },
    undone() {
      position = Math.max(0, position - 1);
    },
    redone() {
      position += 1;
    },
    /** The drawing as it is now was saved. */
    saved() {
      savedAt = position;
      forcedDirty = false;
    },
    /** Stacks cleared (a new drawing was loaded): clean unless `dirty`. */
    reset(dirty = false) {
      position = 0;
      savedAt = 0;
      forcedDirty = dirty;
    },
    dirty() {
      return forcedDirty || position !== savedAt;
    },
    depth() {
      return position;
    },
  };
}

/**
 * The undoable change of some data fields of one element: what to apply, and the values it
 * replaces (the undo of a change is the change back).
 * @param {Record<string, unknown>} current the element's data now
 * @param {Record<string, unknown>} patch the new values
 * @returns {Record<string, unknown>} the previous values of the patched keys
 */
export function inversePatch(current, patch) {
  const previous = {};
  for (const key of Object.keys(patch)) previous[key] = current[key] ?? null;
  return previous;
}
