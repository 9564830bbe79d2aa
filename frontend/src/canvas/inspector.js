// The inspector panel: what is selected (the view when nothing is), a device's ports, place and
// power with renaming, a link's ends and media with "Change media…", groups with expand and
// collapse, aggregates with a way into their scope. The facts themselves are inspector_facts.js.

import { nameProblem, nodeName, usedPorts } from "./document.js";
import { h } from "./dom.js";
import {
  aggregateFacts,
  bundleFacts,
  deviceFacts,
  groupFacts,
  linkFacts,
  networkAggregateFacts,
  networkBundleFacts,
  networkDeviceFacts,
  networkLinkFacts,
  selectionSummary,
  shownFacts,
  trayTables,
  viewFacts,
} from "./inspector_facts.js";

/**
 * The inspector of a canvas.
 * @param {{doc: Document, win: Window, $: Function, state: Record<string, any>, cy: Record<string, any>, ec: Record<string, any>, ur: Record<string, any>,
 *   setStatus: Function, deviceNames: () => string[], linkEdgeData: () => Record<string, any>[]}} canvas
 * @param {{scopeLabel: Function, changeView: Function, openLinkDialog: Function,
 *   deleteSelection: Function, modelInfo: Function, toggleGroup: Function}} hooks
 * @returns {{renderInspector: () => void, scheduleInspector: () => void}}
 */
