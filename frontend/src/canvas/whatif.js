// "What if it fails?": the selected devices, links or rack/SU groups (or a failure domain picked
// from the list) are sent to the what-if API; its blast radius is drawn on the canvas (what goes
// down, the servers whose GPUs lose all fabric connectivity, those degraded) and its numbers
// listed; a button starts the what-if job (the collective before and after, on the flow
// simulator) and links to its page. Talks only to the REST API:
// GET/POST .../revisions/<n>/what-if/ and POST /api/simulation/jobs/.

import { h } from "./dom.js";

const PLANNER = "/api/planner";

/** The what-if API of a revision. */
export const whatifUrl = (id, revision) => `${PLANNER}/designs/${id}/revisions/${revision}/what-if/`;
export const JOBS_URL = "/api/simulation/jobs/";

/** Looks of the blast radius (element styles: a view change resets the style sheet). */
export const BLAST_STYLES = {
  "whatif-degraded": { node: { "border-color": "#c98a00", "border-width": 5 }, edge: { "line-color": "#c98a00", width: 3 } },
  "whatif-lost": { node: { "background-color": "#e8a19c", "border-color": "#b3261e", "border-width": 5 }, edge: {} },
  "whatif-down": { node: { "background-color": "#3c3c3c", "border-color": "#b3261e", "border-width": 6 }, edge: { "line-color": "#b3261e", "line-style": "dashed", width: 4 } },
};
const STYLED = ["border-color", "border-width", "background-color", "line-color", "line-style", "width"];

/** Classes the blast radius adds, by the answer's list (order: worst last, so it wins). */
export const BLAST_CLASSES = [
  ["leaves_degraded", "whatif-degraded"],
  ["servers_degraded", "whatif-degraded"],
  ["servers_leaf_only", "whatif-degraded"],
  ["servers_lost", "whatif-lost"],
  ["links_down", "whatif-down"],
  ["nodes_down", "whatif-down"],
];
const ALL_CLASSES = "whatif-down whatif-lost whatif-degraded";

/**
 * What-if ids of selected canvas elements: devices and links as they are, rack and SU groups as
 * their domain; other elements (aggregates, rail groups) are left out.
 * @param {string[]} ids  selected element ids
 * @returns {string[]}
 */
export function failedIdsOf(ids) {
  const out = [];
  for (const id of ids) {
    let failed = null;
    if (/^node:/.test(id) || /^link:\d+$/.test(id)) failed = id;
    else if (id.startsWith("group:rack:")) failed = `rack:${id.slice("group:rack:".length)}`;
    else if (id.startsWith("group:su:")) failed = `su:${id.slice("group:su:".length)}`;
    if (failed && !out.includes(failed)) out.push(failed);
  }
  return out;
}

const fmt = (n) => Number(n ?? 0).toLocaleString("en-US");
const tbps = (n) => `${Number(n ?? 0).toLocaleString("en-US", { maximumFractionDigits: 1 })} Tb/s`;
const pct = (share) => (share === null || share === undefined ? "—" : `${(share * 100).toLocaleString("en-US", { maximumFractionDigits: 1 })} %`);
const TIER_LABELS = { "server-leaf": "Server–leaf", "leaf-spine": "Leaf–spine", "spine-core": "Spine–core" };

/**
 * The numbers panel's lines from the API's answer.
 * @param {Record<string, any>} answer
 * @returns {string[]}
 */
export function whatifLines(answer) {
  const g = answer.gpus;
  const lines = [
    `GPUs losing all fabric connectivity: ${fmt(g.lost)} of ${fmt(g.total)}`,
    `GPUs reaching only their own leaf: ${fmt(g.leaf_only)}`,
    `GPUs with NIC ports down: ${fmt(g.degraded)}`,
  ];
  for (const [tier, row] of Object.entries(answer.bandwidth_lost ?? {})) {
    lines.push(`${TIER_LABELS[tier] ?? tier}: ${tbps(row.lost_tbps)} lost of ${tbps(row.capacity_tbps)} (${pct(row.share_lost)})`);
  }
  const up = answer.leaf_uplink_left ?? {};
  if (up.leaves_degraded) lines.push(`Leaves losing uplink capacity: ${fmt(up.leaves_degraded)} of ${fmt(up.leaves)}; the worst keeps ${pct(up.min_share)}`);
  const b = answer.bisection;
  lines.push(`Bisection: ${tbps(b.before_gbps / 1000)} before, ${tbps(b.after_gbps / 1000)} after (${pct(b.share_left)} left)`);
  return lines;
}

/**
 * Wire the what-if section of the inspector (data-c="whatif…").
 * @param {{doc: Document, $: Function, api: Record<string, any>, state: Record<string, any>, cy: Record<string, any>, setStatus: Function}} canvas
 * @returns {{refresh: () => Promise<void>, clear: () => void}}
 */
