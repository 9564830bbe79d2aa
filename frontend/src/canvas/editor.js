// The canvas page: a cytoscape drawing of a design with a device palette, link dialog,
// inspector, views (overview, scopes, all), overlays, undo/redo, saving and export.
// This file holds the canvas's state and wires the panels together: each concern is its own
// module (palette.js, link_dialog.js, inspector.js, views.js, navigation.js, overlay_panel.js,
// export.js), and the rules behind them are pure modules with tests beside them.

import { createApi, urls } from "./api.js";
import { budgetProblem, editability, initialView, summaryElements } from "./budget.js";
import { buildEditDocument, nodeName, pasteElements, resolveProblemIds } from "./document.js";
import { h } from "./dom.js";
import { createExport } from "./export.js";
import { createSaveTracker, inversePatch } from "./history.js";
import { createInspector } from "./inspector.js";
import { keepLabelsApart } from "./labels.js";
import { createLinkDialog } from "./link_dialog.js";
import { createNetworkPanel } from "./network_panel.js";
import { COLLAPSE_OPTIONS, createNavigation } from "./navigation.js";
import { createAsBuiltOverlay } from "./asbuilt.js";
import { OVERLAY_BOXES, createOverlayPanel } from "./overlay_panel.js";
import { createPalette } from "./palette.js";
import { editPatch, patchProblemIds } from "./patch.js";
import { planeValue } from "./planes.js";
import { createWhatIf } from "./whatif.js";
import { eventForResponse, initialSaveState, saveAction, saveProgressText, saveReducer } from "./save.js";
import { canvasStyle } from "./style.js";
import { createViews } from "./views.js";

/**
 * The page's window, with what the canvas leaves on it for the browser tests: the handle
 * (`fabricCanvas`) and when the first drawing was ready (`fabricCanvasReady`, ms).
 * @typedef {Window & typeof globalThis & {fabricCanvas?: Record<string, any>, fabricCanvasReady?: number}} CanvasWindow
 */

/**
 * Start the canvas on a page with `[data-canvas]` (the design canvas page).
 * @param {Document} doc
 * @param {{cytoscape?: Function, win?: CanvasWindow,
 *   fetchFn?: (url: string, init: Record<string, any>) => Promise<Response>}} [deps]
 */
