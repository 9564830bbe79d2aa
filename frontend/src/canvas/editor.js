// The canvas page: a cytoscape drawing of a design with a device palette, link dialog,
// inspector, views (overview, scopes, all), overlays, undo/redo, saving and export.
// Rules live in the pure modules next to this one; this file wires them to the DOM.

import { createApi, urls } from "./api.js";
import { budgetProblem, editability, initialView, scopeChoices, summaryElements } from "./budget.js";
import {
  SWITCH_ROLES,
  buildEditDocument,
  freeNodeId,
  linkLabel,
  nameProblem,
  nextName,
  nodeName,
  orientLink,
  pasteElements,
  portChoices,
  resolveProblemIds,
  tierOf,
  tierProblem,
  usedPorts,
} from "./document.js";
import { POWER_LEVELS, formatPower, heatColor, heatLegend, rackPower } from "./heat.js";
import { createSaveTracker, inversePatch } from "./history.js";
import { missingOverlays, overlaySourceLabel } from "./overlays.js";
import { eventForResponse, initialSaveState, saveAction, saveReducer } from "./save.js";
import { canvasStyle } from "./style.js";

const LARGE_VIEW = 1500; // elements: cheaper styles (straight edges) above this
const MAX_FIT_ZOOM = 1.6;
const COLLAPSE_OPTIONS = { layoutBy: null, fisheye: false, animate: false, undoable: false };
const EDIT_EXTRA_KEYS = ["plane", "su", "rail", "group", "rack", "ru"];

function formatBandwidth(gbps) {
  if (gbps === null || gbps === undefined || gbps === "") return "—";
  const n = Number(gbps);
  if (n >= 1000) return `${(n / 1000).toLocaleString("en-US", { maximumFractionDigits: 1 })} Tb/s`;
  return `${n} Gb/s`;
}

function number(value) {
  if (value === null || value === undefined || value === "") return "—";
  return typeof value === "number" ? value.toLocaleString("en-US") : String(value);
}

function h(doc, tag, attrs = {}, ...children) {
  const el = doc.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "text") el.textContent = value;
    else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) if (child !== null && child !== undefined) el.append(child);
  return el;
}

/**
 * Start the canvas on a page with `[data-canvas]` (the design canvas page).
 * @param {Document} doc
 * @param {{cytoscape: Function, win?: Window, fetchFn?: Function}} deps
 */
