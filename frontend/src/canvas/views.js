// Which part of a design the canvas shows: loading a view (overview, an SU, pod or rack, the
// whole fabric) from the API, one plane or all, laying it out, the scope and plane menus and
// breadcrumbs, and the edit
// extras (plane, SU, rail, rack, RU) an edit keeps from its base revision.

import { urls } from "./api.js";
import { scopeChoices } from "./budget.js";
import { linkEntry, nodeEntry, nodeName } from "./document.js";
import { h } from "./dom.js";
import { formatBandwidth, formatCount } from "./format.js";
import { COLLAPSE_OPTIONS } from "./navigation.js";
import { entriesAfter, linkKey, linkRenumbering, nodeKey, savedEntries } from "./patch.js";
import { planeChoices, planeValue } from "./planes.js";
import { canvasStyle } from "./style.js";

/** Elements: cheaper styles (straight edges) above this. */
const LARGE_VIEW = 1500;
/** Topology fields of a device kept through edits. */
const EDIT_EXTRA_KEYS = ["plane", "su", "rail", "group", "rack", "ru"];

/**
 * A node of the canvas API as a cytoscape element: aggregates show their models, groups keep
 * their label for when they collapse, devices get a name.
 * @param {{data: Record<string, any>, position?: {x: number, y: number}, classes?: string}} node
 * @returns {Record<string, any>}
 */
function prepareNode(node) {
  const data = { ...node.data };
  if (data.kind === "aggregate" || data.kind === "network-aggregate") {
    const models = Object.keys(data.models ?? {}).join(", ") || data.model || "";
    data.display = models ? `${data.label}\n${models}` : data.label;
  }
  if (data.kind === "group") data.collapsedLabel = data.label;
  if (data.kind === "device" && data.name === undefined) data.name = nodeName(data);
  return { group: "nodes", data, position: node.position ? { ...node.position } : undefined, classes: node.classes };
}

/**
 * An edge of the canvas API as a cytoscape element: bundles say their links and bandwidth.
 * @param {{data: Record<string, any>, classes?: string}} edge
 * @returns {Record<string, any>}
 */
function prepareEdge(edge) {
  const data = { ...edge.data };
  if (data.kind === "bundle" || data.kind === "network-bundle") {
    const count = data.label || `${formatCount(data.links)} links`;
    data.label = data.bandwidth_gbps ? `${count} · ${formatBandwidth(data.bandwidth_gbps)}` : count;
  }
  if (data.kind === "link" && data.tier === undefined) data.tier = null;
  return { group: "edges", data, classes: edge.classes };
}

/** Node data the canvas adds after loading (kept when the same view is shown again). */
const CLIENT_KEYS = new Set(["edit_extra"]);

