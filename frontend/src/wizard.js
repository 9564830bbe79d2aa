// Design wizard: sends the form's fields (or the YAML/JSON text) to the server ~300 ms after
// the last change, shows the summary it answers (with the spec it built from the fields) and
// each problem next to the field it names. The server is the authority and the only place the
// fields become a spec (planner/designs/wizard.py spec_from_fields), and a preset's spec
// becomes fields (each embedded preset's `fields`, planner/designs/forms.py fields_from_spec).
// The cluster networks' steps (a checkbox per network and its fields) are fields like the
// others; the page shows a step's fields while its box is ticked, and each empty box's default
// for the chosen server (the server's table, embedded as `network-placeholders`).
// The transport step shows the fields of the transport the design runs (the one chosen, else
// the leaf switch's), each empty field's profile default and its source: the server's table
// (`transport-defaults`, planner/designs/wizard_transport.py transport_table), picked from as
// the server's transport_view does.

/** Wait after the last change before asking for a summary (ms). */
export const DEBOUNCE_MS = 300;

/**
 * Group problems by the form field that shows them; "" collects the rest. The server names
 * the form field of each problem of the fields (and prefixes the spec path when it is not
 * that field); building from the YAML/JSON text, every problem goes there, with its path.
 * @param {{field: string, spec_field?: string, message: string}[]} problems
 * @param {boolean} fromText building from the YAML/JSON text
 * @returns {Map<string, string[]>}
 */
export function problemsByField(problems, fromText = false) {
  const byField = new Map();
  for (const { field, message } of problems) {
    const target = fromText ? "spec_text" : field ?? "";
    const text = fromText && field ? `${field}: ${message}` : message;
    if (!byField.has(target)) byField.set(target, []);
    byField.get(target).push(text);
  }
  return byField;
}

/**
 * The request body of a live summary: the YAML/JSON text as typed, or the form's fields (the
 * server maps them onto a spec). Leaves out the CSRF token and the text box. A draft: a design
 * that cannot be built yet answers 200 with its problems, not a 400 in the browser's console.
 * @param {Record<string, string>} values form field name -> value
 * @param {boolean} fromText build from the text
 * @returns {{spec: string, draft: true} | {fields: Record<string, string>, draft: true}}
 */
export function summaryRequest(values, fromText) {
  if (fromText) return { spec: values.spec_text ?? "", draft: true };
  const fields = { ...values };
  delete fields.csrfmiddlewaretoken;
  delete fields.spec_text;
  return { fields, draft: true };
}

/**
 * "1,016"; "2.5"; "—" for nothing.
 * @param {number|string|null|undefined} value
 * @returns {string}
 */
export function formatNumber(value) {
  if (value === null || value === undefined || value === "") return "—";
  if (typeof value !== "number") return String(value);
  return value.toLocaleString("en-US", { maximumFractionDigits: 2 });
}

/**
 * "51.2 Tb/s", "400 Gb/s".
 * @param {number|null|undefined} gbps
 * @returns {string}
 */
export function formatBandwidth(gbps) {
  if (gbps === null || gbps === undefined) return "—";
  if (gbps >= 1000) return `${(gbps / 1000).toLocaleString("en-US", { maximumFractionDigits: 1 })} Tb/s`;
  return `${gbps} Gb/s`;
}

/**
 * "330.9 kW", "950 W", "—" (as planner/designs/figures.py power_text).
 * @param {number|null|undefined} watts
 * @returns {string}
 */
export function formatPower(watts) {
  if (watts === null || watts === undefined || !Number.isFinite(watts)) return "—";
  if (watts < 1000) return `${watts.toLocaleString("en-US", { maximumFractionDigits: 0 })} W`;
  const kw = watts / 1000;
  return `${kw.toLocaleString("en-US", { minimumFractionDigits: 1, maximumFractionDigits: 1 })} kW`;
}

/**
 * The headline figures of a summary.
 * @param {Record<string, any>} summary as /api/planner/summary/ returns it
 * @returns {{id: string, label: string, value: string}[]}
 */
