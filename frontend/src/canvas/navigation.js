// Getting around a drawing: fit and zoom, the first viewport of a view, finding a device by
// name, bringing elements into view, and collapsing or expanding groups.

import { nodeName } from "./document.js";
import { h } from "./dom.js";
import { MIN_LABEL_PX } from "./labels.js";

/** Fitting never zooms in further than this (a handful of devices stays a sensible size). */
export const MAX_FIT_ZOOM = 1.6;
/** Font size of an aggregate's name (style.js). */
const AGGREGATE_FONT_PX = 11;
/** cytoscape-expand-collapse options for every collapse and expand the canvas makes. */
export const COLLAPSE_OPTIONS = { layoutBy: null, fisheye: false, animate: false, undoable: false };

/**
 * The navigation commands of a canvas.
 * @param {{doc: Document, $: Function, cy: Record<string, any>, ec: Record<string, any>, container: HTMLElement,
 *   setStatus: Function}} canvas
 * @param {{scheduleInspector: () => void}} hooks
 */
export function createNavigation({ doc, $, cy, ec, container, setStatus }, { scheduleInspector }) {
  /**
   * The first viewport of a view: everything when that is readable; a very wide view (an
   * overview of many SUs) opens at its left end, zoomed so its tiers can be read (F fits all).
   * @returns {boolean} whether the view opened at its left end
   */
  function openingView() {
    const box = cy.elements().boundingBox();
    const fitZoom = box.w && box.h ? Math.min((cy.width() - 60) / box.w, (cy.height() - 60) / box.h) : 1;
    // An overview whose aggregates' names would be drawn too small to read (labels.js) opens
    // at its top, zoomed so that they can be read (F fits all).
    const overview = cy.nodes("[kind = 'aggregate']").nonempty();
    const named = overview ? MIN_LABEL_PX / AGGREGATE_FONT_PX : 0;
    if (overview && fitZoom < named) {
      cy.zoom(named);
      cy.pan({ x: (cy.width() - box.w * named) / 2 - box.x1 * named, y: 30 - box.y1 * named });
      return true;
    }
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

  /** The names the find box offers (the first 2,000 devices and aggregates). */
  function renderFindNames() {
    const list = $("find-names");
    list.replaceChildren();
    const names = cy.nodes("[kind = 'device'], [kind = 'aggregate'], [kind = 'network-device']").map((n) => String(n.data("label") ?? nodeName(n.data())));
    for (const name of names.slice(0, 2000)) list.append(h(doc, "option", { value: name }));
  }

  /**
   * Select and show the device whose name is (else contains) `text`, expanding groups if needed.
   * @param {string} text
   * @returns {boolean} whether a device was found
   */
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

  /** Expand a collapsed group, or collapse an open one. */
  function toggleGroup(group, collapsed) {
    if (collapsed) ec.expand(group, COLLAPSE_OPTIONS);
    else ec.collapse(group, COLLAPSE_OPTIONS);
    scheduleInspector();
  }

  // The find box: Enter finds, Escape goes back to the drawing.
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

  return { openingView, fitView, renderFindNames, findDevice, focusOn, zoomBy, collapseAll, expandAll, toggleGroup };
}