function sameValue(a, b) {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Make one element what the server draws (`want`, prepared): its data, position and classes
 * (an edge moved to other ends, a node to another parent, moves). The keys the canvas adds
 * (`edit_extra`) and the declutter's "label-crowded" stay.
 * @param {Record<string, any>} ele
 * @param {Record<string, any>} want
 * @returns {boolean} whether anything changed
 */
function updateElement(ele, want) {
  let differs = false;
  if (ele.isEdge() && (ele.data("source") !== want.data.source || ele.data("target") !== want.data.target)) {
    ele = ele.move({ source: want.data.source, target: want.data.target });
    differs = true;
  } else if (ele.isNode() && (ele.data("parent") ?? null) !== (want.data.parent ?? null)) {
    ele = ele.move({ parent: want.data.parent ?? null });
    differs = true;
  }
  const current = ele.data();
  const patch = {};
  let changed = false;
  for (const [key, value] of Object.entries(want.data)) {
    if (key === "id" || key === "source" || key === "target" || key === "parent") continue;
    if (!sameValue(current[key], value)) {
      patch[key] = value;
      changed = true;
    }
  }
  const dropped = Object.keys(current).filter((key) => !(key in want.data) && !CLIENT_KEYS.has(key) && !["id", "source", "target", "parent"].includes(key));
  if (dropped.length) ele.removeData(dropped.join(" "));
  if (changed) ele.data(patch);
  if (want.position && ele.isNode() && !ele.isParent()) {
    const at = ele.position();
    if (Math.abs(at.x - want.position.x) > 0.01 || Math.abs(at.y - want.position.y) > 0.01) {
      ele.position({ ...want.position });
      differs = true;
    }
  }
  // The classes the server gives (the declutter's "label-crowded" stays until it runs again).
  const classes = (want.classes ?? "").split(/\s+/).filter(Boolean);
  const crowded = ele.hasClass("label-crowded");
  if (ele.classes().filter((c) => c !== "label-crowded").sort().join(" ") !== [...classes].sort().join(" ")) {
    ele.classes(crowded ? [...classes, "label-crowded"] : classes);
    differs = true;
  }
  return differs || changed || dropped.length > 0;
}

/**
 * Make the drawing show `nodes` and `edges` (prepared elements) by changing only what differs:
 * data, positions and classes of the elements whose id stays, removing the others and adding
 * the new ones. Run inside `cy.batch`. An element whose ends or parent changed is replaced.
 * @param {Record<string, any>} cy
 * @param {Record<string, any>[]} nodes
 * @param {Record<string, any>[]} edges
 * @returns {{added: number, removed: number, changed: number}}
 */
export function updateElements(cy, nodes, edges) {
  const wanted = new Map([...nodes, ...edges].map((element) => [element.data.id, element]));
  const kept = new Set();
  const gone = [];
  let changed = 0;
  cy.elements().forEach((ele) => {
    const want = wanted.get(ele.id());
    const moved = want && (ele.isEdge()
      ? ele.data("source") !== want.data.source || ele.data("target") !== want.data.target
      : (ele.data("parent") ?? null) !== (want.data.parent ?? null));
    if (!want || moved || ele.group() !== want.group) {
      gone.push(ele);
      return;
    }
    kept.add(ele.id());
    if (updateElement(ele, want)) changed += 1;
  });
  const removed = cy.collection(gone);
  removed.remove();
  // Elements removed with a replaced node (its edges) come back as they are wanted.
  const add = [...nodes, ...edges].filter((element) => !kept.has(element.data.id) || cy.getElementById(element.data.id).empty());
  cy.add(add);
  return { added: add.length, removed: removed.length, changed };
}

/**
 * Give edges new ids (`moves`: old -> new), keeping each element as it is drawn.
 * Cytoscape has no call for it. Its own collections find an element by id in a map it
 * rebuilds from the elements' ids when told to (a collection's `_private.map` is lazy), and
 * an element's id is its `data.id`: so the ids are set, each edge's own one-entry map made
 * again and the whole drawing's map rebuilt once. Nothing is drawn differently (link edges
 * have no label, the only thing drawn by id), so nothing is drawn again: on the 4,946-element
 * preset, 2,300 edges take ~5 ms, against ~100-400 ms to take them out and put them back
 * (remove, then restore, which reads the id again) and as long again to draw them anew
 * (tests/bench_canvas.py). Where the map is not as expected (another cytoscape), that is
 * what is done instead.
 * @param {Record<string, any>} cy
 * @param {Record<string, any>} edges
 * @param {Map<string, string>} moves
 */
function renumber(cy, edges, moves) {
  const pool = cy._private?.elements?._private;
  if (!pool || typeof pool.rebuildMap !== "function" || edges.some((edge) => !(edge._private?.map instanceof Map))) {
    edges.remove();
    edges.forEach((edge) => {
      edge._private.data.id = moves.get(edge._private.data.id);
    });
    edges.restore();
    return;
  }
  edges.forEach((edge) => {
    const id = moves.get(edge._private.data.id);
    edge._private.data.id = id;
    edge._private.map = new Map([[id, { ele: edge, index: 0 }]]);
    edge.clearTraversalCache();
    edge.source().clearTraversalCache();
    edge.target().clearTraversalCache();
  });
  pool.rebuildMap();
}

/**
 * Apply what a saved patch changed (the API's `canvas`: `{removed, nodes, edges}`) to the
 * drawing, in place: the saved links after a removed one take their new ids (`moves`), the
 * elements the server names otherwise (`created`: new ones, renamed nodes) and those it no
 * longer has go, then the new and changed elements are drawn as the server draws them. Run
 * inside `cy.batch`.
 * @param {Record<string, any>} cy
 * @param {{removed?: string[], nodes?: Record<string, any>[], edges?: Record<string, any>[]}} changes
 * @param {{moves: Map<string, string>, created: string[]}} sent
 * @returns {{renumbered: number, removed: number, added: number, changed: number}}
 */
export function applyViewChanges(cy, changes, { moves, created }) {
  const moving = cy.collection([...moves.keys()].map((id) => cy.getElementById(id)).filter((e) => e.nonempty()));
  renumber(cy, moving, moves);
  const gone = cy.collection([...created, ...(changes.removed ?? [])].map((id) => cy.getElementById(id)).filter((e) => e.nonempty()));
  gone.remove();
  const add = [];
  let changed = 0;
  const nodes = (changes.nodes ?? []).map(prepareNode);
  const newNodes = nodes.filter((want) => cy.getElementById(want.data.id).empty());
  cy.add(newNodes);
  const fresh = new Set(newNodes.map((want) => want.data.id));
  for (const want of [...nodes.filter((n) => !fresh.has(n.data.id)), ...(changes.edges ?? []).map(prepareEdge)]) {
    const ele = cy.getElementById(want.data.id);
    if (ele.empty()) add.push(want);
    else if (updateElement(ele, want)) changed += 1;
  }
  cy.add(add);
  return { renumbered: moving.length, removed: gone.length, added: newNodes.length + add.length, changed };
}

/**
 * The views of a canvas.
 * @param {{doc: Document, win: Window, root: HTMLElement, $: Function, api: Record<string, any>, state: Record<string, any>,
 *   cy: Record<string, any>, ur: Record<string, any>, ec: Record<string, any>, setStatus: Function, isDirty: () => boolean}} canvas
 * @param {{afterViewChange: () => void, clearProblems: () => void, anyOverlay: () => boolean,
 *   applyOverlays: () => void, openingView: () => boolean, renderFindNames: () => void, declutter: () => void,
 *   applyLayers: () => void}} hooks
 */
export function createViews({ doc, win, root, $, api, state, cy, ur, ec, setStatus, isDirty }, hooks) {
  function runLayout(needsLayout, fit) {
    return new Promise((resolve) => {
      const options = needsLayout
        ? { name: "grid", fit: false, avoidOverlap: true, nodeDimensionsIncludeLabels: true }
        : { name: "preset", fit: false };
      const layout = cy.layout(options);
      layout.one("layoutstop", () => resolve(fit ? hooks.openingView() : false));
      layout.run();
    });
  }

  /**
   * Replace the drawing (and clear undo history). `inPlace` (the same view again, e.g. the
   * revision just saved): change only the elements that differ, keep the viewport, no layout.
   * @returns {Promise<boolean>} whether the view opened at the left end of a wide drawing
   */
  async function showElements(elements, { fit = true, inPlace = false } = {}) {
    const nodes = (elements?.nodes ?? []).map(prepareNode);
    const edges = (elements?.edges ?? []).map(prepareEdge);
    const large = nodes.length + edges.length > LARGE_VIEW;
    let wide = false;
    state.built = null; // another drawing: its edit document is built again
    state.saved = null; // and what it is as saved comes with its edit extras (loadEditExtras)
    delete root.dataset.editBase;
    if (inPlace && state.largeStyle === large && cy.elements().nonempty()) {
      if (ec.expandableNodes().nonempty()) {
        ec.expandAllEdges();
        ec.expandAll(COLLAPSE_OPTIONS);
      }
      cy.batch(() => updateElements(cy, nodes, edges));
    } else {
      cy.startBatch();
      cy.elements().remove();
      cy.style(canvasStyle({ large }));
      state.largeStyle = large;
      cy.add([...nodes, ...edges]);
      cy.endBatch();
      const needsLayout = nodes.some((n) => !n.position && !cy.getElementById(n.data.id).isParent());
      wide = await runLayout(needsLayout, fit);
      hooks.declutter(); // labels apart before the view is shown as ready
    }
    ur.reset();
    state.tracker.reset();
    state.pasteCount = 0;
    state.edgeSeq = 0;
    hooks.renderFindNames();
    return wide;
  }

  function scopeLabel(scope) {
    const known = state.scopes.find((s) => s.id === scope)?.label;
    if (known) return known;
    const [kind, n] = String(scope).split(":");
    return { su: `SU ${n}`, pod: `Pod ${n}`, core: "Spines and cores", all: "Whole fabric" }[kind] ?? scope;
  }

  /**
   * Load and show a view of the design (a blank drawing when there is no design yet).
   * @returns {Promise<boolean>} whether it loaded
   */
  async function loadView(view, scope, { fit = true, revision = state.revision, quiet = false, inPlace = false } = {}) {
    if (state.designId === null) {
      state.view = "detail";
      state.scope = "all";
      await showElements({ nodes: [], edges: [] });
      hooks.afterViewChange();
      setStatus("A blank canvas: add devices from the palette, then link them.");
      return true;
    }
    state.loading = true;
    root.setAttribute("aria-busy", "true");
    if (!quiet) setStatus("Loading…");
    const asked = view === "overview" ? { view } : { view, scope };
    const asking = win.performance.now();
    const answer = await api.get(urls.canvas(state.designId, revision, { ...asked, plane: state.plane }));
    const answered = win.performance.now();
    state.loading = false;
    root.removeAttribute("aria-busy");
    if (!answer.ok) {
      const data = answer.data ?? {};
      const detail = data.detail ?? data.problems?.[0]?.message ?? data.plane?.[0] ?? data.scope?.[0] ?? `error ${answer.status}`;
      setStatus(`Could not load this view: ${detail}`, "bad");
      return false;
    }
    const data = answer.data;
    state.revision = data.revision ?? revision;
    state.view = data.view === "overview" || view === "overview" ? "overview" : "detail";
    state.scope = state.view === "overview" ? "" : scope;
    state.scopes = data.scopes ?? state.scopes;
    state.planes = data.planes ?? 1;
    state.plane = planeValue(data.plane, state.planes);
    state.notes = data.notes ?? [];
    state.networks = data.networks ?? [];
    state.counts = data.counts ?? null;
    hooks.clearProblems();
    const wide = await showElements(data.elements, { fit, inPlace });
    const drawn = win.performance.now();
    hooks.afterViewChange();
    // How long the last view took: the API's answer, drawing it, and the panels after it (ms).
    state.viewTimings = { fetch_ms: answered - asking, draw_ms: drawn - answered, panels_ms: win.performance.now() - drawn };
    const where = (state.view === "overview" ? "Overview" : scopeLabel(state.scope)) + (state.plane ? `, plane ${state.plane}` : "");
    const count = cy.elements().length.toLocaleString("en-US");
    const notes = state.notes.map((note) => (typeof note === "string" ? note : note.message)).join(" ");
    const left = wide ? "Showing part of the view at a readable size: press F to fit everything." : "";
    setStatus(`${where}: ${count} elements, revision ${state.revision}. ${state.reason} ${notes} ${left}`.replace(/\s+/g, " ").trim());
    const params = new URLSearchParams(win.location.search);
    params.set("view", state.view);
    if (state.scope) params.set("scope", state.scope);
    else params.delete("scope");
    if (state.plane) params.set("plane", String(state.plane));
    else params.delete("plane");
    win.history.replaceState(win.history.state, "", `${win.location.pathname}?${params}`);
    if (hooks.anyOverlay()) hooks.applyOverlays();
    state.extras = state.editable ? loadEditExtras() : null;
    if (!state.scopes.length) loadScopes();
    return true;
  }

  /** Structure of the saved topology (plane, SU, rail, group, rack, RU) kept through edits,
   * and the saved entries a save's patch is made against (patch.js). */
  async function loadEditExtras() {
    const revision = state.revision;
    const answer = await api.get(urls.revisionTopology(state.designId, revision));
    if (!answer.ok || state.revision !== revision) return;
    state.saved = { ...savedEntries(answer.data), revision };
    root.dataset.editBase = String(revision); // a save sends what changed since (patch.js)
    cy.batch(() => {
      for (const node of answer.data.nodes ?? []) {
        const extra = {};
        for (const key of EDIT_EXTRA_KEYS) if (node[key] !== null && node[key] !== undefined) extra[key] = node[key];
        if (Object.keys(extra).length) cy.getElementById(`node:${node.name}`).data("edit_extra", extra);
      }
    });
    state.built = null;
  }

  /**
   * Show the revision a patch was saved as, in place (the drawing is the whole fabric, with
   * the edit drawn): only the elements the server's answer names change (`changes`, the API's
   * `canvas`; applyViewChanges), the saved links after a removed one are renumbered, and the
   * saved entries follow. Clears the undo history, as loading a view does.
   * @param {{removed?: string[], nodes?: Record<string, any>[], edges?: Record<string, any>[]}} changes
   * @param {{patch: Record<string, any[]>, created: string[]}} sent what editPatch made
   * @param {number} revision
   */
  function showChanges(changes, sent, revision) {
    const drawing = win.performance.now();
    const moves = linkRenumbering(state.saved.linkCount, sent.patch.links_removed);
    const saved = { ...entriesAfter(state.saved, sent.patch), revision };
    const nameOf = (id) => nodeName(cy.getElementById(id).data());
    const setNode = (node) => {
      if (node.nonempty() && node.data("kind") === "device") {
        saved.nodes.set(node.id(), { name: nodeName(node.data()), key: nodeKey(nodeEntry(node.data(), node.position())) });
      }
    };
    const setLink = (edge) => {
      if (edge.nonempty() && edge.data("kind") === "link") {
        saved.links.set(edge.id(), linkKey(linkEntry(edge.data(), nameOf(edge.data("source")), nameOf(edge.data("target")))));
      }
    };
    let counts;
    cy.batch(() => {
      counts = applyViewChanges(cy, changes, { moves, created: sent.created });
      for (const node of sent.patch.nodes_set) {
        const extra = {};
        for (const key of EDIT_EXTRA_KEYS) if (node[key] !== null && node[key] !== undefined) extra[key] = node[key];
        const ele = cy.getElementById(`node:${node.name}`);
        if (ele.nonempty() && Object.keys(extra).length) ele.data("edit_extra", extra);
      }
    });
    for (const node of [...(changes.nodes ?? []), ...sent.patch.nodes_set.map((n) => ({ data: { id: `node:${n.name}` } }))]) {
      setNode(cy.getElementById(node.data.id));
    }
    for (const edge of changes.edges ?? []) setLink(cy.getElementById(edge.data.id));
    for (const { index } of sent.patch.links_changed) setLink(cy.getElementById(moves.get(`link:${index}`) ?? `link:${index}`));
    const first = saved.linkCount - sent.patch.links_added.length;
    sent.patch.links_added.forEach((_, j) => setLink(cy.getElementById(`link:${first + j}`)));
    state.saved = saved;
    root.dataset.editBase = String(revision);
    state.revision = revision;
    state.built = null;
    state.overlays = null;
    ur.reset();
    state.tracker.reset();
    state.pasteCount = 0;
    state.edgeSeq = 0;
    hooks.renderFindNames();
    if (state.hiddenLayers?.size) hooks.applyLayers();
    if (hooks.anyOverlay()) hooks.applyOverlays();
    state.viewTimings = { draw_ms: win.performance.now() - drawing, ...counts };
  }

  /** The scopes to offer, from the overview, when the design opened in another view. */
  async function loadScopes() {
    const answer = await api.get(urls.canvas(state.designId, state.revision, { view: "overview" }));
    if (!answer.ok || !answer.data.scopes) return;
    state.scopes = answer.data.scopes;
    renderScopes();
    renderCrumbs();
  }

  function renderScopes() {
    const select = $("scope");
    select.replaceChildren();
    if (state.designId === null) {
      select.append(h(doc, "option", { value: "all", text: "All (new drawing)" }));
      select.disabled = true;
      return;
    }
    select.disabled = false;
    select.append(h(doc, "option", { value: "overview", text: "Overview" }));
    const choices = scopeChoices(state.scopes);
    if (!choices.some((c) => c.id === state.scope) && state.view === "detail") {
      choices.push({ id: state.scope, label: scopeLabel(state.scope), disabled: false });
    }
    for (const choice of choices) {
      select.append(h(doc, "option", { value: choice.id, text: choice.label, disabled: choice.disabled }));
    }
    select.value = state.view === "overview" ? "overview" : state.scope;
  }

  /** The plane picker: shown for designs of more than one plane. */
  function renderPlanes() {
    const choices = state.designId === null ? [] : planeChoices(state.planes);
    $("plane-group").hidden = choices.length === 0;
    const select = $("plane");
    select.replaceChildren(...choices.map((choice) => h(doc, "option", { value: choice.value, text: choice.label })));
    select.value = state.plane ? String(state.plane) : "";
  }

  function renderCrumbs() {
    const crumbs = $("crumbs");
    crumbs.replaceChildren();
    if (state.designId === null) return;
    const list = h(doc, "ol");
    if (state.view === "overview") {
      list.append(h(doc, "li", { "aria-current": "page", text: "Overview" }));
    } else {
      list.append(h(doc, "li", {}, h(doc, "button", { type: "button", class: "linklike", "data-c": "crumb-overview", text: "Overview", onclick: () => changeView("overview", "") })));
      list.append(h(doc, "li", { "aria-current": "page", text: scopeLabel(state.scope) }));
    }
    crumbs.append(list);
  }

  /** Go to another view, asking first when that would drop unsaved changes. */
  async function changeView(view, scope) {
    if (isDirty() && !win.confirm("Leave this view? Your unsaved changes will be lost.")) {
      renderScopes();
      return;
    }
    await loadView(view, scope);
  }

  $("plane").addEventListener("change", async (event) => {
    if (isDirty() && !win.confirm("Leave this view? Your unsaved changes will be lost.")) {
      renderPlanes();
      return;
    }
    const previous = state.plane;
    state.plane = planeValue(event.target.value, state.planes);
    if (!(await loadView(state.view, state.scope))) {
      state.plane = previous;
      renderPlanes();
    }
  });
  $("scope").addEventListener("change", (event) => {
    const value = event.target.value;
    changeView(value === "overview" ? "overview" : "detail", value === "overview" ? "" : value);
  });
  // Drill down from an aggregate of the overview to its scope.
  cy.on("dbltap", "node[kind = 'aggregate']", (event) => {
    const scope = event.target.data("scope");
    if (scope) changeView("detail", scope);
  });

  return { loadView, showChanges, changeView, scopeLabel, renderScopes, renderPlanes, renderCrumbs };
}