export function summaryFigures(summary) {
  const switches = summary.switches ?? {};
  const total = summary.switches_total ?? Object.values(switches).reduce((a, b) => a + b, 0);
  const leaf = summary.oversubscription?.leaf;
  return [
    { id: "gpus", label: "GPUs", value: formatNumber(summary.gpus) },
    { id: "servers", label: "Servers", value: formatNumber(summary.servers) },
    { id: "switches", label: "Switches", value: formatNumber(total) },
    { id: "tiers", label: "Tiers", value: formatNumber(summary.tiers) },
    { id: "bisection", label: "Bisection", value: formatBandwidth(summary.bisection_gbps) },
    { id: "oversubscription", label: "Leaf oversubscription", value: leaf ? `${leaf}:1` : "—" },
    { id: "power", label: "Power", value: formatPower(summary.power_w) },
    // Only users with the price right get a cost (the server's text: "$1,234" or "unpriced (3 parts)").
    ...(summary.cost ? [{ id: "cost", label: "Cost (seed price book)", value: summary.cost.text }] : []),
  ];
}

/**
 * One row per network of the cluster beside the compute fabric that has switches: its label,
 * its switches by model and role ("QM9700 (8 leaf, 4 storage leaf, 4 spine)") and how many.
 * @param {Record<string, any>} summary as /api/planner/summary/ returns it (`networks`: per network
 *   `switches` {role: {model: count}} and `switches_total`)
 * @param {Record<string, string>} [labels] network name -> label
 * @returns {string[][]}
 */
export function networkRows(summary, labels = {}) {
  const rows = [];
  for (const [name, network] of Object.entries(summary.networks ?? {})) {
    if (!network?.switches_total) continue;
    const byModel = new Map();
    for (const [role, models] of Object.entries(network.switches ?? {})) {
      for (const [model, count] of Object.entries(models)) {
        if (!byModel.has(model)) byModel.set(model, []);
        byModel.get(model).push(`${formatNumber(count)} ${role.replaceAll("-", " ")}`);
      }
    }
    const models = [...byModel].map(([model, roles]) => `${model} (${roles.join(", ")})`).join("; ");
    rows.push([labels[name] ?? name, models, formatNumber(network.switches_total)]);
  }
  return rows;
}

const TIER_LABELS = { "server-leaf": "Server – leaf", "leaf-spine": "Leaf – spine", "spine-core": "Spine – core" };

/**
 * The summary's tables: switches per tier and model, links per tier, optics and cables, and
 * the switches of the cluster's other networks (`id` "networks").
 * @param {Record<string, any>} summary
 * @param {Record<string, string>} [networkLabels] network name -> label
 * @returns {{title: string, head: string[], rows: string[][], id?: string}[]}
 */
export function summaryTables(summary, networkLabels = {}) {
  const tables = [];
  const switchRows = [];
  for (const [role, models] of Object.entries(summary.switches_by_model ?? {})) {
    for (const [model, count] of Object.entries(models)) {
      switchRows.push([role[0].toUpperCase() + role.slice(1), model, formatNumber(count)]);
    }
  }
  tables.push({ title: "Switches", head: ["Tier", "Model", "Count"], rows: switchRows });
  const linkRows = Object.entries(summary.links ?? {})
    .filter(([, count]) => count)
    .map(([tier, count]) => [TIER_LABELS[tier] ?? tier, formatNumber(count)]);
  tables.push({ title: "Links", head: ["Tier", "Links"], rows: linkRows });
  const optics = Object.entries(summary.transceivers ?? {}).map(([part, n]) => [part, formatNumber(n)]);
  if (optics.length) tables.push({ title: "Transceivers", head: ["Part", "Modules"], rows: optics });
  const cables = Object.entries(summary.cables ?? {}).map(([part, n]) => [part, formatNumber(n)]);
  if (cables.length) tables.push({ title: "Cables", head: ["Part", "Cables"], rows: cables });
  const networks = networkRows(summary, networkLabels);
  if (networks.length) {
    tables.push({ id: "networks", title: "Cluster networks", head: ["Network", "Switches", "Count"], rows: networks });
  }
  return tables;
}

/**
 * Call `fn` once, `ms` after the last of a burst of calls.
 * @param {() => void} fn
 * @param {number} ms
 * @param {{setTimeout: Function, clearTimeout: Function}} [clock]
 * @returns {() => void}
 */