export function startCanvas(doc, { cytoscape, win = window, fetchFn } = {}) {
  const root = /** @type {HTMLElement|null} */ (doc.querySelector("[data-canvas]"));
  if (!root) return null;
  const config = JSON.parse(doc.getElementById("canvas-config")?.textContent || "{}");
  /**
   * A control of the canvas page by its `data-c` name. Typed as an input: what the canvas
   * reads and sets on its controls (value, disabled, hidden, dataset, focus) an input has.
   * @param {string} name
   * @returns {HTMLInputElement}
   */
  const $ = (name) => root.querySelector(`[data-c="${name}"]`);
  const api = createApi({ csrfToken: config.csrf_token ?? "", ...(fetchFn ? { fetchFn } : {}) });

  const state = {
    designId: config.design ?? null,
    revision: config.revision ?? null,
    canWrite: config.can_write !== false,
    view: "detail",
    scope: "all",
    scopes: [],
    plane: null, // the one plane shown (1-based), or null for every plane
    planes: 1,
    editable: false,
    reason: "",
    save: initialSaveState({ revision: config.revision ?? null }),
    tracker: createSaveTracker(),
    overlays: null,
    overlaySource: null, // {revision, from}: show an older revision's overlays on `revision`
    clipboard: null,
    pasteCount: 0,
    edgeSeq: 0,
    catalog: new Map(),
    lastSaved: null,
    problemSource: null,
    loading: false,
    ready: false,
    notes: [],
    networks: [], // the design's layers (compute, storage, ...) from the canvas API
    hiddenLayers: new Set(), // layers the Networks control has switched off
    extras: null,
    largeStyle: null, // whether the stylesheet is the one for large views
    editStamp: 0, // counts edits: the edit document built for a stamp is reused (editDocument)
    built: null, // {stamp, doc}: the last edit document built
    saved: null, // what the drawing is as saved, by element (patch.js), with its revision
    viewTimings: null, // how long the last view took to load (views.js)
    saveTimings: null, // where the time of the last save went (ms)
    staleTimings: null, // and of the last one that stopped at spec parameters no longer true
  };

  // --- cytoscape ------------------------------------------------------------------------------
  const container = $("cy");
  const cy = cytoscape({
    container,
    style: canvasStyle(),
    elements: [],
    boxSelectionEnabled: true,
    selectionType: "single",
    minZoom: 0.01,
    maxZoom: 4,
    motionBlur: false,
  });
  const ur = cy.undoRedo({ undoableDrag: () => state.editable, stackSizeLimit: 500 });
  ur.action("changeData", applyDataChange, applyDataChange);
  const ec = cy.expandCollapse({ ...COLLAPSE_OPTIONS, cueEnabled: true, expandCollapseCueSize: 14 });
  const declutter = keepLabelsApart(cy, { setTimeout: win.setTimeout.bind(win), clearTimeout: win.clearTimeout.bind(win) });
  // Cytoscape caches where its container is on screen; panels above it (conflict, status)
  // move it, so tell cytoscape whenever the page's size changes.
  // The drawing panel ends at the bottom of the window (the toolbars and status line above it
  // take one to three rows), so that "Fit" shows the whole drawing without scrolling.
  function fitPanelToWindow() {
    const top = container.getBoundingClientRect().top + win.scrollY;
    const height = `${Math.max(420, Math.floor(win.innerHeight - top - 12))}px`;
    if (container.style.height !== height) container.style.height = height;
    cy.resize();
  }
  fitPanelToWindow();
  win.addEventListener("resize", fitPanelToWindow);
  if (win.ResizeObserver) new win.ResizeObserver(fitPanelToWindow).observe(root);

  /** The undoable "changeData" action: set some data fields, undone by setting them back. */
  function applyDataChange({ id, data }) {
    const ele = cy.getElementById(id);
    const previous = inversePatch(ele.data(), data);
    ele.data(data);
    return { id, data: previous };
  }

  // --- status and save UI --------------------------------------------------------------------
  function setStatus(text, kind = "") {
    const status = $("status");
    status.textContent = text;
    status.dataset.kind = kind;
  }

  function isDirty() {
    return state.tracker.dirty();
  }

  function dispatch(event) {
    state.save = saveReducer(state.save, event);
    renderSave();
  }

  function renderSave() {
    const save = state.save;
    const dirty = isDirty();
    const action = saveAction(save, { dirty, editable: state.editable, designId: state.designId });
    const button = $("save");
    const busy = save.status === "saving" || progress !== null;
    button.disabled = busy || !action || (action === "create" && cy.nodes("[kind = 'device']").empty());
    button.textContent = busy ? "Saving…" : "Save";
    root.dataset.dirty = dirty ? "true" : "false";
    root.dataset.saveStatus = save.status;
    $("revision").textContent = state.revision ? `revision ${state.revision}${dirty ? " · unsaved changes" : ""}` : dirty ? "not saved · unsaved changes" : "not saved";
    const conflict = $("conflict");
    conflict.hidden = save.status !== "conflict";
    if (save.status === "conflict") {
      const said = /[.!?]$/.test(save.message) ? save.message : `${save.message}.`;
      $("conflict-text").textContent = `${said} Your drawing is based on revision ${save.base}; the latest is ${save.latest}.`;
      $("keep").textContent = `Keep mine (save on top of revision ${save.latest})`;
    }
    if (save.message && save.status !== "conflict") {
      setStatus(save.message, save.status === "idle" ? "ok" : save.status === "saving" ? "" : "bad");
    }
    $("undo").disabled = !state.editable || ur.isUndoStackEmpty();
    $("redo").disabled = !state.editable || ur.isRedoStackEmpty();
  }

  // --- element helpers ------------------------------------------------------------------------
  function countEditable() {
    return cy.nodes("[kind = 'device']").length + cy.edges("[kind = 'link']").length;
  }

  function deviceNames() {
    return cy.nodes("[kind = 'device']").map((n) => nodeName(n.data()));
  }

  function idExists(id) {
    return cy.getElementById(id).nonempty();
  }

  function linkEdgeData() {
    return cy.edges("[kind = 'link']").map((e) => e.data());
  }

  function newEdgeId() {
    let id;
    do {
      state.edgeSeq += 1;
      id = `link:new-${state.edgeSeq}`;
    } while (idExists(id));
    return id;
  }

  function refuse(message) {
    setStatus(message, "bad");
  }

  // --- panels ---------------------------------------------------------------------------------
  const canvas = {
    doc, win, root, $, api, config, state, cy, ur, ec, container,
    setStatus, refuse, isDirty, countEditable, deviceNames, idExists, linkEdgeData, newEdgeId,
  };
  const nav = createNavigation(canvas, { scheduleInspector: () => inspector.scheduleInspector() });
  const overlays = createOverlayPanel(canvas, { focusOn: nav.focusOn });
  const asbuilt = createAsBuiltOverlay(canvas);
  const views = createViews(canvas, {
    afterViewChange,
    clearProblems: overlays.clearProblems,
    anyOverlay: () => overlays.anyOverlay() || asbuilt.active(),
    applyOverlays: () => {
      if (overlays.anyOverlay()) overlays.applyOverlays();
      if (asbuilt.active()) asbuilt.apply();
    },
    openingView: nav.openingView,
    renderFindNames: nav.renderFindNames,
    declutter,
    applyLayers: () => networkPanel.applyLayers(),
  });
  const palette = createPalette(canvas);
  const links = createLinkDialog(canvas, { modelInfo: palette.modelInfo });
  const inspector = createInspector(canvas, {
    scopeLabel: views.scopeLabel,
    changeView: views.changeView,
    openLinkDialog: links.openLinkDialog,
    deleteSelection,
    modelInfo: palette.modelInfo,
    toggleGroup: nav.toggleGroup,
  });
  const exporter = createExport(canvas);
  const networkPanel = createNetworkPanel(canvas);
  const whatif = createWhatIf(canvas);

  /** After a view loads: whether it can be edited, and every control that depends on that. */
  function afterViewChange() {
    const { editable, reason } =
      state.designId === null
        ? { editable: true, reason: "" }
        : editability({
            view: state.view,
            scope: state.scope,
            elements: countEditable(),
            canWrite: state.canWrite,
            designElements: summaryElements(config.summary),
            plane: state.plane,
          });
    state.editable = editable;
    state.reason = reason;
    root.dataset.editable = editable ? "true" : "false";
    root.dataset.view = state.view;
    root.dataset.scope = state.scope;
    cy.autoungrabify(!editable);
    if (!editable && links.drawMode()) links.setDrawMode(false);
    for (const name of ["draw", "delete", "copy", "paste"]) $(name).disabled = !editable;
    $("palette").dataset.disabled = editable ? "false" : "true";
    $("palette-note").textContent = editable
      ? "Click a device to add it, or drag it onto the canvas."
      : reason || "This view is read-only.";
    const items = /** @type {NodeListOf<HTMLButtonElement>} */ (root.querySelectorAll("[data-palette-item]"));
    for (const button of items) button.disabled = !editable;
    const groups = cy.nodes("[kind = 'group']").length > 0 || cy.nodes(":parent").length > 0;
    $("collapse-all").disabled = !groups;
    $("expand-all").disabled = !groups;
    for (const name of OVERLAY_BOXES) $(name).disabled = state.designId === null;
    $("overlay-asbuilt").disabled = state.designId === null;
    views.renderScopes();
    views.renderPlanes();
    views.renderCrumbs();
    networkPanel.renderNetworks();
    inspector.renderInspector();
    renderSave();
    whatif.refresh();
  }

  // --- edit commands --------------------------------------------------------------------------
  function selectedEditable() {
    return cy.$(":selected").filter((e) => (e.isEdge() ? e.data("kind") === "link" : e.data("kind") === "device"));
  }

  function deleteSelection() {
    if (!state.editable) return;
    const selected = selectedEditable();
    if (selected.empty()) return;
    const all = selected.union(selected.nodes().connectedEdges("[kind = 'link']"));
    ur.do("remove", all);
    setStatus(`Deleted ${selected.nodes().length} devices and ${all.edges().length} links.`, "ok");
  }

  function copySelection() {
    const nodes = cy.$("node:selected[kind = 'device']");
    if (nodes.empty()) return;
    state.clipboard = {
      nodes: nodes.map((n) => ({ data: { ...n.data() }, position: { ...n.position() } })),
      edges: nodes.edgesWith(nodes).filter("[kind = 'link']").map((e) => ({ data: { ...e.data() } })),
    };
    state.pasteCount = 0;
    setStatus(`Copied ${state.clipboard.nodes.length} devices and ${state.clipboard.edges.length} links.`);
  }

  function paste() {
    if (!state.editable || !state.clipboard) return;
    const size = state.clipboard.nodes.length + state.clipboard.edges.length;
    const problem = budgetProblem(countEditable(), size);
    if (problem) return refuse(problem);
    state.pasteCount += 1;
    const elements = pasteElements(state.clipboard, {
      names: deviceNames(),
      exists: idExists,
      offset: 40 * state.pasteCount,
      edgeId: newEdgeId,
    });
    const added = ur.do("add", elements);
    cy.$(":selected").unselect();
    added.select();
    setStatus(`Pasted ${added.nodes().length} devices and ${added.edges().length} links.`, "ok");
  }

  function undo() {
    if (state.editable && !ur.isUndoStackEmpty()) ur.undo();
  }

  function redo() {
    if (state.editable && !ur.isRedoStackEmpty()) ur.redo();
  }

  cy.on("afterDo", () => {
    state.tracker.done();
    editChanged();
  });
  cy.on("afterUndo", () => {
    state.tracker.undone();
    editChanged();
  });
  cy.on("afterRedo", () => {
    state.tracker.redone();
    editChanged();
  });

  function editChanged() {
    state.editStamp += 1;
    if (state.save.status === "problems" || state.save.status === "error") dispatch({ type: "dismiss" });
    renderSave();
    inspector.scheduleInspector();
    nav.renderFindNames();
  }

  // --- saving ---------------------------------------------------------------------------------
  // A save under way (null: none): its step, the drawing's size and when it started. The
  // status line says them and the time so far, redrawn every 200 ms (saveProgressText).
  let progress = null;
  let progressTimer = null;

  function drawProgress() {
    if (!progress) return;
    const elapsedMs = win.performance.now() - progress.started;
    setStatus(saveProgressText({ ...progress, elapsedMs }), "");
    root.dataset.saveStep = progress.step;
  }

  function progressStep(step, elements, changes) {
    if (!progress) {
      progress = { step, elements: elements ?? 0, changes: null, started: win.performance.now() };
      progressTimer = win.setInterval(drawProgress, 200);
    }
    progress.step = step;
    if (elements !== undefined) progress.elements = elements;
    if (changes !== undefined) progress.changes = changes;
    drawProgress();
    renderSave();
  }

  function progressDone() {
    if (progressTimer !== null) win.clearInterval(progressTimer);
    progress = null;
    progressTimer = null;
    delete root.dataset.saveStep;
  }

  /** The edit document of the drawing, built once per state of the drawing (a save that
   * first checks the edit, then stores it, builds it once). */
  function editDocument() {
    if (state.built?.stamp === state.editStamp && state.built.revision === state.revision) return state.built.doc;
    const doc = buildDocument();
    state.built = { stamp: state.editStamp, revision: state.revision, doc };
    return doc;
  }

  function buildDocument() {
    const collapsed = ec.expandableNodes();
    ec.expandAllEdges();
    if (collapsed.nonempty()) ec.expandAll(COLLAPSE_OPTIONS);
    const nodes = cy.nodes().map((n) => ({ data: n.data(), position: n.position() }));
    const edges = cy.edges().map((e) => ({ data: e.data() }));
    if (collapsed.nonempty()) ec.collapse(cy.collection(collapsed.map((n) => cy.getElementById(n.id()))), COLLAPSE_OPTIONS);
    return buildEditDocument(nodes, edges);
  }

  /** The spec parameters an edit makes untrue (from the preview), shown before saving. */
  function showStale(items) {
    const list = $("stale-list");
    list.replaceChildren(...items.map((item) => h(doc, "li", { text: item.message })));
    $("stale").hidden = items.length === 0;
    if (items.length) $("save-anyway").focus();
  }

  async function save(options) {
    try {
      await saveSteps(options);
    } finally {
      if (progress) {
        progressDone();
        renderSave();
      }
    }
  }

  async function saveSteps({ keepMine = false, confirmed = false } = {}) {
    const entered = win.performance.now();
    const action = keepMine ? (state.save.status === "conflict" ? "save" : null) : saveAction(state.save, { dirty: isDirty(), editable: state.editable, designId: state.designId });
    if (!action) return;
    showStale([]);
    const message = $("message").value.trim();
    let name = "";
    if (action === "create") {
      name = $("name").value.trim();
      if (!name) {
        progressDone();
        renderSave();
        setStatus("Name the design before saving it.", "bad");
        $("name").setAttribute("aria-invalid", "true");
        $("name").focus();
        return;
      }
      $("name").removeAttribute("aria-invalid");
    }
    dispatch(keepMine ? { type: "keepMine" } : { type: "save" });
    progressStep("store");
    const waiting = win.performance.now();
    await state.extras;
    overlays.clearProblems();
    const building = win.performance.now();
    const built = editDocument();
    // What the edit changed, against the revision it started from (PATCH: the request and the
    // answer carry the edit, not the fabric); a whole document for a new design, and for
    // "Keep mine" (the drawing replaces a revision it did not start from).
    const sent = action === "save" && !keepMine && state.saved?.revision === state.save.base ? editPatch(state.saved, built) : null;
    const buildMs = win.performance.now() - building;
    state.lastSaved = sent
      ? { resolveIds: (ids) => patchProblemIds(ids, { addedLinkIds: sent.addedLinkIds, nodeIds: built.nodeIds }) }
      : { resolveIds: (ids) => resolveProblemIds(ids, built) };
    const body = { nodes: built.nodes, links: built.links };
    progressStep("store", body.nodes.length + body.links.length, sent?.size);
    const storing = win.performance.now();
    const answer = await send(action, { name, message, body, sent, keepMine, confirmed });
    const event = eventForResponse(answer);
    const stored = win.performance.now();
    const spent = { start_ms: waiting - entered, extras_ms: building - waiting, build_ms: buildMs, store_ms: stored - storing, patch: sent ? sent.size : null };
    if (event.type === "stale") {
      // Where the time of a save that stopped to ask went (ms), for the benchmark.
      state.staleTimings = spent;
      progressDone();
      dispatch(event);
      showStale(event.stale);
      setStatus(`Not saved yet: ${event.stale.length} spec parameter${event.stale.length === 1 ? "" : "s"} would no longer hold.`, "bad");
      return;
    }
    if (event.type === "saved") {
      state.tracker.saved();
      state.overlays = null;
      $("message").value = "";
      if (sent && answer.data.canvas && ec.expandableNodes().empty()) {
        // Only what the edit changed is drawn again, as the server has it.
        progressStep("redraw");
        views.showChanges(answer.data.canvas, sent, event.revision);
        renderSave();
        inspector.scheduleInspector();
      } else {
        // Show the saved revision as the server has it (ids as the server numbers them).
        state.revision = event.revision;
        progressStep("reload");
        await views.loadView("detail", "all", { fit: false, quiet: true, inPlace: true });
      }
      event.revision = state.revision;
      // Where the time of the last save went (ms), for the benchmark (tests/bench_canvas.py).
      state.saveTimings = { ...spent, ...state.viewTimings, total_ms: win.performance.now() - entered };
    }
    progressDone();
    dispatch(event);
    if (event.type === "problems") overlays.showProblems(event.problems, "save");
  }

  /** The request of a save: POST a new design, PATCH what the edit changed, or PUT the whole
   * document. One request checks and stores the edit: one that makes spec parameters untrue
   * is not stored (check_stale) but listed, with "Save anyway" (confirmed) to store it. */
  async function send(action, { name, message, body, sent, keepMine, confirmed }) {
    if (action === "create") {
      const answer = await api.post(urls.designs(), { name, message, topology_document: body });
      if (answer.status === 201 && answer.data?.id) {
        state.designId = answer.data.id;
        createdDesign(name);
        return { ...answer, data: { revision: answer.data.latest_revision ?? 1 } };
      }
      return answer;
    }
    const check_stale = !keepMine && !confirmed;
    const head = { base_revision: state.save.base, message, check_stale };
    if (sent) return api.patch(urls.topology(state.designId), { ...head, canvas_changes: true, ...sent.patch });
    return api.put(urls.topology(state.designId), { ...head, ...body });
  }

  /** The page of a design just made from a drawing (its id, URL, title and breadcrumb). */
  function createdDesign(name) {
    state.canWrite = true;
    const page = (config.urls?.canvas ?? "/designs/{id}/canvas/").replace("{id}", String(state.designId));
    win.history.replaceState(null, "", `${page}?view=detail&scope=all`);
    $("title").textContent = name;
    doc.title = `${name} · canvas · Fabric Planner`;
    $("name-label").remove();
    $("name").remove();
    const crumb = $("crumb-design");
    const detail = (config.urls?.design ?? "/designs/{id}/").replace("{id}", String(state.designId));
    crumb.querySelector("a").href = detail;
    crumb.querySelector("a").textContent = name;
    crumb.hidden = false;
  }

  async function reloadLatest() {
    dispatch({ type: "reload" });
    const latest = state.save.latest;
    const ok = await views.loadView(state.view === "overview" ? "overview" : "detail", state.scope || "all", { fit: false, revision: latest });
    dispatch(ok ? { type: "reloaded", revision: state.revision } : { type: "failed", message: "Could not load the latest revision." });
  }

  // --- wiring ---------------------------------------------------------------------------------
  const on = (name, handler) => $(name).addEventListener("click", handler);
  on("save", () => save());
  on("reload", () => reloadLatest());
  on("keep", () => save({ keepMine: true }));
  on("save-anyway", () => save({ confirmed: true }));
  on("stale-cancel", () => showStale([]));
  on("draw", () => links.setDrawMode(!links.drawMode()));
  on("undo", undo);
  on("redo", redo);
  on("delete", deleteSelection);
  on("copy", copySelection);
  on("paste", paste);
  on("zoom-in", () => nav.zoomBy(1.25));
  on("zoom-out", () => nav.zoomBy(0.8));
  on("fit", () => nav.fitView());
  on("collapse-all", nav.collapseAll);
  on("expand-all", nav.expandAll);
  on("export-png", exporter.exportPng);
  on("export-svg", exporter.exportSvg);
  $("name")?.addEventListener("input", renderSave);

  cy.on("tap", (event) => {
    if (event.target === cy) container.focus();
  });

  doc.addEventListener("keydown", (event) => {
    if (links.isOpen()) return;
    const target = /** @type {HTMLElement} */ (event.target);
    if (target.closest?.("input, select, textarea, [contenteditable='true']")) return;
    const mod = event.ctrlKey || event.metaKey;
    const key = event.key.toLowerCase();
    let handled = true;
    if (mod && key === "z" && !event.shiftKey) undo();
    else if (mod && (key === "y" || (key === "z" && event.shiftKey))) redo();
    else if (mod && key === "c") {
      if (String(win.getSelection?.() ?? "")) return;
      copySelection();
    } else if (mod && key === "v") paste();
    else if (mod && key === "a" && (target === container || target === doc.body)) cy.elements().select();
    else if (mod || event.altKey) handled = false;
    else if (key === "delete" || key === "backspace") deleteSelection();
    else if (key === "f") nav.fitView();
    else if (key === "/") $("find").focus();
    else if (key === "l") links.setDrawMode(!links.drawMode());
    else if (key === "+" || key === "=") nav.zoomBy(1.25);
    else if (key === "-") nav.zoomBy(0.8);
    else if (key === "escape") {
      if (links.drawMode()) links.setDrawMode(false);
      cy.$(":selected").unselect();
    } else handled = false;
    if (handled) event.preventDefault();
  });

  win.addEventListener("beforeunload", (event) => {
    if (!isDirty()) return;
    event.preventDefault();
    event.returnValue = "";
  });

  // --- start ----------------------------------------------------------------------------------
  async function start() {
    const params = new URLSearchParams(win.location.search);
    state.plane = planeValue(params.get("plane"));
    let first;
    if (params.get("view") === "overview") first = { view: "overview", scope: "" };
    else if (params.get("view") === "detail" && params.get("scope")) first = { view: "detail", scope: params.get("scope") };
    else first = initialView({ elements: summaryElements(config.summary), handDrawn: state.designId === null });
    let ok = await views.loadView(first.view, first.scope);
    if (!ok && state.plane) {
      state.plane = null; // a plane this design does not have: show every plane
      ok = await views.loadView(first.view, first.scope);
    }
    if (!ok && first.view !== "overview") ok = await views.loadView("overview", "");
    if (state.canWrite) palette.loadPalette();
    else $("palette").hidden = true;
    await new Promise((resolve) => win.requestAnimationFrame(() => win.requestAnimationFrame(resolve)));
    state.ready = true;
    root.dataset.state = ok ? "ready" : "error";
    win.fabricCanvasReady = win.performance.now();
  }

  const handle = {
    cy,
    ur,
    ec,
    state,
    findDevice: nav.findDevice,
    loadView: views.loadView,
    save,
    openLinkDialog: links.openLinkDialog,
    isDirty,
    editDocument,
    ready: start(),
  };
  win.fabricCanvas = handle;
  return handle;
}
