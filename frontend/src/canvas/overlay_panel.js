// The problems list and the job-result overlays (problems, rack power, link utilization) with
// their legend, and the optical margin overlay (from the revision's optical budget, no job). What the overlays say in words is in overlays.js; colours are in heat.js.

import { urls } from "./api.js";
import { h } from "./dom.js";
import { POWER_LEVELS, heatColor, heatLegend, rackPower } from "./heat.js";
import { MARGIN_LEVELS, marginStyles } from "./margin.js";
import { MEASURED_FLAGS, flaggedText, measuredStyles, snapshotFormat } from "./measured.js";
import { missingOverlays, overlaySourceLabel } from "./overlays.js";

/** The overlay checkboxes (data-c names). */
export const OVERLAY_BOXES = ["overlay-problems", "overlay-power", "overlay-util", "overlay-margin", "overlay-measured"];
/** Flagged links listed by name in the Measured legend (the rest are counted). */
const FLAGGED_LISTED = 8;

/**
 * The problems list and overlays of a canvas.
 * @param {{doc: Document, $: Function, api: Record<string, any>, state: Record<string, any>, cy: Record<string, any>, ec: Record<string, any>,
 *   container: HTMLElement, setStatus: Function, isDirty: () => boolean}} canvas
 * @param {{focusOn: (eles: Record<string, any>) => void}} hooks
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
    // A save's problems name the document or patch it sent: its `resolveIds` maps them.
    const mapped = problems.map((p) => ({ ...p, ids: state.lastSaved && source === "save" ? state.lastSaved.resolveIds(p.element_ids ?? []) : p.element_ids ?? [] }));
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

  /** The revision's newest counter snapshot (the Measured overlay), loaded once per revision. */
  async function measuredData() {
    if (state.designId === null || !state.revision) return null;
    if (state.measured?.revision === state.revision) return state.measured.data;
    const answer = await api.get(urls.counters(state.designId, state.revision));
    if (!answer.ok) {
      setStatus(`Could not load the counter snapshot: ${answer.data?.detail ?? answer.status}`, "bad");
      return null;
    }
    state.measured = { revision: state.revision, data: answer.data };
    return answer.data;
  }

  /** Read a chosen snapshot file and import it against the canvas's revision. */
  async function importSnapshot(file, report) {
    if (!file) return;
    const text = await file.text();
    setStatus(`Importing ${file.name}…`);
    const answer = await api.post(urls.counters(state.designId, state.revision), { format: snapshotFormat(file.name), text, file_name: file.name });
    if (!answer.ok) {
      const problems = answer.data?.problems ?? [];
      report.replaceChildren(...(problems.length ? problems.slice(0, 8).map((p) => h(doc, "li", { text: p.message })) : [h(doc, "li", { text: answer.data?.detail ?? `The server answered ${answer.status}.` })]));
      if (answer.data?.more) report.append(h(doc, "li", { text: `… and ${answer.data.more.toLocaleString("en-US")} more` }));
      report.hidden = false;
      setStatus("The snapshot was not imported; nothing was stored.", "bad");
      return;
    }
    state.measured = { revision: state.revision, data: answer.data };
    setStatus(`Imported ${file.name}.`);
    applyOverlays();
  }

  /** Colour the link edges in view by their measured figures and list the flagged links. */
  async function applyMeasured(legend) {
    const data = await measuredData();
    if (!data) return;
    const block = h(doc, "div", { class: "legend-block", "data-testid": "measured-legend" }, h(doc, "strong", { text: "Measured (counter snapshot)" }));
    const report = h(doc, "ul", { class: "measured-problems", hidden: true });
    const picker = h(doc, "input", { type: "file", accept: ".csv,.json,text/csv,application/json", "aria-label": "Counter snapshot file (CSV or JSON)" });
    picker.addEventListener("change", () => importSnapshot(picker.files?.[0], report));
    const importer = h(doc, "label", { class: "measured-import", text: `${data.snapshot ? "Import a newer snapshot" : "Import a counter snapshot"} (CSV or JSON) ` }, picker);
    if (!data.snapshot) {
      block.append(h(doc, "p", { class: "overlay-missing", text: `No counter snapshot for revision ${state.revision} yet.` }), importer, report);
      legend.append(block);
      return;
    }
    const edges = cy.edges("[kind = 'link']");
    const styles = measuredStyles(data, edges.map((e) => e.id()));
    cy.batch(() => {
      for (const [id, style] of Object.entries(styles)) {
        cy.getElementById(id).data({ measured_color: style.color, measured: data.links[id] }).addClass("measured");
      }
    });
    const s = data.snapshot.summary ?? {};
    const when = new Date(data.snapshot.created).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short" });
    const items = [
      ...MEASURED_FLAGS.map((f) => h(doc, "li", {}, h(doc, "span", { class: "swatch", style: `background:${f.color}` }), ` ${f.label}`)),
      h(doc, "li", {}, h(doc, "span", { class: "swatch", style: `background:linear-gradient(to right, ${heatColor(0)}, ${heatColor(0.5)}, ${heatColor(1)})` }), " others: measured utilization, 0 % green to 100 % red"),
    ];
    const sim = data.simulation ? "Simulated utilization beside it in each link's details." : "No finished flow simulation of this revision: the details show measured figures only.";
    const note = `${data.snapshot.file_name || "Snapshot"} (${when}, ${data.snapshot.created_by || "unknown"}): ${(s.ports ?? 0).toLocaleString("en-US")} ports on ${(s.links ?? 0).toLocaleString("en-US")} links, ${Object.keys(styles).length.toLocaleString("en-US")} drawn here; Rx expectation known on ${(s.rx_expected_known ?? 0).toLocaleString("en-US")} link ends. ${sim}`;
    block.append(h(doc, "ul", { class: "legend-power" }, ...items), h(doc, "p", { class: "legend-note", text: note }));
    const flagged = data.flagged ?? [];
    const list = h(doc, "ol", { class: "measured-flagged", "data-testid": "measured-flagged" });
    for (const item of flagged.slice(0, FLAGGED_LISTED)) {
      const present = cy.getElementById(item.link).nonempty();
      const text = flaggedText(item);
      list.append(h(doc, "li", {}, present ? h(doc, "button", { type: "button", class: "linklike", text, onclick: () => focusElements([item.link]) }) : h(doc, "span", { text })));
    }
    block.append(h(doc, "p", { class: "legend-note", text: flagged.length ? `${flagged.length.toLocaleString("en-US")} flagged link${flagged.length === 1 ? "" : "s"}${flagged.length > FLAGGED_LISTED ? `, the worst ${FLAGGED_LISTED} listed` : ""}:` : "No link flagged." }));
    if (flagged.length) block.append(list);
    block.append(importer, report);
    legend.append(block);
  }

  /** Draw the ticked overlays (and their legend) from the revision's job results. */
  async function applyOverlays() {
    const wantProblems = $("overlay-problems").checked;
    const wantPower = $("overlay-power").checked;
    const wantUtil = $("overlay-util").checked;
    const wantMargin = $("overlay-margin").checked;
    const wantMeasured = $("overlay-measured").checked;
    cy.batch(() => {
      cy.elements(".measured").removeData("measured").removeClass("measured");
      cy.elements(".margin").removeClass("margin");
      cy.elements(".heat").removeClass("heat");
      cy.elements(".power, .power-device").removeClass("power power-device");
    });
    if (state.problemSource === "overlay" && !wantProblems) clearProblems();
    const legend = $("legend");
    legend.replaceChildren();
    legend.hidden = true;
    if (wantMargin) await applyMargins(legend);
    if (wantMeasured) await applyMeasured(legend);
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