export function debounce(fn, ms, clock = globalThis) {
  let timer = null;
  return () => {
    if (timer !== null) clock.clearTimeout(timer);
    timer = clock.setTimeout(() => {
      timer = null;
      fn();
    }, ms);
  };
}

/** Problems longer than this show cut, with a "more" disclosure. */
export const SHORT_MESSAGE = 160;

/**
 * A message cut at a word before `limit` characters ("…"), or the message itself.
 * @param {string} text
 * @param {number} [limit]
 * @returns {string}
 */
export function shortMessage(text, limit = SHORT_MESSAGE) {
  if (text.length <= limit) return text;
  const cut = text.slice(0, limit - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > 0 ? cut.slice(0, space) : cut).replace(/[ ,;:(]+$/, "")}…`;
}

/**
 * The leaf list for a server: switches that fit first, the rest marked with the reason.
 * @param {{server: string, known: boolean, switches: {slug: string, name: string, fits: boolean, reason: string}[]}} fit
 * @returns {{label: string, options: {value: string, text: string, title: string}[]}[]}
 */
export function leafGroups(fit) {
  const text = (row) => (row.name && row.name !== row.slug ? `${row.slug} — ${row.name}` : row.slug);
  if (!fit.known) {
    return [{ label: "", options: fit.switches.map((row) => ({ value: row.slug, text: text(row), title: "" })) }];
  }
  return [
    {
      label: `Can connect to ${fit.server}`,
      options: fit.switches.filter((r) => r.fits).map((row) => ({ value: row.slug, text: text(row), title: "" })),
    },
    {
      label: `Cannot connect to ${fit.server}`,
      options: fit.switches.filter((r) => !r.fits).map((row) => ({
        value: row.slug,
        text: `${row.slug} — cannot connect to ${fit.server}: ${shortMessage(row.reason, 90)}`,
        title: row.reason,
      })),
    },
  ];
}

const BOOLEAN_TEXT = { true: "yes", false: "no" };

/**
 * The transport step for the fields as they are (as planner/designs/wizard_transport.py
 * transport_view): the transport it runs, each field's default (`default`, `help`, `url`),
 * the three lists' empty entries and the server NIC's heading.
 * @param {Record<string, any>} table the server's `transport-defaults`
 * @param {Record<string, string>} values form field name -> value (leaf, server, transport_*)
 * @returns {{kind: string, fields: Record<string, {default: string, help: string, url: string}>,
 *   blanks: Record<string, string>, nic: string, nic_heading: string}}
 */
export function transportView(table, values) {
  const leaf = table.leaves?.[values.leaf ?? ""] ?? null;
  const server = table.servers?.[values.server ?? ""] ?? null;
  const names = table.names ?? {};
  const kind = values.transport_type || leaf?.type || "";
  let profile = values.transport_profile || leaf?.profile || "custom";
  if (!(profile in (table.switch_profiles ?? {}))) profile = "custom";
  let nicProfile = values.transport_nic_profile || server?.nic_profile || "";
  if (!(nicProfile in (table.nic_profiles ?? {}))) nicProfile = "custom";
  const fields = {};
  for (const [key, entry] of Object.entries(table.switch_profiles?.[profile] ?? {})) fields[`transport_${key}`] = entry;
  for (const [key, entry] of Object.entries(table.nic_profiles?.[nicProfile] ?? {})) fields[`transport_nic_${key}`] = entry;
  for (const [key, entry] of Object.entries(table.infiniband ?? {})) fields[`transport_${key}`] = entry;
  if (leaf && table.infiniband?.sharp) {
    fields.transport_sharp = { ...table.infiniband.sharp, default: BOOLEAN_TEXT[Boolean(leaf.sharp)] };
  }
  const leafName = values.leaf || "the leaf switch";
  const blanks = leaf
    ? {
        transport_type: `Default: ${names.transport?.[leaf.type]} (from ${leafName})`,
        transport_profile: `Default: ${names.switch_profile?.[leaf.profile]} (from ${leafName})`,
      }
    : { transport_type: "Default: from the leaf switch", transport_profile: "Default: from the leaf switch" };
  const nic = server?.nic ?? "";
  blanks.transport_nic_profile = server
    ? `Default: ${names.nic_profile?.[server.nic_profile]} (from ${nic})`
    : "Default: from the NIC's maker";
  const name = server?.nic_name ?? "";
  const heading = nic ? `Server NIC ${nic}${name && name !== nic ? ` (${name})` : ""}` : "";
  return { kind, fields, blanks, nic, nic_heading: heading || "The server's NIC" };
}

// --- DOM -------------------------------------------------------------------------------------

function readValues(form) {
  const values = {};
  for (const [key, value] of new FormData(form).entries()) {
    if (typeof value === "string") values[key] = value;
  }
  return values;
}

function writeValues(form, values) {
  for (const [name, value] of Object.entries(values)) {
    const input = form.elements.namedItem(name);
    if (input?.type === "checkbox") input.checked = value === "on";
    else if (input && "value" in input) input.value = value;
  }
}

/** A network step's fields show while its box is ticked; the shared ones while any is, or
 * while one of them is filled. */
function showNetworkFields(form) {
  let any = false;
  for (const step of form.querySelectorAll("[data-network]")) {
    const on = Boolean(form.elements.namedItem(`network_${step.dataset.network}`)?.checked);
    any ||= on;
    const fields = step.querySelector("[data-network-fields]");
    if (fields) fields.hidden = !on;
  }
  const shared = form.querySelector("[data-network-shared]");
  if (shared) {
    const filled = [...shared.querySelectorAll("input")].some((input) => input.value.trim());
    shared.hidden = !(any || filled);
  }
}

/**
 * A form control by name (an input, a select or a textarea, or a radio group's list), typed
 * as what the wizard reads and sets on them: value, placeholder, tagName, its options.
 * @param {HTMLFormElement} form
 * @param {string} name
 * @returns {(HTMLInputElement & HTMLSelectElement) | null}
 */
function control(form, name) {
  return /** @type {any} */ (form.elements.namedItem(name));
}

/**
 * Each network field's default for `server`: a box's placeholder, a switch list's empty entry.
 * @param {HTMLFormElement} form
 * @param {{defaults: Record<string, Record<string, any>>, switch_blank: Record<string, Record<string, any>>}} table per
 *   server with reference defaults, and "other" for the rest (forms.network_placeholders)
 * @param {string} server
 */
function showNetworkDefaults(form, table, server) {
  if (!table?.defaults) return;
  const family = server in table.defaults ? server : "other";
  for (const [name, text] of Object.entries(table.defaults[family] ?? {})) {
    const input = control(form, name);
    if (!input) continue;
    if (input.tagName === "SELECT") {
      const blank = input.querySelector("option[value='']");
      const label = table.switch_blank?.[family]?.[name];
      if (blank && label) blank.textContent = label;
    } else if (input.tagName === "INPUT") {
      input.placeholder = text;
    }
  }
}

/**
 * The transport step for the fields as they are now: the chosen transport's fields shown,
 * each empty field's default (a box's placeholder, a list's empty entry) and its source.
 * The three fields whose help the server wrote itself (transport, the two profiles) keep it.
 * @param {HTMLFormElement} form
 * @param {Record<string, any>} table the server's `transport-defaults`
 */
function showTransport(form, table) {
  const step = form.querySelector("[data-transport]");
  if (!step || !table?.leaves) return;
  const values = {};
  for (const name of ["leaf", "server", "transport_type", "transport_profile", "transport_nic_profile"]) {
    values[name] = control(form, name)?.value ?? "";
  }
  const view = transportView(table, values);
  for (const section of /** @type {NodeListOf<HTMLElement>} */ (step.querySelectorAll("[data-transport-kind]"))) {
    const other = section.dataset.transportKind === "roce" ? "infiniband" : "roce";
    section.hidden = view.kind === other;
  }
  const heading = step.querySelector("[data-transport-nic-heading]");
  if (heading) heading.textContent = view.nic_heading;
  const blankOption = (name) => control(form, name)?.querySelector?.("option[value='']");
  for (const [name, label] of Object.entries(view.blanks)) {
    const blank = blankOption(name);
    if (blank) blank.textContent = label;
  }
  for (const [name, entry] of Object.entries(view.fields)) {
    const input = control(form, name);
    if (!input || name in view.blanks) continue;
    if (input.tagName === "SELECT") {
      const blank = blankOption(name);
      if (blank) blank.textContent = entry.default ? `Default: ${entry.default}` : "No default";
    } else {
      input.placeholder = entry.default || "no default";
    }
    const help = step.querySelector(`#id_${name}_helptext`);
    const text = help?.querySelector("[data-help-text]");
    const link = /** @type {HTMLElement|null} */ (help?.querySelector("[data-help-link]"));
    if (text) text.textContent = entry.help;
    if (link) {
      link.hidden = !entry.url;
      link.setAttribute("href", entry.url || "#");
    }
  }
}