export function startCanvas(doc, { cytoscape, win = window, fetchFn } = {}) {
  const root = doc.querySelector("[data-canvas]");
  if (!root) return null;
  const config = JSON.parse(doc.getElementById("canvas-config")?.textContent || "{}");
  const $ = (name) => root.querySelector(`[data-c="${name}"]`);
  const api = createApi({ csrfToken: config.csrf_token ?? "", ...(fetchFn ? { fetchFn } : {}) });

  const state = {
    designId: config.design ?? null,
    revision: config.revision ?? null,
    canWrite: config.can_write !== false,
    view: "detail",
    scope: "all",
    scopes: [],
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
    extras: null,
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
  const eh = cy.edgehandles({
    canConnect: (source, target) =>
      state.editable &&
      !source.same(target) &&
      source.data("kind") === "device" &&
      target.data("kind") === "device",
    edgeParams: () => ({ data: { kind: "pending" } }),
    hoverDelay: 100,
    snap: true,
    snapThreshold: 20,
    noEdgeEventsInDraw: true,
    disableBrowserGestures: true,
  });
  let drawMode = false;
  // Cytoscape caches where its container is on screen; panels above it (conflict, status)
  // move it, so tell cytoscape whenever the page's size changes.
  if (win.ResizeObserver) new win.ResizeObserver(() => cy.resize()).observe(root);

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
    button.disabled = !action || (action === "create" && cy.nodes("[kind = 'device']").empty());
    button.textContent = save.status === "saving" ? "Saving…" : "Save";
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

  // --- elements and views --------------------------------------------------------------------
  function prepareNode(node) {
    const data = { ...node.data };
    if (data.kind === "aggregate") {
      const models = Object.keys(data.models ?? {}).join(", ") || data.model || "";
      data.display = models ? `${data.label}\n${models}` : data.label;
    }
    if (data.kind === "group") data.collapsedLabel = data.label;
    if (data.kind === "device" && data.name === undefined) data.name = nodeName(data);
    return { group: "nodes", data, position: node.position ? { ...node.position } : undefined, classes: node.classes };
  }

  function prepareEdge(edge) {
    const data = { ...edge.data };
    if (data.kind === "bundle") {
      const count = data.label || `${number(data.links)} links`;
      data.label = data.bandwidth_gbps ? `${count} · ${formatBandwidth(data.bandwidth_gbps)}` : count;
    }
    if (data.kind === "link" && data.tier === undefined) data.tier = null;
    return { group: "edges", data, classes: edge.classes };
  }

  function countEditable() {
    return cy.nodes("[kind = 'device']").length + cy.edges("[kind = 'link']").length;
  }

  function runLayout(needsLayout, fit) {
    return new Promise((resolve) => {
      const options = needsLayout
        ? { name: "grid", fit: false, avoidOverlap: true, nodeDimensionsIncludeLabels: true }
        : { name: "preset", fit: false };
      const layout = cy.layout(options);
      layout.one("layoutstop", () => resolve(fit ? openingView() : false));
      layout.run();
    });
  }

  /**
   * The first viewport of a view: everything when that is readable; a very wide view (an
   * overview of many SUs) opens at its left end, zoomed so its tiers can be read (F fits all).
   */
  function openingView() {
    const box = cy.elements().boundingBox();
    const fitZoom = box.w && box.h ? Math.min((cy.width() - 60) / box.w, (cy.height() - 60) / box.h) : 1;
    const readable = box.h ? Math.min(1, (cy.height() - 60) / box.h) : 1;
    if (fitZoom >= 0.3 || readable < fitZoom * 2) {
      fitView();
      return false;
    }
    cy.zoom(readable);
    cy.pan({ x: 30 - box.x1 * readable, y: (cy.height() - box.h * readable) / 2 - box.y1 * readable });
    return true;
  }

  /** Fit the drawing, but do not blow a handful of devices up to giant size. */
  function fitView(eles = undefined) {
    cy.fit(eles, 30);
    if (cy.zoom() > MAX_FIT_ZOOM) {
      cy.zoom(MAX_FIT_ZOOM);
      cy.center(eles);
    }
  }

  async function showElements(elements, { fit = true } = {}) {
    const nodes = (elements?.nodes ?? []).map(prepareNode);
    const edges = (elements?.edges ?? []).map(prepareEdge);
    const large = nodes.length + edges.length > LARGE_VIEW;
    cy.startBatch();
    cy.elements().remove();
    cy.style(canvasStyle({ large }));
    cy.add([...nodes, ...edges]);
    cy.endBatch();
    const needsLayout = nodes.some((n) => !n.position && !cy.getElementById(n.data.id).isParent());
    const wide = await runLayout(needsLayout, fit);
    ur.reset();
    state.tracker.reset();
    state.pasteCount = 0;
    state.edgeSeq = 0;
    renderFindNames();
    return wide;
  }

  function scopeLabel(scope) {
    const known = state.scopes.find((s) => s.id === scope)?.label;
    if (known) return known;
    const [kind, n] = String(scope).split(":");
    return { su: `SU ${n}`, pod: `Pod ${n}`, core: "Spines and cores", all: "Whole fabric" }[kind] ?? scope;
  }

  async function loadView(view, scope, { fit = true, revision = state.revision, quiet = false } = {}) {
    if (state.designId === null) {
      state.view = "detail";
      state.scope = "all";
      await showElements({ nodes: [], edges: [] });
      afterViewChange();
      setStatus("A blank canvas: add devices from the palette, then link them.");
      return true;
    }
    state.loading = true;
    root.setAttribute("aria-busy", "true");
    if (!quiet) setStatus("Loading…");
    const answer = await api.get(urls.canvas(state.designId, revision, view === "overview" ? { view } : { view, scope }));
    state.loading = false;
    root.removeAttribute("aria-busy");
    if (!answer.ok) {
      const detail = answer.data?.detail ?? answer.data?.problems?.[0]?.message ?? `error ${answer.status}`;
      setStatus(`Could not load this view: ${detail}`, "bad");
      return false;
    }
    const data = answer.data;
    state.revision = data.revision ?? revision;
    state.view = data.view === "overview" || view === "overview" ? "overview" : "detail";
    state.scope = state.view === "overview" ? "" : scope;
    state.scopes = data.scopes ?? state.scopes;
    state.notes = data.notes ?? [];
    clearProblems();
    const wide = await showElements(data.elements, { fit });
    afterViewChange();
    const where = state.view === "overview" ? "Overview" : scopeLabel(state.scope);
    const count = cy.elements().length.toLocaleString("en-US");
    const notes = state.notes.map((note) => (typeof note === "string" ? note : note.message)).join(" ");
    const left = wide ? "Showing the left end of a wide view: press F to fit everything." : "";
    setStatus(`${where}: ${count} elements, revision ${state.revision}. ${state.reason} ${notes} ${left}`.replace(/\s+/g, " ").trim());
    const params = new URLSearchParams(win.location.search);
    params.set("view", state.view);
    if (state.scope) params.set("scope", state.scope);
    else params.delete("scope");
    win.history.replaceState(win.history.state, "", `${win.location.pathname}?${params}`);
    if (anyOverlay()) applyOverlays();
    state.extras = state.editable ? loadEditExtras() : null;
    if (!state.scopes.length) loadScopes();
    return true;
  }

  /** Structure of the saved topology (plane, SU, rail, group, rack, RU) kept through edits. */
  async function loadEditExtras() {
    const answer = await api.get(urls.revisionTopology(state.designId, state.revision));
    if (!answer.ok) return;
    cy.batch(() => {
      for (const node of answer.data.nodes ?? []) {
        const extra = {};
        for (const key of EDIT_EXTRA_KEYS) if (node[key] !== null && node[key] !== undefined) extra[key] = node[key];
        if (Object.keys(extra).length) cy.getElementById(`node:${node.name}`).data("edit_extra", extra);
      }
    });
  }

  /** The scopes to offer, from the overview, when the design opened in another view. */
  async function loadScopes() {
    const answer = await api.get(urls.canvas(state.designId, state.revision, { view: "overview" }));
    if (!answer.ok || !answer.data.scopes) return;
    state.scopes = answer.data.scopes;
    renderScopes();
    renderCrumbs();
  }

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
          });
    state.editable = editable;
    state.reason = reason;
    root.dataset.editable = editable ? "true" : "false";
    root.dataset.view = state.view;
    root.dataset.scope = state.scope;
    cy.autoungrabify(!editable);
    if (!editable && drawMode) setDrawMode(false);
    for (const name of ["draw", "delete", "copy", "paste"]) $(name).disabled = !editable;
    $("palette").dataset.disabled = editable ? "false" : "true";
    $("palette-note").textContent = editable
      ? "Click a device to add it, or drag it onto the canvas."
      : reason || "This view is read-only.";
    for (const button of root.querySelectorAll("[data-palette-item]")) button.disabled = !editable;
    const groups = cy.nodes("[kind = 'group']").length > 0 || cy.nodes(":parent").length > 0;
    $("collapse-all").disabled = !groups;
    $("expand-all").disabled = !groups;
    for (const name of ["overlay-problems", "overlay-power", "overlay-util"]) $(name).disabled = state.designId === null;
    renderScopes();
    renderCrumbs();
    renderInspector();
    renderSave();
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

  async function changeView(view, scope) {
    if (isDirty() && !win.confirm("Leave this view? Your unsaved changes will be lost.")) {
      renderScopes();
      return;
    }
    await loadView(view, scope);
  }

  // --- palette --------------------------------------------------------------------------------
  function catalogEntry(row, category) {
    const ports = category === "server" ? row.compute_port_count : row.port_count;
    return {
      slug: row.slug,
      name: row.name,
      category,
      ports: ports ?? null,
      speed_gbps: row.port_speed_gbps ?? null,
      rack_units: row.rack_units ?? null,
      power_typical_w: row.power_typical_w ?? null,
      power_max_w: row.power_max_w ?? null,
      gpus: row.gpus ?? null,
    };
  }

  let paletteSequence = 0;
  async function loadPalette(search = "") {
    const mine = ++paletteSequence;
    const lists = $("palette-lists");
    const answers = await Promise.all([
      api.get(urls.catalog("server", search)),
      api.get(urls.catalog("switch", search)),
    ]);
    if (mine !== paletteSequence) return;
    lists.replaceChildren();
    [["server", "Servers"], ["switch", "Switches"]].forEach(([category, title], i) => {
      const answer = answers[i];
      const rows = answer.ok ? answer.data.results ?? answer.data : [];
      const section = h(doc, "section", { class: "palette-section" }, h(doc, "h3", { text: title }));
      const list = h(doc, "ul", { class: "palette-list" });
      for (const row of rows) {
        const entry = catalogEntry(row, category);
        state.catalog.set(entry.slug, entry);
        const detail = entry.ports ? `${entry.ports} × ${entry.speed_gbps ?? "?"}G` : "ports unknown";
        const button = h(
          doc,
          "button",
          {
            type: "button",
            class: "palette-item",
            draggable: "true",
            "data-palette-item": entry.slug,
            "aria-label": `Add ${entry.slug} (${entry.name}, ${detail})`,
            disabled: !state.editable,
            onclick: () => addDevice(entry),
            ondragstart: (event) => {
              event.dataTransfer.setData("application/x-fabric-device", entry.slug);
              event.dataTransfer.setData("text/plain", entry.slug);
              event.dataTransfer.effectAllowed = "copy";
            },
          },
          h(doc, "strong", { text: entry.slug }),
          h(doc, "span", { class: "help", text: `${entry.name} · ${detail}` }),
        );
        list.append(h(doc, "li", {}, button));
      }
      if (!rows.length) list.append(h(doc, "li", { class: "empty", text: answer.ok ? "None found." : "Could not load the catalog." }));
      section.append(list);
      lists.append(section);
    });
  }

  async function modelInfo(slug) {
    if (!slug) return null;
    if (state.catalog.has(slug)) return state.catalog.get(slug);
    for (const category of ["switch", "server"]) {
      const answer = await api.get(urls.catalog(category, slug, 20));
      const rows = answer.ok ? answer.data.results ?? [] : [];
      const row = rows.find((r) => r.slug === slug);
      if (row) {
        const entry = catalogEntry(row, category);
        state.catalog.set(slug, entry);
        return entry;
      }
    }
    state.catalog.set(slug, null);
    return null;
  }

  function deviceNames() {
    return cy.nodes("[kind = 'device']").map((n) => nodeName(n.data()));
  }

  function idExists(id) {
    return cy.getElementById(id).nonempty();
  }

  function freeSpot(start) {
    const spot = { ...start };
    const near = () => cy.nodes().some((n) => !n.isParent() && Math.abs(n.position("x") - spot.x) < 50 && Math.abs(n.position("y") - spot.y) < 40);
    for (let i = 0; i < 200 && near(); i += 1) {
      spot.x += 60;
      if (i % 10 === 9) {
        spot.x = start.x;
        spot.y += 60;
      }
    }
    return spot;
  }

  function viewportCenter() {
    const pan = cy.pan();
    const zoom = cy.zoom();
    return { x: (cy.width() / 2 - pan.x) / zoom, y: (cy.height() / 2 - pan.y) / zoom };
  }

  function refuse(message) {
    setStatus(message, "bad");
  }

  function addDevice(entry, position = null) {
    if (!state.editable) return refuse(state.reason || "This view is read-only.");
    const problem = budgetProblem(countEditable(), 1);
    if (problem) return refuse(problem);
    const role = entry.category === "server" ? "server" : $("palette-role").value;
    const name = nextName(role, deviceNames());
    const id = freeNodeId(name, idExists);
    const data = {
      id,
      name,
      label: name,
      kind: "device",
      role,
      model: entry.slug,
      ports: entry.ports ?? 0,
      speed_gbps: entry.speed_gbps,
    };
    const at = position ?? freeSpot(viewportCenter());
    const added = ur.do("add", { group: "nodes", data, position: at });
    cy.$(":selected").unselect();
    added.select();
    setStatus(`Added ${name} (${entry.slug}).`, "ok");
  }

  container.addEventListener("dragover", (event) => {
    if (!state.editable) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "copy";
  });
  container.addEventListener("drop", (event) => {
    event.preventDefault();
    const slug = event.dataTransfer.getData("application/x-fabric-device") || event.dataTransfer.getData("text/plain");
    const entry = state.catalog.get(slug);
    if (!entry) return;
    const box = container.getBoundingClientRect();
    const pan = cy.pan();
    const zoom = cy.zoom();
    addDevice(entry, { x: (event.clientX - box.left - pan.x) / zoom, y: (event.clientY - box.top - pan.y) / zoom });
  });

  // --- links ----------------------------------------------------------------------------------
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

  const dialog = $("link-dialog");
  let dialogContext = null;

  function optionLabel(option) {
    const parts = [option.a_part, option.cable, option.b_part].filter(Boolean);
    const unique = parts.filter((p, i) => parts.indexOf(p) === i || i === 2);
    const facts = [];
    if (option.reach_m !== null && option.reach_m !== undefined) facts.push(`reach ${option.reach_m} m`);
    if (option.price !== null && option.price !== undefined) facts.push(`$${Number(option.price).toLocaleString("en-US")}`);
    if (option.power_w !== null && option.power_w !== undefined) facts.push(`${option.power_w} W`);
    const what = option.label || unique.join(" + ");
    return `${option.kind ?? "media"}: ${what}${facts.length ? ` (${facts.join(", ")})` : ""}`;
  }

  let optionsSequence = 0;
  async function queryLinkOptions() {
    const ctx = dialogContext;
    if (!ctx) return;
    const mine = ++optionsSequence;
    const status = $("link-media-status");
    const box = $("link-options");
    const refusal = $("link-refusal");
    $("link-ok").disabled = true;
    status.textContent = "Looking up compatible media…";
    box.replaceChildren();
    refusal.hidden = true;
    refusal.replaceChildren();
    const speed = Number($("link-speed").value) || null;
    const length = $("link-length").value;
    const answer = await api.get(urls.linkOptions({ a: ctx.a.data("model"), b: ctx.b.data("model"), speed_gbps: speed, length_m: length }));
    if (mine !== optionsSequence || dialogContext !== ctx) return;
    const data = answer.data ?? {};
    ctx.options = answer.ok ? data.options ?? [] : [];
    ctx.speed = data.speed_gbps ?? speed;
    if (!ctx.options.length) {
      let reasons = data.refusal ?? [];
      if (!answer.ok && !reasons.length) {
        reasons = data.detail ? [data.detail] : Object.entries(data).map(([k, v]) => `${k}: ${[].concat(v).join(" ")}`);
      }
      if (!reasons.length) reasons = ["The catalog has no media that fits both ends."];
      status.textContent = "No compatible media: the link cannot be made.";
      for (const reason of reasons) refusal.append(h(doc, "li", { text: typeof reason === "string" ? reason : reason.message ?? JSON.stringify(reason) }));
      refusal.hidden = false;
      return;
    }
    const at = ctx.speed ? ` at ${ctx.speed} Gb/s` : "";
    status.textContent = `${ctx.options.length} compatible choice${ctx.options.length === 1 ? "" : "s"}${at}:`;
    const current = ctx.edge?.data();
    let checked = 0;
    ctx.options.forEach((option, i) => {
      if (current && option.a_part === current.a_part && option.b_part === current.b_part && option.cable === current.cable) checked = i;
    });
    ctx.options.forEach((option, i) => {
      const input = h(doc, "input", { type: "radio", name: "link-media", value: String(i), checked: i === checked });
      box.append(h(doc, "label", { class: "option" }, input, ` ${optionLabel(option)}`));
    });
    $("link-ok").disabled = false;
  }

  function fillPorts(select, ports, current) {
    select.replaceChildren();
    for (const port of ports) select.append(h(doc, "option", { value: String(port), text: `port ${port}` }));
    if (current && ports.includes(Number(current))) select.value = String(current);
  }

  let optionsTimer = null;
  function scheduleOptions() {
    clearTimeout(optionsTimer);
    optionsTimer = setTimeout(queryLinkOptions, 300);
  }
  $("link-speed").addEventListener("input", scheduleOptions);
  $("link-length").addEventListener("input", scheduleOptions);

  async function openLinkDialog({ source = null, target = null, edge = null }) {
    if (!state.editable) return;
    let a;
    let b;
    if (edge) {
      a = edge.source();
      b = edge.target();
    } else {
      const budget = budgetProblem(countEditable(), 1);
      if (budget) return refuse(budget);
      const ends = orientLink({ id: source.id(), role: source.data("role") }, { id: target.id(), role: target.data("role") });
      a = cy.getElementById(ends.a.id);
      b = cy.getElementById(ends.b.id);
    }
    const [aInfo, bInfo] = await Promise.all([modelInfo(a.data("model")), modelInfo(b.data("model"))]);
    const aData = { ...a.data(), ports: a.data("ports") || aInfo?.ports || 0, label: nodeName(a.data()) };
    const bData = { ...b.data(), ports: b.data("ports") || bInfo?.ports || 0, label: nodeName(b.data()) };
    const current = edge?.data() ?? {};
    const tiers = tierProblem({ id: a.id(), role: a.data("role") }, { id: b.id(), role: b.data("role") });
    const choice = portChoices(aData, bData, linkEdgeData(), edge ? { a_port: current.a_port, b_port: current.b_port } : {});
    dialogContext = { a, b, edge, options: [] };
    $("link-title").textContent = edge ? `Link ${aData.label} ↔ ${bData.label}` : `New link: ${aData.label} ↔ ${bData.label}`;
    $("link-a-label").textContent = `Port on ${aData.label} (${choice.a.length} of ${aData.ports} free)`;
    $("link-b-label").textContent = `Port on ${bData.label} (${choice.b.length} of ${bData.ports} free)`;
    fillPorts($("link-a-port"), choice.a, current.a_port);
    fillPorts($("link-b-port"), choice.b, current.b_port);
    // Empty speed: the server picks the highest speed both ends run (and says which).
    $("link-speed").value = current.speed_gbps ?? "";
    $("link-speed").placeholder = "auto";
    $("link-length").value = current.length_m ?? 3;
    $("link-ok").textContent = edge ? "Change link" : "Create link";
    $("link-ok").disabled = true;
    $("link-options").replaceChildren();
    const refusal = $("link-refusal");
    refusal.replaceChildren();
    refusal.hidden = true;
    if (tiers || choice.problem) {
      $("link-media-status").textContent = "The link cannot be made.";
      refusal.append(h(doc, "li", { text: tiers || choice.problem }));
      refusal.hidden = false;
    } else {
      queryLinkOptions();
    }
    dialog.returnValue = "";
    dialog.showModal();
  }

  // The link is made on submit, before the dialog closes (its close event comes later).
  $("link-form").addEventListener("submit", (event) => {
    if (event.submitter?.value !== "ok" || !dialogContext) return;
    const ctx = dialogContext;
    dialogContext = null;
    commitLink(ctx);
  });
  dialog.addEventListener("close", () => {
    const ctx = dialogContext;
    dialogContext = null;
    clearTimeout(optionsTimer);
    if (ctx && !ctx.edge) setStatus("No link was made.");
  });

  function commitLink(ctx) {
    const picked = dialog.querySelector("input[name=link-media]:checked");
    const option = ctx.options[Number(picked?.value ?? -1)];
    if (!option) return;
    const data = {
      kind: "link",
      a_port: Number($("link-a-port").value),
      b_port: Number($("link-b-port").value),
      speed_gbps: Number($("link-speed").value) || ctx.speed || null,
      length_m: $("link-length").value === "" ? null : Number($("link-length").value),
      a_part: option.a_part ?? null,
      b_part: option.b_part ?? null,
      cable: option.cable ?? null,
      media_kind: option.kind ?? null,
      tier: tierOf(ctx.a.data("role"), ctx.b.data("role")),
    };
    data.label = linkLabel(data);
    if (ctx.edge) {
      ur.do("changeData", { id: ctx.edge.id(), data });
      setStatus(`Changed the link ${nodeName(ctx.a.data())} ↔ ${nodeName(ctx.b.data())}.`, "ok");
    } else {
      const added = ur.do("add", { group: "edges", data: { id: newEdgeId(), source: ctx.a.id(), target: ctx.b.id(), ...data } });
      cy.$(":selected").unselect();
      added.select();
      setStatus(`Linked ${nodeName(ctx.a.data())} port ${data.a_port} to ${nodeName(ctx.b.data())} port ${data.b_port} (${option.kind ?? "media"}).`, "ok");
    }
    container.focus();
  }

  cy.on("ehcomplete", (event, source, target, added) => {
    added.remove();
    openLinkDialog({ source, target });
  });

  function setDrawMode(on) {
    drawMode = on && state.editable;
    if (drawMode) eh.enableDrawMode();
    else eh.disableDrawMode();
    if (!drawMode) cy.autoungrabify(!state.editable);
    $("draw").setAttribute("aria-pressed", drawMode ? "true" : "false");
    root.dataset.draw = drawMode ? "true" : "false";
    if (drawMode) setStatus("Draw links: drag from one device to another. Press L or Escape to stop.");
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
    if (state.save.status === "problems" || state.save.status === "error") dispatch({ type: "dismiss" });
    renderSave();
    scheduleInspector();
    renderFindNames();
  }

  // --- find, zoom ------------------------------------------------------------------------------
  function renderFindNames() {
    const list = $("find-names");
    list.replaceChildren();
    const names = cy.nodes("[kind = 'device'], [kind = 'aggregate']").map((n) => String(n.data("label") ?? nodeName(n.data())));
    for (const name of names.slice(0, 2000)) list.append(h(doc, "option", { value: name }));
  }

  function findDevice(text) {
    const query = String(text ?? "").trim().toLowerCase();
    if (!query) return false;
    const lookup = () => {
      const nodes = cy.nodes().filter((n) => n.data("kind") !== "group");
      const label = (n) => String(n.data("label") ?? nodeName(n.data())).toLowerCase();
      let hits = nodes.filter((n) => label(n) === query || nodeName(n.data()).toLowerCase() === query);
      if (hits.empty()) hits = nodes.filter((n) => label(n).includes(query));
      return hits;
    };
    let hits = lookup();
    if (hits.empty() && ec.expandableNodes().nonempty()) {
      expandAll();
      hits = lookup();
    }
    if (hits.empty()) {
      setStatus(`No device “${text}” in this view.`, "bad");
      return false;
    }
    const node = hits[0];
    cy.$(":selected").not(node).unselect();
    node.select();
    focusOn(node);
    node.addClass("found");
    setTimeout(() => node.removeClass("found"), 1600);
    setStatus(`Found ${node.data("label")}${hits.length > 1 ? ` (and ${hits.length - 1} more matches)` : ""}.`, "ok");
    return true;
  }

  /** Bring elements into view: centred, zoomed in enough to read, never huge. */
  function focusOn(eles) {
    const box = eles.boundingBox();
    const fitZoom = Math.min(cy.width() / (box.w + 160), cy.height() / (box.h + 160));
    const zoom = Math.min(MAX_FIT_ZOOM, Math.max(cy.zoom(), Math.min(fitZoom, 1.2)));
    cy.animate({ center: { eles }, zoom }, { duration: 200 });
  }

  function zoomBy(factor) {
    cy.zoom({ level: cy.zoom() * factor, renderedPosition: { x: cy.width() / 2, y: cy.height() / 2 } });
  }

  function fit() {
    fitView();
  }

  // --- groups ---------------------------------------------------------------------------------
  /** Collapse every group, then merge the links between the same two nodes into one edge. */
  function collapseAll() {
    ec.collapseAll(COLLAPSE_OPTIONS);
    ec.collapseAllEdges(COLLAPSE_OPTIONS);
    cy.edges(".cy-expand-collapse-collapsed-edge").forEach((edge) => {
      const count = edge.data("collapsedEdges")?.length ?? 0;
      edge.data("label", `${count} links`);
    });
    const groups = cy.nodes(".cy-expand-collapse-collapsed-node").length;
    setStatus(`Collapsed ${groups} group${groups === 1 ? "" : "s"}.`);
    scheduleInspector();
  }

  function expandAll() {
    ec.expandAllEdges();
    ec.expandAll(COLLAPSE_OPTIONS);
    setStatus("Expanded every group.");
    scheduleInspector();
  }

  // --- inspector ------------------------------------------------------------------------------
  let inspectorFrame = null;
  function scheduleInspector() {
    if (inspectorFrame) return;
    inspectorFrame = win.requestAnimationFrame(() => {
      inspectorFrame = null;
      renderInspector();
    });
  }
  cy.on("select unselect", scheduleInspector);
  cy.on("data", (event) => {
    // Data set in the background (e.g. edit extras) must not wipe what the user is typing.
    if (event.target.selected() && !$("inspector").contains(doc.activeElement)) scheduleInspector();
  });

  function facts(list) {
    const dl = h(doc, "dl", { class: "specs compact" });
    for (const [term, value] of list) {
      if (value === null || value === undefined || value === "") continue;
      dl.append(h(doc, "dt", { text: term }), h(doc, "dd", { text: String(value) }));
    }
    return dl;
  }

  function renderInspector() {
    const panel = $("inspector");
    panel.replaceChildren();
    const selected = cy.$(":selected");
    if (selected.empty()) {
      const devices = cy.nodes("[kind = 'device']").length;
      const links = cy.edges("[kind = 'link']").length;
      const aggregates = cy.nodes("[kind = 'aggregate']").length;
      panel.append(h(doc, "p", { class: "empty", text: "Select a device or link to see its properties." }));
      panel.append(
        facts([
          ["View", state.view === "overview" ? "Overview" : scopeLabel(state.scope)],
          ["Devices", devices ? number(devices) : null],
          ["Links", links ? number(links) : null],
          ["Aggregates", aggregates ? number(aggregates) : null],
          ["Bundles", cy.edges("[kind = 'bundle']").length || null],
          ["Editing", state.editable ? "allowed" : state.reason || "read-only"],
        ]),
      );
      return;
    }
    if (selected.length > 1) {
      panel.append(h(doc, "p", { text: `${selected.nodes().length} nodes and ${selected.edges().length} edges selected.` }));
      if (state.editable) panel.append(h(doc, "button", { type: "button", class: "danger", text: "Delete selection", onclick: deleteSelection }));
      return;
    }
    const ele = selected[0];
    const data = ele.data();
    if (ele.isEdge()) return renderEdgeInspector(panel, ele, data);
    if (data.kind === "aggregate") {
      panel.append(h(doc, "h3", { text: data.label }));
      panel.append(facts([["Kind", "aggregate"], ["Role", data.role], ["Model", data.model], ["Devices", number(data.count)], ["Scope", data.scope]]));
      if (data.scope) panel.append(h(doc, "button", { type: "button", text: `Open ${data.label}`, onclick: () => changeView("detail", data.scope) }));
      return;
    }
    if (data.kind === "group" || ele.isParent() || ec.isExpandable(ele)) {
      panel.append(h(doc, "h3", { text: data.label ?? data.id }));
      const collapsed = ec.isExpandable(ele);
      const inside = collapsed ? (ec.getCollapsedChildrenRecursively(ele).nodes("[kind = 'device']").length) : ele.descendants("[kind = 'device']").length;
      panel.append(facts([["Kind", "group"], ["Devices", number(inside)], ["SU", data.su], ["Rail", data.rail], ["Rack", data.rack], ["Rack power", data.power_label]]));
      panel.append(
        h(doc, "button", {
          type: "button",
          "data-c": "group-toggle",
          text: collapsed ? "Expand group" : "Collapse group",
          onclick: () => {
            if (collapsed) ec.expand(ele, COLLAPSE_OPTIONS);
            else ec.collapse(ele, COLLAPSE_OPTIONS);
            scheduleInspector();
          },
        }),
      );
      return;
    }
    renderDeviceInspector(panel, ele, data);
  }

  function renderDeviceInspector(panel, node, data) {
    const name = nodeName(data);
    const info = state.catalog.get(data.model);
    const total = data.ports || info?.ports || 0;
    const used = state.editable ? usedPorts(node.id(), linkEdgeData()).size : data.ports_used ?? usedPorts(node.id(), linkEdgeData()).size;
    panel.append(h(doc, "h3", { text: name }));
    if (state.editable) {
      const input = h(doc, "input", { id: "inspector-name", value: name, maxlength: "100" });
      const error = h(doc, "p", { class: "error", role: "alert" });
      const rename = () => {
        const value = input.value;
        if (value === name) return;
        const others = deviceNames().filter((other) => other !== name);
        const problem = nameProblem(value, others);
        if (problem) {
          error.textContent = problem;
          input.setAttribute("aria-invalid", "true");
          return;
        }
        ur.do("changeData", { id: node.id(), data: { name: value, label: value } });
        setStatus(`Renamed ${name} to ${value}.`, "ok");
      };
      input.addEventListener("keydown", (event) => {
        if (event.key === "Enter") rename();
      });
      panel.append(
        h(doc, "label", { for: "inspector-name", text: "Name" }),
        h(doc, "div", { class: "inline" }, input, h(doc, "button", { type: "button", text: "Rename", onclick: rename })),
        error,
      );
    }
    const power = info?.power_typical_w || info?.power_max_w ? [info.power_typical_w && `${formatPower(info.power_typical_w)} typical`, info.power_max_w && `${formatPower(info.power_max_w)} max`].filter(Boolean).join(", ") : null;
    panel.append(
      facts([
        ["Model", data.model],
        ["Role", data.role],
        ["Ports used", total ? `${used} of ${total}` : null],
        ["Ports free", total ? total - used : null],
        ["Port speed", data.speed_gbps ?? info?.speed_gbps ? `${data.speed_gbps ?? info.speed_gbps} Gb/s` : null],
        ["Rack", data.rack],
        ["RU", data.ru],
        ["SU", data.su],
        ["Rail", data.rail],
        ["Plane", data.plane],
        ["Power", power],
      ]),
    );
    if (!info && data.model) modelInfo(data.model).then((found) => found && scheduleInspector());
  }

  function renderEdgeInspector(panel, edge, data) {
    const a = nodeName(edge.source().data());
    const b = nodeName(edge.target().data());
    if (data.kind === "bundle") {
      panel.append(h(doc, "h3", { text: `${a} ↔ ${b}` }));
      panel.append(facts([["Kind", "bundle"], ["Tier", data.tier], ["Links", number(data.links)], ["Bandwidth", formatBandwidth(data.bandwidth_gbps)], ["Utilization", data.utilization !== undefined ? `${Math.round(data.utilization * 100)} %` : null]]));
      return;
    }
    panel.append(h(doc, "h3", { text: `${a} ↔ ${b}` }));
    panel.append(
      facts([
        ["A end", `${a} port ${data.a_port ?? "?"}`],
        ["B end", `${b} port ${data.b_port ?? "?"}`],
        ["Tier", data.tier],
        ["Speed", data.speed_gbps ? `${data.speed_gbps} Gb/s` : null],
        ["Length", data.length_m !== null && data.length_m !== undefined ? `${data.length_m} m` : null],
        ["Media", data.media_kind],
        ["A-side part", data.a_part],
        ["B-side part", data.b_part],
        ["Cable", data.cable],
        ["Utilization", data.utilization !== undefined ? `${Math.round(data.utilization * 100)} %` : null],
      ]),
    );
    if (state.editable) {
      panel.append(h(doc, "button", { type: "button", text: "Change media…", onclick: () => openLinkDialog({ edge }) }));
    }
  }

  // --- saving ---------------------------------------------------------------------------------
  function editDocument() {
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

  async function save({ keepMine = false, confirmed = false } = {}) {
    const action = keepMine ? (state.save.status === "conflict" ? "save" : null) : saveAction(state.save, { dirty: isDirty(), editable: state.editable, designId: state.designId });
    if (!action) return;
    showStale([]);
    if (action === "save" && !keepMine && !confirmed) {
      // Ask the server what the edit makes untrue first; problems (400) come with the save.
      await state.extras;
      const built = editDocument();
      const preview = await api.post(urls.topologyPreview(state.designId), { base_revision: state.save.base, nodes: built.nodes, links: built.links });
      const stale = preview.status === 200 ? preview.data?.stale_parameters ?? [] : [];
      if (stale.length) {
        showStale(stale);
        setStatus(`Not saved yet: ${stale.length} spec parameter${stale.length === 1 ? "" : "s"} would no longer hold.`, "bad");
        return;
      }
    }
    const message = $("message").value.trim();
    let name = "";
    if (action === "create") {
      name = $("name").value.trim();
      if (!name) {
        setStatus("Name the design before saving it.", "bad");
        $("name").setAttribute("aria-invalid", "true");
        $("name").focus();
        return;
      }
      $("name").removeAttribute("aria-invalid");
    }
    dispatch(keepMine ? { type: "keepMine" } : { type: "save" });
    await state.extras;
    clearProblems();
    const built = editDocument();
    state.lastSaved = built;
    const body = { nodes: built.nodes, links: built.links };
    let answer;
    if (action === "create") {
      answer = await api.post(urls.designs(), { name, message, topology_document: body });
      if (answer.status === 201 && answer.data?.id) {
        state.designId = answer.data.id;
        state.canWrite = true;
        answer = { ...answer, data: { revision: answer.data.latest_revision ?? 1 } };
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
    } else {
      answer = await api.put(urls.topology(state.designId), { base_revision: state.save.base, message, ...body });
    }
    const event = eventForResponse(answer);
    if (event.type === "saved") {
      // Show the saved revision as the server has it (ids as the server numbers them).
      state.revision = event.revision;
      state.tracker.saved();
      state.overlays = null;
      $("message").value = "";
      await loadView("detail", "all", { fit: false, quiet: true });
      event.revision = state.revision;
    }
    dispatch(event);
    if (event.type === "problems") showProblems(event.problems, "save");
  }

  async function reloadLatest() {
    dispatch({ type: "reload" });
    const latest = state.save.latest;
    const ok = await loadView(state.view === "overview" ? "overview" : "detail", state.scope || "all", { fit: false, revision: latest });
    dispatch(ok ? { type: "reloaded", revision: state.revision } : { type: "failed", message: "Could not load the latest revision." });
  }

  // --- problems and overlays ------------------------------------------------------------------
  function clearProblems() {
    cy.elements(".problem").removeClass("problem");
    $("problems").hidden = true;
    $("problems-list").replaceChildren();
    state.problemSource = null;
  }

  function focusElements(ids) {
    const eles = cy.collection(ids.map((id) => cy.getElementById(id)).filter((e) => e.nonempty()));
    if (eles.empty()) {
      setStatus("That element is not in this view.", "bad");
      return;
    }
    cy.$(":selected").unselect();
    eles.select();
    focusOn(eles);
    container.focus();
  }

  function showProblems(problems, source) {
    clearProblems();
    state.problemSource = source;
    const list = $("problems-list");
    const mapped = problems.map((p) => ({ ...p, ids: state.lastSaved && source === "save" ? resolveProblemIds(p.element_ids ?? [], state.lastSaved) : p.element_ids ?? [] }));
    cy.batch(() => {
      for (const p of mapped) for (const id of p.ids) cy.getElementById(id).addClass("problem");
    });
    for (const p of mapped) {
      const text = `${p.severity && p.severity !== "error" ? `${p.severity}: ` : ""}${p.message}`;
      const present = p.ids.some((id) => cy.getElementById(id).nonempty());
      const item = present
        ? h(doc, "button", { type: "button", class: "linklike", text, onclick: () => focusElements(p.ids) })
        : h(doc, "span", { text });
      list.append(h(doc, "li", { class: `severity-${p.severity ?? "error"}` }, item));
    }
    if (!mapped.length) list.append(h(doc, "li", { class: "empty", text: "No problems found." }));
    $("problems").hidden = false;
  }

  function anyOverlay() {
    return ["overlay-problems", "overlay-power", "overlay-util"].some((name) => $(name).checked);
  }

  async function overlayData() {
    if (state.designId === null || !state.revision) return null;
    const from = state.overlaySource?.revision === state.revision ? state.overlaySource.from : null;
    if (state.overlays?.revision === state.revision && state.overlays.from === from) return state.overlays.data;
    setStatus("Loading overlays…");
    const answer = await api.get(urls.overlays(state.designId, state.revision, from));
    if (!answer.ok) {
      setStatus(`Could not load overlays: ${answer.data?.detail ?? answer.status}`, "bad");
      return null;
    }
    state.overlays = { revision: state.revision, from, data: answer.data };
    setStatus(`Overlays of revision ${from ?? state.revision}${isDirty() ? " (saved state, not your unsaved changes)" : ""}.`);
    return answer.data;
  }

  /** Say which ticked overlays this revision has no job for (offering an older revision's), and
   * label overlays drawn from an older revision. */
  function showOverlayNotes(data, wanted) {
    const legend = $("legend");
    const source = overlaySourceLabel(data, state.revision);
    const notes = missingOverlays(data, wanted);
    if (!source && !notes.length) return;
    const block = h(doc, "div", { class: "legend-block legend-notes", "data-testid": "overlay-notes" });
    if (source) {
      block.append(h(doc, "p", { class: "overlay-source", text: `${source} ` }, h(doc, "button", {
        type: "button", class: "small", text: `Back to revision ${state.revision}`,
        onclick: () => { state.overlaySource = null; applyOverlays(); },
      })));
    }
    for (const note of notes) {
      const item = h(doc, "p", { class: "overlay-missing", text: `${note.text} ` });
      if (note.older) {
        item.append(h(doc, "button", {
          type: "button", class: "small", text: `Show revision ${note.older}'s`,
          onclick: () => { state.overlaySource = { revision: state.revision, from: note.older }; applyOverlays(); },
        }));
      }
      block.append(item);
    }
    legend.append(block);
    legend.hidden = false;
  }

  function rackTargets(rack) {
    const key = String(rack);
    const groups = cy.nodes().filter((n) => (n.data("kind") === "group" || n.isParent() || ec.isExpandable(n)) && (String(n.data("rack")) === key || n.id() === `group:rack:${key}`));
    if (groups.nonempty()) return { eles: groups, cls: "power" };
    return { eles: cy.nodes("[kind = 'device']").filter((n) => String(n.data("rack")) === key), cls: "power-device" };
  }

  async function applyOverlays() {
    const wantProblems = $("overlay-problems").checked;
    const wantPower = $("overlay-power").checked;
    const wantUtil = $("overlay-util").checked;
    cy.batch(() => {
      cy.elements(".heat").removeClass("heat");
      cy.elements(".power, .power-device").removeClass("power power-device");
    });
    if (state.problemSource === "overlay" && !wantProblems) clearProblems();
    const legend = $("legend");
    legend.replaceChildren();
    legend.hidden = true;
    if (!wantProblems && !wantPower && !wantUtil) return;
    const data = await overlayData();
    if (!data) return;
    showOverlayNotes(data, [wantProblems && "problems", wantPower && "power", wantUtil && "util"].filter(Boolean));
    if (wantProblems && state.problemSource !== "save") showProblems(data.problems ?? [], "overlay");
    cy.batch(() => {
      if (wantPower) {
        for (const rack of data.racks ?? []) {
          const info = rackPower(rack);
          const { eles, cls } = rackTargets(rack.rack);
          eles.data({ power_color: info.color, power_label: info.label });
          eles.addClass(cls);
        }
      }
      if (wantUtil) {
        for (const [id, utilization] of Object.entries(data.links ?? {})) {
          const edge = cy.getElementById(id);
          if (edge.empty()) continue;
          edge.data({ heat: heatColor(utilization), utilization });
          edge.addClass("heat");
        }
      }
    });
    if (wantUtil) {
      const bar = h(doc, "div", { class: "legend-heat", role: "img", "aria-label": "Link utilization from 0 % (green) to 100 % (red)" });
      const stops = heatLegend(5);
      bar.style.background = `linear-gradient(to right, ${stops.map((s) => `${s.color} ${s.value * 100}%`).join(", ")})`;
      legend.append(
        h(doc, "div", { class: "legend-block" }, h(doc, "strong", { text: "Link utilization" }), bar, h(doc, "div", { class: "legend-scale" }, ...stops.map((s) => h(doc, "span", { text: s.label })))),
      );
    }
    if (wantPower) {
      const items = POWER_LEVELS.map((level) => h(doc, "li", {}, h(doc, "span", { class: "swatch", style: `background:${level.color}` }), ` ${level.label}`));
      legend.append(h(doc, "div", { class: "legend-block" }, h(doc, "strong", { text: "Rack power" }), h(doc, "ul", { class: "legend-power" }, ...items)));
    }
    legend.hidden = !legend.children.length;
  }

  // --- export ---------------------------------------------------------------------------------
  function download(blob, filename) {
    const url = URL.createObjectURL(blob);
    const link = h(doc, "a", { href: url, download: filename, hidden: true });
    doc.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 5000);
  }

  function exportBase() {
    const where = state.view === "overview" ? "overview" : (state.scope || "all").replace(/[^a-z0-9]+/gi, "-");
    return state.designId === null ? `new-fabric-${where}` : `design-${state.designId}-r${state.revision}-${where}`;
  }

  function exportPng() {
    const blob = cy.png({ output: "blob", bg: "#ffffff", full: true, scale: 2, maxWidth: 8000, maxHeight: 8000 });
    download(blob, `${exportBase()}.png`);
    setStatus(`Exported ${exportBase()}.png.`, "ok");
  }

  function exportSvg() {
    const text = cy.svg({ full: true, scale: 1, bg: "#ffffff" });
    download(new Blob([text], { type: "image/svg+xml" }), `${exportBase()}.svg`);
    setStatus(`Exported ${exportBase()}.svg.`, "ok");
  }

  // --- wiring ---------------------------------------------------------------------------------
  const on = (name, handler) => $(name).addEventListener("click", handler);
  on("save", () => save());
  on("reload", () => reloadLatest());
  on("keep", () => save({ keepMine: true }));
  on("save-anyway", () => save({ confirmed: true }));
  on("stale-cancel", () => showStale([]));
  on("draw", () => setDrawMode(!drawMode));
  on("undo", undo);
  on("redo", redo);
  on("delete", deleteSelection);
  on("copy", copySelection);
  on("paste", paste);
  on("zoom-in", () => zoomBy(1.25));
  on("zoom-out", () => zoomBy(0.8));
  on("fit", fit);
  on("collapse-all", collapseAll);
  on("expand-all", expandAll);
  on("export-png", exportPng);
  on("export-svg", exportSvg);
  for (const name of ["overlay-problems", "overlay-power", "overlay-util"]) $(name).addEventListener("change", applyOverlays);
  $("scope").addEventListener("change", (event) => {
    const value = event.target.value;
    changeView(value === "overview" ? "overview" : "detail", value === "overview" ? "" : value);
  });
  let lastFind = "";
  const find = (text) => {
    lastFind = text;
    findDevice(text);
  };
  $("find").addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      find(event.target.value);
    } else if (event.key === "Escape") {
      container.focus();
    }
  });
  // A pick from the list of names (not a blur after Enter already found it).
  $("find").addEventListener("change", (event) => {
    if (event.target.value !== lastFind) find(event.target.value);
  });
  let searchTimer = null;
  $("palette-search").addEventListener("input", (event) => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => loadPalette(event.target.value.trim()), 250);
  });
  $("name")?.addEventListener("input", renderSave);

  cy.on("dbltap", "node[kind = 'aggregate']", (event) => {
    const scope = event.target.data("scope");
    if (scope) changeView("detail", scope);
  });
  cy.on("tap", (event) => {
    if (event.target === cy) container.focus();
  });

  doc.addEventListener("keydown", (event) => {
    if (dialog.open) return;
    const target = event.target;
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
    else if (key === "f") fit();
    else if (key === "/") $("find").focus();
    else if (key === "l") setDrawMode(!drawMode);
    else if (key === "+" || key === "=") zoomBy(1.25);
    else if (key === "-") zoomBy(0.8);
    else if (key === "escape") {
      if (drawMode) setDrawMode(false);
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
    let first;
    if (params.get("view") === "overview") first = { view: "overview", scope: "" };
    else if (params.get("view") === "detail" && params.get("scope")) first = { view: "detail", scope: params.get("scope") };
    else first = initialView({ elements: summaryElements(config.summary), handDrawn: state.designId === null });
    let ok = await loadView(first.view, first.scope);
    if (!ok && first.view !== "overview") ok = await loadView("overview", "");
    if (state.canWrite) loadPalette();
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
    findDevice,
    loadView,
    save,
    openLinkDialog,
    isDirty,
    editDocument,
    ready: start(),
  };
  win.fabricCanvas = handle;
  return handle;
}
