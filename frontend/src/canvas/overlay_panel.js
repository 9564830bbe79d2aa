// The problems list and the job-result overlays (problems, rack power, link utilization) with
// their legend, and the optical margin overlay (from the revision's optical budget, no job). What the overlays say in words is in overlays.js; colours are in heat.js.

import { urls } from "./api.js";
import { resolveProblemIds } from "./document.js";
import { h } from "./dom.js";
import { POWER_LEVELS, heatColor, heatLegend, rackPower } from "./heat.js";
import { MARGIN_LEVELS, marginStyles } from "./margin.js";
import { missingOverlays, overlaySourceLabel } from "./overlays.js";

/** The overlay checkboxes (data-c names). */
export const OVERLAY_BOXES = ["overlay-problems", "overlay-power", "overlay-util", "overlay-margin"];

/**
 * The problems list and overlays of a canvas.
 * @param {{doc: Document, $: Function, api: object, state: object, cy: object, ec: object,
 *   container: HTMLElement, setStatus: Function, isDirty: () => boolean}} canvas
 * @param {{focusOn: (eles: object) => void}} hooks
 */
export function createOverlayPanel({ doc, $, api, state, cy, ec, container, setStatus, isDirty }, { focusOn }) {
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

  /**
   * List problems (from a save's 400 or the problems overlay) and mark the elements they name.
   * @param {{message: string, severity?: string, element_ids?: string[]}[]} problems
   * @param {"save"|"overlay"} source
   */
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
    return OVERLAY_BOXES.some((name) => $(name).checked);
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

  /** What a rack's power colours: its group when drawn (open or collapsed), else its devices. */
  function rackTargets(rack) {
    const key = String(rack);
    const groups = cy.nodes().filter((n) => (n.data("kind") === "group" || n.isParent() || ec.isExpandable(n)) && (String(n.data("rack")) === key || n.id() === `group:rack:${key}`));
    if (groups.nonempty()) return { eles: groups, cls: "power" };
    return { eles: cy.nodes("[kind = 'device']").filter((n) => String(n.data("rack")) === key), cls: "power-device" };
  }

  /** The revision's optical budget (margins per link), loaded once per revision. */
  async function marginData() {
    if (state.designId === null || !state.revision) return null;
    if (state.margins?.revision === state.revision) return state.margins.data;
    const answer = await api.get(urls.opticalBudget(state.designId, state.revision));
    if (!answer.ok) {
      setStatus(`Could not load the optical budget: ${answer.data?.detail ?? answer.status}`, "bad");
      return null;
    }
    state.margins = { revision: state.revision, data: answer.data };
    return answer.data;
  }

  /** Colour the link edges in view by their optical margin and add the legend. */
  async function applyMargins(legend) {
    const budget = await marginData();
    if (!budget) return;
    const edges = cy.edges("[kind = 'link']");
    const styles = marginStyles(budget, edges.map((e) => e.id()));
    cy.batch(() => {
      for (const [id, style] of Object.entries(styles)) {
        cy.getElementById(id).data({ margin_color: style.color, margin_db: style.margin }).addClass("margin");
      }
    });
    const threshold = budget.threshold_db ?? 1;
    const items = MARGIN_LEVELS.map((level) => h(doc, "li", {}, h(doc, "span", { class: "swatch", style: `background:${level.color}` }), ` ${level.label(threshold)}`));
    const shown = Object.keys(styles).length;
    const note = budget.summary
      ? `${shown.toLocaleString("en-US")} of the ${edges.length.toLocaleString("en-US")} links drawn here have a budget (cable assemblies and bundles are not coloured); smallest margin in the design ${budget.summary.margin_min_db ?? "—"} dB.`
      : "This revision has no optical links with a budget.";
    legend.append(h(doc, "div", { class: "legend-block", "data-testid": "margin-legend" }, h(doc, "strong", { text: "Optical margin (worst case)" }), h(doc, "ul", { class: "legend-power" }, ...items), h(doc, "p", { class: "legend-note", text: note })));
  }

  /** Draw the ticked overlays (and their legend) from the revision's job results. */
  async function applyOverlays() {
    const wantProblems = $("overlay-problems").checked;
    const wantPower = $("overlay-power").checked;
    const wantUtil = $("overlay-util").checked;
    const wantMargin = $("overlay-margin").checked;
    cy.batch(() => {
      cy.elements(".margin").removeClass("margin");
      cy.elements(".heat").removeClass("heat");
      cy.elements(".power, .power-device").removeClass("power power-device");
    });
    if (state.problemSource === "overlay" && !wantProblems) clearProblems();
    const legend = $("legend");
    legend.replaceChildren();
    legend.hidden = true;
    if (wantMargin) await applyMargins(legend);
    legend.hidden = !legend.children.length;
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

  for (const name of OVERLAY_BOXES) $(name).addEventListener("change", applyOverlays);

  return { clearProblems, showProblems, anyOverlay, applyOverlays };
}