function showTopologyFields(form) {
  const topology = form.elements.namedItem("topology")?.value;
  for (const wrapper of form.querySelectorAll("[data-topologies]")) {
    wrapper.hidden = !wrapper.dataset.topologies.split(" ").includes(topology);
  }
}

function element(doc, tag, attrs = {}, text = "") {
  const el = doc.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, value);
  if (text) el.textContent = text;
  return el;
}

function renderSummary(panel, summary, networkLabels = {}) {
  const doc = panel.ownerDocument;
  const body = panel.querySelector("[data-summary-body]");
  body.replaceChildren();
  const figures = element(doc, "dl", { class: "figures" });
  for (const figure of summaryFigures(summary)) {
    const box = element(doc, "div", { class: "figure" });
    box.append(element(doc, "dt", {}, figure.label));
    box.append(element(doc, "dd", { "data-testid": `summary-${figure.id}` }, figure.value));
    figures.append(box);
  }
  body.append(figures);
  for (const table of summaryTables(summary, networkLabels)) {
    if (!table.rows.length) continue;
    const el = element(doc, "table", table.id ? { class: "table compact", "data-testid": `summary-${table.id}` } : { class: "table compact" });
    el.append(element(doc, "caption", {}, table.title));
    const head = element(doc, "tr");
    table.head.forEach((h, i) => head.append(element(doc, "th", { scope: "col", class: i && i === table.head.length - 1 ? "num" : "" }, h)));
    const thead = element(doc, "thead");
    thead.append(head);
    el.append(thead);
    const tbody = element(doc, "tbody");
    for (const row of table.rows) {
      const tr = element(doc, "tr");
      row.forEach((cell, i) => tr.append(element(doc, "td", { class: i && i === row.length - 1 ? "num" : "" }, cell)));
      tbody.append(tr);
    }
    el.append(tbody);
    body.append(el);
  }
}

