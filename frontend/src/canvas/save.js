// Saving, as a small state machine: a pure reducer from (state, event) to the next state, so
// the page only draws the state and tests cover every path (saved, problems, conflict,
// "Reload", "Keep mine", network failure).
//
// status: "idle" (nothing pending) | "saving" | "problems" (400) | "conflict" (409)
//         | "error" (network or unexpected answer) | "reloading"
// A save that would make spec parameters untrue is not stored ("stale": back to idle, the
// page lists them and offers "Save anyway").

/**
 * @param {{revision?: number|null}} [init] revision the drawing is based on (null: never saved)
 * @returns {Record<string, any>}
 */
export function initialSaveState({ revision = null } = {}) {
  return { status: "idle", revision, base: revision, latest: null, problems: [], message: "" };
}

/**
 * The next save state.
 * @param {Record<string, any>} state
 * @param {{type: string, [key: string]: any}} event
 *   save | saved {revision} | problems {problems} | conflict {latest, detail} | stale {stale}
 *   | failed {message} | reload | reloaded {revision} | keepMine | dismiss
 * @returns {Record<string, any>}
 */
export function saveReducer(state, event) {
  switch (event.type) {
    case "save":
      if (state.status === "saving" || state.status === "reloading") return state;
      return { ...state, status: "saving", base: state.revision, problems: [], message: "" };
    case "keepMine":
      if (state.status !== "conflict") return state;
      // Save the same drawing again, this time on top of the latest revision.
      return { ...state, status: "saving", base: state.latest, problems: [], message: "" };
    case "saved":
      return {
        ...state,
        status: "idle",
        revision: event.revision,
        base: event.revision,
        latest: null,
        problems: [],
        message: `Saved revision ${event.revision}.`,
      };
    case "problems":
      return {
        ...state,
        status: "problems",
        problems: event.problems ?? [],
        message: "The design was not saved: fix the problems below.",
      };
    case "conflict":
      return {
        ...state,
        status: "conflict",
        latest: event.latest,
        problems: [],
        message:
          event.detail ||
          `Revision ${event.latest} was saved by someone else since you opened revision ${state.base}.`,
      };
    case "stale":
      if (state.status !== "saving") return state;
      return { ...state, status: "idle", base: state.revision, problems: [], message: "" };
    case "failed":
      return { ...state, status: "error", message: event.message || "Saving failed." };
    case "reload":
      if (state.status !== "conflict") return state;
      return { ...state, status: "reloading", message: "Loading the latest revision…" };
    case "reloaded":
      return { ...initialSaveState({ revision: event.revision }), message: `Loaded revision ${event.revision}.` };
    case "dismiss":
      return state.status === "saving" || state.status === "reloading"
        ? state
        : { ...state, status: "idle", problems: [], message: "" };
    default:
      return state;
  }
}

/**
 * The save event for an API answer.
 * @param {{status: number, data: any}} response
 * @returns {{type: string, [key: string]: any}}
 */
export function eventForResponse(response) {
  const data = response.data ?? {};
  if (response.status === 201 || response.status === 200) {
    // PUT /topology/ answers the new revision ({number, ...}); POST /designs/ the design
    // ({id, latest_revision, ...}).
    return { type: "saved", revision: data.revision ?? data.number ?? data.latest_revision };
  }
  if (response.status === 409 && Array.isArray(data.stale_parameters)) {
    // PUT /topology/ with check_stale: the edit makes spec parameters untrue, nothing stored
    return { type: "stale", stale: data.stale_parameters };
  }
  if (response.status === 409) {
    return { type: "conflict", latest: data.latest_revision, detail: data.detail };
  }
  if (response.status === 400) {
    const problems = Array.isArray(data.problems)
      ? data.problems
      : Object.entries(data).map(([field, messages]) => ({
          code: field,
          message: `${field}: ${[].concat(messages).join(" ")}`,
          element_ids: [],
          severity: "error",
        }));
    return { type: "problems", problems };
  }
  if (response.status === 403) return { type: "failed", message: "You may not change this design." };
  return { type: "failed", message: data.detail || `The server answered ${response.status}.` };
}

/**
 * What the Save button does in a state: save (a PUT with base_revision), create (POST: a new
 * drawing) or nothing.
 * @param {Record<string, any>} state
 * @param {{dirty: boolean, editable: boolean, designId: number|null}} page
 * @returns {"save"|"create"|null}
 */
export function saveAction(state, { dirty, editable, designId }) {
  if (!editable || state.status === "saving" || state.status === "reloading") return null;
  if (designId === null || designId === undefined) return "create";
  if (state.status === "conflict") return null; // choose Reload or Keep mine
  return dirty ? "save" : null;
}

/** What each step of a save under way is doing, as the status line says it. */
export const SAVE_STEPS = {
  check: "checking the edit",
  store: "checking and storing the edit",
  reload: "loading the saved revision",
  redraw: "drawing what changed",
};

/**
 * The status line of a save under way: its step, the size of the drawing (and of the edit,
 * when only what it changed is sent) and the time so far, e.g. "Saving… checking and storing
 * the edit (2 changes, 4,381 elements) · 1.2 s". Redrawn a few times a second, so that a long
 * save shows it is still moving and how long it has taken.
 * @param {{step: string, elements?: number, changes?: number|null, elapsedMs?: number}} progress
 * @returns {string}
 */
export function saveProgressText({ step, elements = 0, changes = null, elapsedMs = 0 }) {
  const what = SAVE_STEPS[step] ?? "saving";
  const edit = changes === null || changes === undefined ? "" : `${changes.toLocaleString("en-US")} change${changes === 1 ? "" : "s"}, `;
  const size = elements ? ` (${edit}${elements.toLocaleString("en-US")} elements)` : "";
  const seconds = (Math.max(0, elapsedMs) / 1000).toFixed(1);
  return `Saving… ${what}${size} · ${seconds} s`;
}
