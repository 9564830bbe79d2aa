// The inspector's pure part: the facts (term, value) it lists for the view, an aggregate, a
// group, a device, a bundle or a link. No DOM, no cytoscape: callers pass element data and the
// counts they looked up; `shownFacts` drops what is unknown.

import { endText, formatBandwidth, formatCount, formatUtilization } from "./format.js";
import { formatPower } from "./heat.js";
import { NETWORK_LABELS } from "./layers.js";
import { measuredFacts } from "./measured.js";

/**
 * The facts worth showing, values as text: unknown ones (null, undefined, "") are left out.
 * @param {[string, unknown][]} list
 * @returns {[string, string][]}
 */
export function shownFacts(list) {
  return list.filter(([, value]) => value !== null && value !== undefined && value !== "").map(([term, value]) => [term, String(value)]);
}

/**
 * What the view holds when nothing is selected.
 * @param {{view: string, devices: number, links: number, aggregates: number, bundles: number,
 *   networkDevices?: number, networkLinks?: number, editable: boolean, reason?: string}} view
 *   `view`: its label ("Overview", "SU 1", ...); network*: nodes and edges of the other networks
 * @returns {[string, unknown][]}
 */
export function viewFacts({ view, devices, links, aggregates, bundles, networkDevices = 0, networkLinks = 0, editable, reason }) {
  return [
    ["View", view],
    ["Devices", devices ? formatCount(devices) : null],
    ["Links", links ? formatCount(links) : null],
    ["Aggregates", aggregates ? formatCount(aggregates) : null],
    ["Bundles", bundles || null],
    ["Other networks' nodes", networkDevices ? formatCount(networkDevices) : null],
    ["Other networks' edges", networkLinks ? formatCount(networkLinks) : null],
    ["Editing", editable ? "allowed" : reason || "read-only"],
  ];
}

/**
 * What a multiple selection holds: "3 nodes and 2 edges selected."
 * @param {number} nodes
 * @param {number} edges
 * @returns {string}
 */
export function selectionSummary(nodes, edges) {
  return `${nodes} nodes and ${edges} edges selected.`;
}

/**
 * An aggregate of the overview (many devices drawn as one).
 * @param {Record<string, any>} data node data
 * @returns {[string, unknown][]}
 */
export function aggregateFacts(data) {
  return [["Kind", "aggregate"], ["Role", data.role], ["Model", data.model], ["Devices", formatCount(data.count)], ["Scope", data.scope]];
}

/**
 * A group (SU, rail, rack) and the devices inside it.
 * @param {Record<string, any>} data node data
 * @param {number} inside devices in the group, collapsed or not
 * @returns {[string, unknown][]}
 */
export function groupFacts(data, inside) {
  return [["Kind", "group"], ["Devices", formatCount(inside)], ["SU", data.su], ["Rail", data.rail], ["Rack", data.rack], ["Rack power", data.power_label]];
}

/**
 * A model's power from the catalog: "1.1 kW typical, 1.72 kW max", or null when unknown.
 * @param {{power_typical_w?: number|null, power_max_w?: number|null, [key: string]: any}|null|undefined} info
 * @returns {string|null}
 */
export function powerText(info) {
  if (!(info?.power_typical_w || info?.power_max_w)) return null;
  return [info.power_typical_w && `${formatPower(info.power_typical_w)} typical`, info.power_max_w && `${formatPower(info.power_max_w)} max`].filter(Boolean).join(", ");
}

/**
 * A device: model, role, ports used and free, speed, place in the fabric, power.
 * @param {Record<string, any>} data node data
 * @param {{ports?: number|null, speed_gbps?: number|null}|null|undefined} info its catalog entry, when known
 * @param {number} used ports in use
 * @returns {[string, unknown][]}
 */
export function deviceFacts(data, info, used) {
  const total = data.ports || info?.ports || 0;
  const speed = data.speed_gbps ?? info?.speed_gbps;
  return [
    ["Model", data.model],
    ["Role", data.role],
    ["Ports used", total ? `${used} of ${total}` : null],
    ["Ports free", total ? total - used : null],
    ["Port speed", speed ? `${speed} Gb/s` : null],
    ["Rack", data.rack],
    ["RU", data.ru],
    ["SU", data.su],
    ["Rail", data.rail],
    ["Plane", data.plane],
    ["Compute trays", data.compute_trays ? formatCount(data.compute_trays) : null],
    ["GPUs", data.gpus ? formatCount(data.gpus) : null],
    ["Power", powerText(info)],
  ];
}

/**
 * The trays of a rack-scale system (GB300-NVL72: one node per rack), each with a summary
 * line and a table of its NICs: which leaf and leaf port each reaches, per plane. The plane
 * column is left out when every NIC is on plane 1.
 * Ports by their names (`port_name`, `peer_port_name`: "tray 2 NIC 1", "9/2"), else numbers.
 * @param {{tray: number, gpus?: number|null, nics: {rail: number, plane: number, port: number,
 *   port_name?: string, peer: string|null, peer_port: number|null, peer_port_name?: string|null}[]}[]|null|undefined} trays node data `trays`
 * @returns {{tray: number, summary: string, headers: string[], rows: string[][]}[]}
 */