function showProblems(form, panel, problems, fromText, touched = new Set()) {
  const doc = form.ownerDocument;
  for (const old of form.querySelectorAll("[data-live-problem]")) old.remove();
  for (const field of form.querySelectorAll("[aria-invalid='true']")) field.removeAttribute("aria-invalid");
  const general = panel.querySelector("[data-summary-problems]");
  general.replaceChildren();
  for (const [target, messages] of problemsByField(problems, fromText)) {
    const wrapper = target && form.querySelector(`[data-field="${target}"]`);
    const visible = wrapper && !wrapper.hidden && !wrapper.closest("[hidden]");
    if (visible) {
      // The live check supersedes the errors the last save rendered here: each shows once.
      for (const old of wrapper.querySelectorAll(":scope > .errorlist")) old.remove();
      const input = wrapper.querySelector("input, select, textarea");
      const pending = !touched.has(target) && input && !input.value.trim();
      const note = element(doc, "div", { class: pending ? "help" : "error", "data-live-problem": target });
      for (const message of messages) note.append(messageElement(doc, message));
      wrapper.append(note);
      if (!pending) input?.setAttribute("aria-invalid", "true");
    } else {
      for (const message of messages) {
        const item = element(doc, "li");
        item.append(messageElement(doc, message));
        general.append(item);
      }
    }
  }
  general.hidden = !general.children.length;
}

/** A message as a paragraph; a long one cut, with the whole text under "more". */
function messageElement(doc, message) {
  const short = shortMessage(message);
  if (short === message) return element(doc, "p", {}, message);
  const box = element(doc, "details", { class: "more" });
  box.append(element(doc, "summary", {}, short), element(doc, "p", {}, message));
  return box;
}

