// Network layers of a cluster design (compute, storage, converged, in-band, OOB): the
// "Networks" control's choices, each layer's colour (the canvas style and the control's
// swatches share them, so the control is the legend), and which elements a set of hidden
// layers hides. No DOM, no cytoscape: functions take the API's `networks` list and element data.

import { formatCount } from "./format.js";

/** Layers in the control's order. */
export const LAYER_ORDER = ["compute", "storage", "converged", "inband", "oob"];

/** Colour of each layer's devices and links (compute devices keep their role colours). */
export const LAYER_COLORS = {
  compute: "#3d6fb6",
  storage: "#0e7c86",
  converged: "#a3237a",
  inband: "#946c00",
  oob: "#52606d",
};

/** A network's name in words (devices of the management systems included). */
export const NETWORK_LABELS = {
  compute: "Compute",
  storage: "Storage",
  converged: "Converged",
  inband: "In-band",
  oob: "OOB",
  management: "Management",
};

function plural(count, one, many) {
  return `${formatCount(count)} ${count === 1 ? one : many}`;
}

/**
 * The choices of the Networks control: one per layer the design has, compute first, each
 * with its colour and what it holds ("16 devices · 602 links"); none when the design has only
 * its compute fabric (the control is hidden).
 * @param {{id: string, label?: string, devices?: number, links?: number, managed_ports?: number}[]|null|undefined} networks
 * @returns {{id: string, label: string, color: string, detail: string}[]}
 */
export function layerChoices(networks) {
  const list = (networks ?? []).filter((n) => LAYER_ORDER.includes(n.id));
  if (list.length <= 1) return [];
  list.sort((a, b) => LAYER_ORDER.indexOf(a.id) - LAYER_ORDER.indexOf(b.id));
  return list.map((n) => {
    const parts = [plural(Number(n.devices) || 0, "device", "devices"), plural(Number(n.links) || 0, "link", "links")];
    if (n.managed_ports) parts.push(`${plural(n.managed_ports, "managed port", "managed ports")} drawn per OOB switch`);
    return { id: n.id, label: n.label ?? NETWORK_LABELS[n.id] ?? n.id, color: LAYER_COLORS[n.id] ?? "#6b7a90", detail: parts.join(" · ") };
  });
}

/**
 * The layers that show an element: its `layers` (a server reached by storage is in compute
 * and storage), else its `network`, else compute.
 * @param {{layers?: string[], network?: string, [key: string]: any}} data
 * @returns {string[]}
 */
export function elementLayers(data) {
  if (Array.isArray(data.layers) && data.layers.length) return data.layers;
  return [data.network ?? "compute"];
}

/**
 * Whether an element shows while `hidden` layers are switched off: while any of its layers
 * is on.
 * @param {{layers?: string[], network?: string, [key: string]: any}} data
 * @param {Set<string>} hidden
 * @returns {boolean}
 */
export function shownWith(data, hidden) {
  return elementLayers(data).some((layer) => !hidden.has(layer));
}

/**
 * What the status line says after a toggle: "Storage hidden: 1,234 of 3,203 elements shown."
 * @param {{id: string, label: string}[]} choices
 * @param {Set<string>} hidden
 * @param {number} shown elements shown
 * @param {number} total elements of the view
 * @returns {string}
 */
export function layerStatus(choices, hidden, shown, total) {
  const off = choices.filter((c) => hidden.has(c.id)).map((c) => c.label);
  const count = `${formatCount(shown)} of ${formatCount(total)} elements shown.`;
  if (!off.length) return `Every network shown: ${count}`;
  return `${off.join(", ")} hidden: ${count}`;
}
