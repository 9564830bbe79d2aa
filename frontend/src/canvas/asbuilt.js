// The "As built" overlay: the newest as-built cabling check of the revision (an LLDP table,
// ibnetdiscover output or NetBox export checked against the design), its findings drawn on the
// design links they name and listed in a legend of their own. Talks only to the REST API
// (GET .../revisions/<n>/as-built/overlay/).

import { h } from "./dom.js";
import { endText } from "./format.js";

const PLANNER = "/api/planner";

/** The overlay's URL. */
export const asbuiltUrl = (id, revision) => `${PLANNER}/designs/${id}/revisions/${revision}/as-built/overlay/`;

/** Finding kinds, their colour and words (order: the legend's). */
export const ASBUILT_KINDS = [
  { kind: "missing", color: "#b3261e", label: "missing (no cable reported)", dashed: true },
  { kind: "swapped-ports", color: "#c98a00", label: "swapped ports" },
  { kind: "wrong-rail", color: "#7a3fb0", label: "wrong rail" },
  { kind: "wrong-plane", color: "#1f5fbf", label: "wrong plane" },
  { kind: "wrong-speed", color: "#b35a00", label: "wrong speed" },
  { kind: "unexpected", color: "#d63384", label: "unexpected" },
];
const BY_KIND = Object.fromEntries(ASBUILT_KINDS.map((k) => [k.kind, k]));

/**
 * Per drawn link edge the overlay names, its colour and kind.
 * @param {{links?: Object<string, string>}} overlay  the API's answer
 * @param {string[]} edgeIds  link edge ids drawn ("link:<i>")
 * @returns {Object<string, {kind: string, color: string, dashed: boolean}>}
 */
export function asbuiltStyles(overlay, edgeIds) {
  const out = {};
  for (const id of edgeIds) {
    const kind = overlay?.links?.[id];
    const info = kind ? BY_KIND[kind] : null;
    if (info) out[id] = { kind, color: info.color, dashed: Boolean(info.dashed) };
  }
  return out;
}

/**
 * Counts per kind and a one-line text per finding for the legend.
 * @param {{findings?: Record<string, any>[]}} overlay
 */
export function asbuiltCounts(overlay) {
  const counts = Object.fromEntries(ASBUILT_KINDS.map((k) => [k.kind, 0]));
  for (const f of overlay?.findings ?? []) if (f.kind in counts) counts[f.kind] += 1;
  return counts;
}

/** A finding in one line: "swapped ports: gpu00001 1/1 → leaf-su001-r1 1/2 (rack R001-05 U01)". */
export function findingText(f) {
  const info = BY_KIND[f.kind];
  const where = f.b?.rack ? ` (rack ${f.b.rack}${f.b.ru ? ` U${f.b.ru}` : ""})` : "";
  const end = (e) => e?.end ?? endText(e?.device ?? "", e?.port);
  return `${info ? info.label.split(" (")[0] : f.kind}: ${end(f.a)} → ${end(f.b)}${where}`;
}

const LISTED = 10;

/**
 * Wire the "As built" checkbox (data-c="overlay-asbuilt") and its legend (data-c="asbuilt-legend").
 * @param {{doc: Document, $: Function, api: Record<string, any>, state: Record<string, any>, cy: Record<string, any>, setStatus: Function}} canvas
 * @returns {{active: () => boolean, apply: () => Promise<void>}}
 */