/** The first problem shown by a field (not a pending hint), scrolled to and focused. */
function focusFirstProblem(form) {
  const first = form.querySelector("[aria-invalid='true'], .field .errorlist");
  const wrapper = first?.closest(".field");
  const input = wrapper?.querySelector("input, select, textarea") ?? first;
  if (!input) return false;
  wrapper.closest("details")?.setAttribute("open", "");
  input.scrollIntoView({ block: "center" });
  input.focus({ preventScroll: true });
  return true;
}

/**
 * Start the wizard on `root` if it has a `form[data-wizard]` (the design wizard page).
 * @param {Document|HTMLElement} root
 * @param {(url: string, init: Record<string, any>) => Promise<Response>} [fetchFn]
 */
export function startWizard(root, fetchFn = (url, init) => fetch(url, init)) {
  const form = /** @type {HTMLFormElement|null} */ (root.querySelector?.("form[data-wizard]"));
  if (!form) return;
  const doc = form.ownerDocument;
  const panel = /** @type {HTMLElement} */ (doc.querySelector("[data-summary-panel]"));
  const status = panel.querySelector("[data-summary-status]");
  const presets = JSON.parse(doc.getElementById("design-presets")?.textContent || "[]");
  const networkTable = JSON.parse(doc.getElementById("network-placeholders")?.textContent || "{}");
  const transportTable = JSON.parse(doc.getElementById("transport-defaults")?.textContent || "{}");
  const token = /** @type {HTMLInputElement|null} */ (form.querySelector("input[name=csrfmiddlewaretoken]"))?.value ?? "";
  const fromText = () => control(form, "source")?.value === "text";
  let sequence = 0;
  // Fields the user has changed: a required field left empty before then is a hint, not an
  // error. After a save that failed, every field counts (the errors are the user's).
  const touched = new Set();
  const saved = Boolean(form.querySelector(".errorlist, .problems"));
  if (saved) for (const el of /** @type {Iterable<HTMLInputElement>} */ (form.elements)) if (el.name) touched.add(el.name);
  const stale = element(doc, "p", { class: "stale-note", "data-summary-stale": "" }, "Fix the errors to update the summary.");
  stale.hidden = true;
  const jump = element(doc, "button", { type: "button", class: "linklike", "data-summary-jump": "" }, "Go to the first problem");
  jump.hidden = true;
  jump.addEventListener("click", () => focusFirstProblem(form));
  panel.querySelector(".summary-head").after(stale, jump);

  // Ask for the summary of the form as it is now (of the fields, with `fields`, whatever the
  // source). Answers the server's body, also when a newer request has overtaken this one.
  const refresh = async ({ fields = false } = {}) => {
    const mine = ++sequence;
    const text = fromText() && !fields;
    panel.dataset.state = "loading";
    panel.setAttribute("aria-busy", "true");
    status.textContent = "Updating…";
    let response;
    let data;
    try {
      response = await fetchFn(form.dataset.summaryUrl, {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRFToken": token, Accept: "application/json" },
        body: JSON.stringify(summaryRequest(readValues(form), text)),
      });
      data = await response.json().catch(() => ({}));
    } catch (error) {
      response = null;
      data = { problems: [{ field: "", message: `The server did not answer: ${error.message}` }] };
    }
    if (mine !== sequence) return data; // a newer request is on its way
    panel.removeAttribute("aria-busy");
    if (response && response.ok && !data.problems) {
      panel.dataset.state = "ok";
      status.textContent = "Up to date";
      stale.hidden = true;
      jump.hidden = true;
      showProblems(form, panel, [], false, touched);
      renderSummary(panel, data, networkTable.labels ?? {});
    } else {
      const problems = data.problems ?? [{ field: "", message: data.detail ?? `Error ${response?.status}` }];
      showProblems(form, panel, problems, text, touched);
      const pending = !form.querySelector("[aria-invalid='true']") && !panel.querySelector("[data-summary-problems] li");
      panel.dataset.state = pending ? "pending" : "problems";
      status.textContent = pending ? "Fill in the fields marked below" : "Cannot be built — see the problems";
      stale.hidden = !panel.querySelector("[data-summary-body] .figures");
      jump.hidden = pending;
    }
    return data;
  };
  const schedule = debounce(refresh, DEBOUNCE_MS);

  const refreshLeaves = async () => {
    const server = control(form, "server")?.value;
    const leaf = control(form, "leaf");
    if (!server || !leaf || !form.dataset.leafOptionsUrl) return;
    let fit;
    try {
      const url = `${form.dataset.leafOptionsUrl}?server=${encodeURIComponent(server)}`;
      const response = await fetchFn(url, { credentials: "same-origin", headers: { Accept: "application/json" } });
      if (!response.ok) return;
      fit = await response.json();
    } catch {
      return; // the list stays as it was; the summary still names any problem
    }
    if (control(form, "server")?.value !== server) return;
    const chosen = leaf.value;
    leaf.replaceChildren();
    for (const group of leafGroups(fit)) {
      const parent = group.label ? element(doc, "optgroup", { label: group.label }) : leaf;
      for (const option of group.options) {
        const el = element(doc, "option", option.title ? { value: option.value, title: option.title } : { value: option.value }, option.text);
        parent.append(el);
      }
      if (parent !== leaf) leaf.append(parent);
    }
    leaf.value = chosen;
    if (leaf.value !== chosen) leaf.value = fit.switches.find((r) => r.fits)?.slug ?? "";
  };

  form.addEventListener("input", (event) => {
    const target = /** @type {HTMLInputElement} */ (event.target);
    touched.add(target.name);
    target.closest(".field")?.querySelector(":scope > .errorlist")?.remove();
    schedule();
  });
  form.addEventListener("change", (event) => {
    const target = /** @type {HTMLInputElement} */ (event.target);
    touched.add(target.name);
    if (target.name === "topology") showTopologyFields(form);
    if (target.name?.startsWith("network_")) showNetworkFields(form);
    if (["leaf", "transport_type", "transport_profile", "transport_nic_profile"].includes(target.name)) {
      showTransport(form, transportTable);
    }
    if (target.name === "server") {
      showNetworkDefaults(form, networkTable, target.value);
      showTransport(form, transportTable);
      refreshLeaves()
        .then(() => showTransport(form, transportTable))
        .then(schedule);
      return;
    }
    schedule();
  });
  for (const button of /** @type {NodeListOf<HTMLElement>} */ (doc.querySelectorAll("[data-preset]"))) {
    button.addEventListener("click", (event) => {
      event.preventDefault();
      const preset = presets.find((p) => p.slug === button.dataset.preset);
      if (!preset) return;
      // Every field, as the server maps the preset's spec (forms.fields_from_spec).
      writeValues(form, preset.fields ?? {});
      for (const el of /** @type {Iterable<HTMLInputElement>} */ (form.elements)) if (el.name) touched.add(el.name);
      // A preset the fields cannot show whole (a networks block) comes as its YAML text.
      const source = preset.fields?.source === "text" ? "text" : "form";
      const radio = /** @type {HTMLInputElement|null} */ (form.querySelector(`input[name=source][value=${source}]`));
      if (radio) radio.checked = true;
      const text = /** @type {HTMLDetailsElement|null} */ (form.querySelector("details.spec-text"));
      if (text) text.open = source === "text";
      showTopologyFields(form);
      showNetworkFields(form);
      showNetworkDefaults(form, networkTable, preset.fields?.server ?? "");
      showTransport(form, transportTable);
      refreshLeaves()
        .then(() => writeValues(form, { leaf: preset.fields?.leaf ?? "" }))
        .then(() => showTransport(form, transportTable))
        .then(() => refresh());
    });
  }
  // The fields as text: the spec the server builds from them (also when it has problems).
  doc.querySelector("[data-copy-spec]")?.addEventListener("click", async () => {
    const { spec } = await refresh({ fields: true });
    if (!spec || typeof spec !== "object") return; // no answer: the problem is shown
    control(form, "spec_text").value = JSON.stringify(spec, null, 2);
    const textSource = /** @type {HTMLInputElement|null} */ (form.querySelector("input[name=source][value=text]"));
    if (textSource) textSource.checked = true;
    schedule();
  });
  showTopologyFields(form);
  showNetworkFields(form);
  if (saved) focusFirstProblem(form); // the save failed: show where, even below the fold
  refresh();
}