export function trayTables(trays) {
  const list = trays ?? [];
  const planes = list.some((tray) => tray.nics.some((nic) => nic.plane > 1));
  const headers = ["NIC", ...(planes ? ["Plane"] : []), "Rack port", "Leaf", "Leaf port"];
  return list.map((tray) => {
    const rails = new Set(tray.nics.map((nic) => nic.rail)).size;
    const parts = [`Tray ${formatCount(tray.tray)}`];
    if (tray.gpus) parts.push(`${formatCount(tray.gpus)} GPUs`);
    parts.push(`${formatCount(rails)} ${rails === 1 ? "NIC" : "NICs"}`);
    const rows = tray.nics.map((nic) => [
      formatCount(nic.rail),
      ...(planes ? [formatCount(nic.plane)] : []),
      nic.port_name ?? formatCount(nic.port),
      nic.peer ?? "not connected",
      nic.peer_port_name ?? (nic.peer_port ? formatCount(nic.peer_port) : "—"),
    ]);
    return { tray: tray.tray, summary: parts.join(" · "), headers, rows };
  });
}

/**
 * A bundle of the overview (many links drawn as one).
 * @param {Record<string, any>} data edge data
 * @returns {[string, unknown][]}
 */
export function bundleFacts(data) {
  return [["Kind", "bundle"], ["Tier", data.tier], ["Links", formatCount(data.links)], ["Bandwidth", formatBandwidth(data.bandwidth_gbps)], ["Utilization", formatUtilization(data.utilization)]];
}

/**
 * A link: both ends by device and port (the port's name, `a_port_name`, as every page names
 * it; else its number), tier, speed, length, media and parts.
 * @param {string} a the A end's device name
 * @param {string} b the B end's device name
 * @param {Record<string, any>} data edge data
 * @returns {[string, unknown][]}
 */
export function linkFacts(a, b, data) {
  return [
    ["A end", endText(a, data.a_port_name ?? data.a_port)],
    ["B end", endText(b, data.b_port_name ?? data.b_port)],
    ["Tier", data.tier],
    ["Speed", data.speed_gbps ? `${data.speed_gbps} Gb/s` : null],
    ["Length", data.length_m !== null && data.length_m !== undefined ? `${data.length_m} m` : null],
    ["Media", data.media_kind],
    ["A-side part", data.a_part],
    ["B-side part", data.b_part],
    ["Cable", data.cable],
    ["Utilization", formatUtilization(data.utilization)],
    ...measuredFacts(data.measured),
  ];
}

/**
 * "storage 3 · OOB 1": counts per network, by the networks' names.
 * @param {Object<string, number>|null|undefined} counts
 * @returns {string|null}
 */
function byNetwork(counts) {
  const entries = Object.entries(counts ?? {});
  if (!entries.length) return null;
  return entries.map(([network, n]) => `${NETWORK_LABELS[network] ?? network} ${formatCount(n)}`).join(" · ");
}

/**
 * A device of another network (storage, in-band, OOB switch; storage array, UFM appliance,
 * management node): model, role, network, rack and its links.
 * @param {Record<string, any>} data node data
 * @returns {[string, unknown][]}
 */
export function networkDeviceFacts(data) {
  return [
    ["Model", data.model || "not named (outside the plan)"],
    ["Role", data.role ? String(data.role).replace(/-/g, " ") : null],
    ["Network", NETWORK_LABELS[data.network] ?? data.network],
    ["Rack", data.rack ?? "not placed"],
    ["RU", data.ru],
    ["Links", formatCount(data.links ?? 0)],
    ["Links by network", byNetwork(data.links_by_network)],
  ];
}

/**
 * Devices of another network drawn as one node, or an OOB switch's managed ports.
 * @param {Record<string, any>} data node data
 * @returns {[string, unknown][]}
 */
export function networkAggregateFacts(data) {
  if (data.role === "managed") {
    const racks = data.racks ?? [];
    return [
      ["Network", NETWORK_LABELS.oob],
      ["OOB switch", data.switch ?? "every OOB switch"],
      ["Managed ports", `${formatCount(data.count)} × 1 Gb/s`],
      ["Serving", Object.entries(data.managed ?? {}).map(([what, n]) => `${formatCount(n)} ${what}`).join(", ") || null],
      ["Racks", racks.length ? `${formatCount(racks.length)}: ${racks.slice(0, 12).join(", ")}${racks.length > 12 ? ", …" : ""}` : null],
    ];
  }
  const models = Object.entries(data.models ?? {}).map(([model, n]) => `${model} × ${formatCount(n)}`).join(", ");
  return [
    ["Network", NETWORK_LABELS[data.network] ?? data.network],
    ["Role", data.role ? String(data.role).replace(/-/g, " ") : null],
    ["Devices", formatCount(data.count)],
    ["Models", models || null],
  ];
}

/**
 * A link of another network: both ends by device and port, group, speed, cable and optics.
 * @param {string} a the A end's device name
 * @param {string} b the B end's device name
 * @param {Record<string, any>} data edge data
 * @returns {[string, unknown][]}
 */
export function networkLinkFacts(a, b, data) {
  return [
    ["A end", endText(a, data.a_port)],
    ["B end", endText(b, data.b_port)],
    ["Network", NETWORK_LABELS[data.network] ?? data.network],
    ["Links", data.group],
    ["Speed", data.speed_gbps ? formatBandwidth(data.speed_gbps) : null],
    ["Cable", [data.cable_kind, data.cable].filter(Boolean).join(" · ") || null],
    ["A-side part", data.a_part],
    ["B-side part", data.b_part],
    ["Length", data.length_m !== null && data.length_m !== undefined ? `${data.length_m} m` : null],
  ];
}

/**
 * Links of another network drawn as one edge.
 * @param {Record<string, any>} data edge data
 * @returns {[string, unknown][]}
 */
export function networkBundleFacts(data) {
  return [
    ["Network", NETWORK_LABELS[data.network] ?? data.network],
    ["Links", formatCount(data.links)],
    ["Bandwidth", formatBandwidth(data.bandwidth_gbps)],
    ["Link groups", Object.entries(data.groups ?? {}).map(([group, n]) => `${group} ${formatCount(n)}`).join(", ") || null],
  ];
}
