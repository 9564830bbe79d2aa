// The device palette: servers and switches from the catalog, searchable; a click adds one at
// the centre of the view, a drag drops it where it lands. Also the catalog facts (ports,
// speed, power) of the models on the canvas, which the link dialog and inspector read.

import { urls } from "./api.js";
import { budgetProblem } from "./budget.js";
import { h } from "./dom.js";
import { catalogEntry, deviceNodeData, freeSpot, modelPosition, paletteDetail, paletteItemLabel } from "./palette_items.js";

const DRAG_TYPE = "application/x-fabric-device";

/**
 * The palette of a canvas.
 * @param {{doc: Document, $: Function, api: Record<string, any>, state: Record<string, any>, cy: Record<string, any>, ur: Record<string, any>,
 *   container: HTMLElement, setStatus: Function, refuse: Function, countEditable: () => number,
 *   deviceNames: () => string[], idExists: (id: string) => boolean}} canvas
 * @returns {{loadPalette: (search?: string) => Promise<void>, modelInfo: (slug: string) => Promise<Record<string, any>|null>}}
 */
export function createPalette(canvas) {
  const { doc, $, api, state, cy, ur, container, setStatus, refuse } = canvas;

  let paletteSequence = 0;
  /** Fill the palette with the servers and switches matching `search`. */
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
        if (category === "server" && row.kind === "pdu") continue; // a PDU has no data ports
        const entry = catalogEntry(row, category);
        state.catalog.set(entry.slug, entry);
        const button = h(
          doc,
          "button",
          {
            type: "button",
            class: "palette-item",
            draggable: "true",
            "data-palette-item": entry.slug,
            "aria-label": paletteItemLabel(entry),
            disabled: !state.editable,
            onclick: () => addDevice(entry),
            ondragstart: (event) => {
              event.dataTransfer.setData(DRAG_TYPE, entry.slug);
              event.dataTransfer.setData("text/plain", entry.slug);
              event.dataTransfer.effectAllowed = "copy";
            },
          },
          h(doc, "strong", { text: entry.slug }),
          h(doc, "span", { class: "help", text: `${entry.name} · ${paletteDetail(entry)}` }),
        );
        list.append(h(doc, "li", {}, button));
      }
      if (!rows.length) list.append(h(doc, "li", { class: "empty", text: answer.ok ? "None found." : "Could not load the catalog." }));
      section.append(list);
      lists.append(section);
    });
  }

  /**
   * The catalog entry of a model (looked up once, then remembered; null when unknown).
   * @param {string} slug
   */
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

  function viewportCenter() {
    const pan = cy.pan();
    const zoom = cy.zoom();
    return { x: (cy.width() / 2 - pan.x) / zoom, y: (cy.height() / 2 - pan.y) / zoom };
  }

  /** Add a device of a palette entry, at `position` or the first free spot mid-view. */
  function addDevice(entry, position = null) {
    if (!state.editable) return refuse(state.reason || "This view is read-only.");
    const problem = budgetProblem(canvas.countEditable(), 1);
    if (problem) return refuse(problem);
    const data = deviceNodeData(entry, { switchRole: $("palette-role").value, names: canvas.deviceNames(), exists: canvas.idExists });
    const taken = cy.nodes().filter((n) => !n.isParent()).map((n) => n.position());
    const at = position ?? freeSpot(viewportCenter(), taken);
    const added = ur.do("add", { group: "nodes", data, position: at });
    cy.$(":selected").unselect();
    added.select();
    setStatus(`Added ${data.name} (${entry.slug}).`, "ok");
  }

  container.addEventListener("dragover", (event) => {
    if (!state.editable) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "copy";
  });
  container.addEventListener("drop", (event) => {
    event.preventDefault();
    const slug = event.dataTransfer.getData(DRAG_TYPE) || event.dataTransfer.getData("text/plain");
    const entry = state.catalog.get(slug);
    if (!entry) return;
    const box = container.getBoundingClientRect();
    addDevice(entry, modelPosition({ x: event.clientX - box.left, y: event.clientY - box.top }, cy.pan(), cy.zoom()));
  });

  let searchTimer = null;
  $("palette-search").addEventListener("input", (event) => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => loadPalette(event.target.value.trim()), 250);
  });

  return { loadPalette, modelInfo };
}