export function createAsBuiltOverlay({ doc, $, api, state, cy, setStatus }) {
  const box = $("overlay-asbuilt");
  const legend = $("asbuilt-legend");

  async function data() {
    if (state.designId === null || !state.revision) return null;
    if (state.asbuilt?.revision === state.revision) return state.asbuilt.data;
    const answer = await api.get(asbuiltUrl(state.designId, state.revision));
    if (!answer.ok) {
      setStatus(`Could not load the as-built check: ${answer.data?.detail ?? answer.status}`, "bad");
      return null;
    }
    state.asbuilt = { revision: state.revision, data: answer.data };
    return answer.data;
  }

  function focus(ids) {
    const eles = cy.collection(ids.map((id) => cy.getElementById(id)).filter((e) => e.nonempty()));
    if (eles.empty()) return;
    cy.$(":selected").unselect();
    eles.select();
    cy.animate({ fit: { eles, padding: 80 } }, { duration: 200 });
  }

  async function apply() {
    // Drawn as style bypasses: each view load replaces the stylesheet.
    cy.elements(".asbuilt").removeStyle("line-color width opacity z-index line-style").removeClass("asbuilt");
    legend.replaceChildren();
    legend.hidden = true;
    if (!box.checked) return;
    const overlay = await data();
    if (!overlay || !box.checked) return;
    const block = h(doc, "div", { class: "legend-block", "data-testid": "asbuilt-legend" }, h(doc, "strong", { text: "As built (cabling check)" }));
    if (!overlay.import) {
      block.append(h(doc, "p", { class: "overlay-missing", text: `No as-built check of revision ${state.revision} yet: upload an LLDP table, ibnetdiscover output or NetBox export on the ` }, h(doc, "a", { href: `/designs/${state.designId}/revisions/${state.revision}/as-built/`, text: "As built page" }), "."));
      legend.append(block);
      legend.hidden = false;
      return;
    }
    const edges = cy.edges("[kind = 'link']");
    const styles = asbuiltStyles(overlay, edges.map((e) => e.id()));
    cy.batch(() => {
      for (const [id, style] of Object.entries(styles)) {
        cy.getElementById(id)
          .data({ asbuilt_kind: style.kind })
          .addClass("asbuilt")
          .style({ "line-color": style.color, width: 4, opacity: 1, "z-index": 26, "line-style": style.dashed ? "dashed" : "solid" });
      }
    });
    const counts = asbuiltCounts(overlay);
    const items = ASBUILT_KINDS.map((k) => h(doc, "li", {}, h(doc, "span", { class: "swatch", style: `background:${k.color}` }), ` ${k.label}: ${counts[k.kind].toLocaleString("en-US")}`));
    const imp = overlay.import;
    const when = new Date(imp.created).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short" });
    const drawn = Object.keys(styles).length;
    const total = overlay.findings.length;
    const note = `${imp.file_name || "File"} (${imp.format_label}, ${when}): ${total.toLocaleString("en-US")} difference${total === 1 ? "" : "s"}, ${drawn.toLocaleString("en-US")} on links drawn here; a cable to a device the design lacks has no link to draw.`;
    block.append(h(doc, "ul", { class: "legend-power" }, ...items), h(doc, "p", { class: "legend-note", text: note }));
    const list = h(doc, "ol", { class: "measured-flagged", "data-testid": "asbuilt-findings" });
    const details = h(doc, "details", {}, h(doc, "summary", { text: `The differences (${total.toLocaleString("en-US")})` }), list);
    for (const f of overlay.findings.slice(0, LISTED)) {
      const present = (f.links ?? []).some((id) => cy.getElementById(id).nonempty());
      list.append(h(doc, "li", {}, present ? h(doc, "button", { type: "button", class: "linklike", text: findingText(f), onclick: () => focus(f.links) }) : h(doc, "span", { text: findingText(f) })));
    }
    if (total > LISTED) details.append(h(doc, "p", { class: "legend-note", text: `The first ${LISTED} listed; the As built page lists them all.` }));
    if (total) block.append(details);
    block.append(h(doc, "p", { class: "legend-note" }, h(doc, "a", { href: `/designs/${state.designId}/revisions/${state.revision}/as-built/`, text: "All differences, the CSV and new checks: As built page" })));
    legend.append(block);
    legend.hidden = false;
  }

  box.addEventListener("change", apply);
  return { active: () => box.checked, apply };
}