export function createInspector(canvas, hooks) {
  const { doc, win, $, state, cy, ec, ur, setStatus } = canvas;

  let inspectorFrame = null;
  /** Render on the next frame (once, however many changes come before it). */
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
    for (const [term, value] of shownFacts(list)) dl.append(h(doc, "dt", { text: term }), h(doc, "dd", { text: value }));
    return dl;
  }

  /** The element shown and the trays the user opened: a render for the same element (the
   * model's facts arriving, data set in the background) keeps them open. */
  let shown = { id: null, openTrays: new Set() };

  function renderInspector() {
    const panel = $("inspector");
    const openTrays = new Set([...panel.querySelectorAll("details[data-tray][open]")].map((d) => d.dataset.tray));
    panel.replaceChildren();
    const selected = cy.$(":selected");
    const id = selected.length === 1 ? selected[0].id() : null;
    shown = { id, openTrays: id !== null && id === shown.id ? openTrays : new Set() };
    if (selected.empty()) {
      panel.append(h(doc, "p", { class: "empty", text: "Select a device or link to see its properties." }));
      panel.append(
        facts(
          viewFacts({
            view: state.view === "overview" ? "Overview" : hooks.scopeLabel(state.scope),
            devices: cy.nodes("[kind = 'device']").length,
            links: cy.edges("[kind = 'link']").length,
            aggregates: cy.nodes("[kind = 'aggregate']").length,
            bundles: cy.edges("[kind = 'bundle']").length,
            networkDevices: cy.nodes("[kind ^= 'network']").length,
            networkLinks: cy.edges("[kind ^= 'network']").length,
            editable: state.editable,
            reason: state.reason,
          }),
        ),
      );
      return;
    }
    if (selected.length > 1) {
      panel.append(h(doc, "p", { text: selectionSummary(selected.nodes().length, selected.edges().length) }));
      if (state.editable) panel.append(h(doc, "button", { type: "button", class: "danger", text: "Delete selection", onclick: hooks.deleteSelection }));
      return;
    }
    const ele = selected[0];
    const data = ele.data();
    if (ele.isEdge()) return renderEdgeInspector(panel, ele, data);
    if (data.kind === "network-device" || data.kind === "network-aggregate") {
      panel.append(h(doc, "h3", { text: data.label }));
      panel.append(facts(data.kind === "network-device" ? networkDeviceFacts(data) : networkAggregateFacts(data)));
      return;
    }
    if (data.kind === "aggregate") {
      panel.append(h(doc, "h3", { text: data.label }));
      panel.append(facts(aggregateFacts(data)));
      if (data.scope) panel.append(h(doc, "button", { type: "button", text: `Open ${data.label}`, onclick: () => hooks.changeView("detail", data.scope) }));
      return;
    }
    if (data.kind === "group" || ele.isParent() || ec.isExpandable(ele)) {
      panel.append(h(doc, "h3", { text: data.label ?? data.id }));
      const collapsed = ec.isExpandable(ele);
      const inside = collapsed ? (ec.getCollapsedChildrenRecursively(ele).nodes("[kind = 'device']").length) : ele.descendants("[kind = 'device']").length;
      panel.append(facts(groupFacts(data, inside)));
      panel.append(
        h(doc, "button", {
          type: "button",
          "data-c": "group-toggle",
          text: collapsed ? "Expand group" : "Collapse group",
          onclick: () => hooks.toggleGroup(ele, collapsed),
        }),
      );
      return;
    }
    renderDeviceInspector(panel, ele, data);
  }

  function renderDeviceInspector(panel, node, data) {
    const name = nodeName(data);
    const info = state.catalog.get(data.model);
    const used = state.editable ? usedPorts(node.id(), canvas.linkEdgeData()).size : data.ports_used ?? usedPorts(node.id(), canvas.linkEdgeData()).size;
    panel.append(h(doc, "h3", { text: name }));
    if (state.editable) {
      const input = h(doc, "input", { id: "inspector-name", value: name, maxlength: "100" });
      const error = h(doc, "p", { class: "error", role: "alert" });
      const rename = () => {
        const value = input.value;
        if (value === name) return;
        const others = canvas.deviceNames().filter((other) => other !== name);
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
    if (data.label && data.label !== name) panel.append(h(doc, "p", { class: "help", text: data.label }));
    panel.append(facts(deviceFacts(data, info, used)));
    if (data.trays?.length) panel.append(trayList(data.trays));
    if (!info && data.model) hooks.modelInfo(data.model).then((found) => found && scheduleInspector());
  }

  /** A rack-scale system's trays: one disclosure per tray with its NICs in a table. */
  function trayList(trays) {
    const section = h(doc, "section", { class: "trays", "aria-labelledby": "inspector-trays" });
    section.append(h(doc, "h4", { id: "inspector-trays", text: "Trays" }));
    for (const tray of trayTables(trays)) {
      const table = h(doc, "table", { "aria-label": `NICs of tray ${tray.tray}` });
      const head = h(doc, "tr");
      for (const header of tray.headers) head.append(h(doc, "th", { scope: "col", text: header }));
      const body = h(doc, "tbody");
      for (const row of tray.rows) body.append(h(doc, "tr", {}, ...row.map((cell) => h(doc, "td", { text: cell }))));
      table.append(h(doc, "thead", {}, head), body);
      const details = h(doc, "details", { "data-tray": String(tray.tray) }, h(doc, "summary", { text: tray.summary }), table);
      details.open = shown.openTrays.has(String(tray.tray));
      section.append(details);
    }
    return section;
  }

  function renderEdgeInspector(panel, edge, data) {
    const a = nodeName(edge.source().data());
    const b = nodeName(edge.target().data());
    panel.append(h(doc, "h3", { text: `${a} ↔ ${b}` }));
    if (data.kind === "network-link" || data.kind === "network-bundle") {
      panel.append(facts(data.kind === "network-link" ? networkLinkFacts(a, b, data) : networkBundleFacts(data)));
      return;
    }
    if (data.kind === "bundle") {
      panel.append(facts(bundleFacts(data)));
      return;
    }
    panel.append(facts(linkFacts(a, b, data)));
    if (state.editable) {
      panel.append(h(doc, "button", { type: "button", text: "Change media…", onclick: () => hooks.openLinkDialog({ edge }) }));
    }
  }

  return { renderInspector, scheduleInspector };
}