export function createWhatIf({ doc, $, api, state, cy, setStatus }) {
  const section = $("whatif");
  const domain = $("whatif-domain");
  const result = $("whatif-result");
  const jobForm = $("whatif-job-form");
  let failed = [];

  function clear() {
    cy.elements(".whatif-down, .whatif-lost, .whatif-degraded").removeStyle(STYLED.join(" ")).removeClass(ALL_CLASSES);
    result.replaceChildren();
    jobForm.hidden = true;
    failed = [];
  }

  let listed = null; // the revision whose domains are listed
  async function refresh() {
    section.hidden = state.designId === null || !state.revision;
    if (section.hidden || listed === state.revision) return;
    listed = state.revision;
    const answer = await api.get(whatifUrl(state.designId, state.revision));
    domain.replaceChildren(h(doc, "option", { value: "", text: "— the selection on the canvas —" }));
    if (!answer.ok) return;
    for (const kind of answer.data.kinds ?? []) {
      const group = h(doc, "optgroup", { label: kind.label });
      for (const id of kind.ids) group.append(h(doc, "option", { value: `${kind.kind}:${id}`, text: `${kind.label} ${id}` }));
      domain.append(group);
    }
  }

  function draw(answer) {
    const blast = answer.blast_radius;
    let drawn = 0;
    let total = 0;
    cy.batch(() => {
      for (const [key, cls] of BLAST_CLASSES) {
        for (const id of blast[key].ids) {
          total += 1;
          const ele = cy.getElementById(id);
          if (ele.nonempty()) {
            ele.removeClass(ALL_CLASSES).addClass(cls).style(BLAST_STYLES[cls][ele.isNode() ? "node" : "edge"]);
            drawn += 1;
          }
        }
      }
    });
    const list = h(doc, "ul", { class: "whatif-numbers", "data-testid": "whatif-numbers" }, ...whatifLines(answer).map((line) => h(doc, "li", { text: line })));
    const legend = h(doc, "ul", { class: "legend-power" },
      h(doc, "li", {}, h(doc, "span", { class: "swatch", style: "background:#b3261e" }), " down (failed or taken down with it)"),
      h(doc, "li", {}, h(doc, "span", { class: "swatch", style: "background:#e8a19c;border:2px solid #b3261e" }), " server whose GPUs lose all fabric connectivity"),
      h(doc, "li", {}, h(doc, "span", { class: "swatch", style: "background:#c98a00" }), " degraded (NIC ports or uplinks lost)"));
    const note = `${fmt(drawn)} of ${fmt(total)} blast-radius elements are drawn in this view; open an SU or rack to see the rest.`;
    result.replaceChildren(h(doc, "p", { class: "whatif-failed", text: `If ${(answer.failed_names ?? answer.failed).join(", ")} fails:` }), list, legend, h(doc, "p", { class: "legend-note", text: note }));
  }

  async function ask() {
    clear();
    const chosen = domain.value ? [domain.value] : failedIdsOf(cy.$(":selected").map((e) => e.id()));
    if (!chosen.length) {
      result.replaceChildren(h(doc, "p", { class: "error", text: "Select a device, link, rack or SU on the canvas, or choose a domain from the list." }));
      return;
    }
    setStatus("Asking what fails…");
    const answer = await api.post(whatifUrl(state.designId, state.revision), { failed: chosen });
    if (!answer.ok) {
      const message = answer.data?.failed?.[0] ?? answer.data?.detail ?? `error ${answer.status}`;
      result.replaceChildren(h(doc, "p", { class: "error", text: `Could not answer: ${message}` }));
      setStatus("What-if failed.", "bad");
      return;
    }
    failed = chosen;
    draw(answer.data);
    jobForm.hidden = false;
    setStatus(`What if ${chosen.join(", ")} fails: ${fmt(answer.data.gpus.lost)} GPUs lose all fabric connectivity.`);
  }

  async function startJob(event) {
    event.preventDefault();
    if (!failed.length) return;
    const size = Number($("whatif-size").value) * 1e6;
    const parameters = { failed, traffic: $("whatif-traffic").value };
    if (size > 0) parameters.size_bytes = size;
    const answer = await api.post(JOBS_URL, { kind: "whatif", design: state.designId, revision: state.revision, parameters });
    const link = $("whatif-job-link");
    if (!answer.ok) {
      const message = answer.data?.parameters?.[0] ?? answer.data?.detail ?? `error ${answer.status}`;
      link.replaceChildren(h(doc, "span", { class: "error", text: `Not started: ${message}` }));
      return;
    }
    link.replaceChildren(h(doc, "a", { href: `/jobs/${answer.data.id}/`, text: "Open the job: before and after" }));
    setStatus("What-if job started; its page shows the collective before and after.");
  }

  $("whatif-run").addEventListener("click", ask);
  $("whatif-clear").addEventListener("click", clear);
  jobForm.addEventListener("submit", startJob);
  return { refresh, clear };
}
