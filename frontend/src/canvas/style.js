// The cytoscape stylesheet of the canvas: devices by role, aggregates, compound groups,
// links and bundles, the other networks' layers (colours shared with the Networks control),
// and the classes overlays and edits set (problem, found, heat, power, layer-off).

import { LAYER_COLORS } from "./layers.js";

export const ROLE_COLORS = {
  server: "#3d6fb6",
  manager: "#6b7a90",
  leaf: "#1b7f3b",
  spine: "#7a3fb0",
  core: "#b35a00",
};

const ROLE_SHAPES = { server: "round-rectangle", leaf: "rectangle", spine: "hexagon", core: "octagon", manager: "ellipse" };

/** Shapes of the other networks' devices by role (their colour is their layer's). */
const NETWORK_SHAPES = {
  leaf: "rectangle",
  "storage-leaf": "rectangle",
  spine: "hexagon",
  core: "octagon",
  "storage-array": "barrel",
  "nfs-storage": "barrel",
  "management-node": "round-rectangle",
  ufm: "ellipse",
  "customer-core": "diamond",
};

/** Rules for the network layers: devices and aggregates in their layer's colour, links too. */
function networkRules() {
  /** @type {{selector: string, style: Record<string, any>}[]} */
  const rules = [
    {
      selector: "node[kind = 'network-device']",
      style: { width: 30, height: 20, "font-size": 9, shape: "round-rectangle" },
    },
    {
      selector: "node[kind = 'network-aggregate']",
      style: {
        shape: "round-rectangle",
        width: 150,
        height: 48,
        "text-valign": "center",
        "text-wrap": "wrap",
        "text-max-width": 142,
        color: "#ffffff",
        "font-size": 11,
        "font-weight": 600,
        label: "data(display)",
        "text-margin-y": 0,
        "min-zoomed-font-size": 7,
      },
    },
    { selector: "node[kind = 'network-aggregate'][role = 'managed']", style: { "border-style": "dashed", "border-width": 2, "border-color": "#1d2330" } },
    {
      selector: "edge[kind = 'network-bundle']",
      style: {
        width: "mapData(links, 1, 512, 2, 10)",
        label: "data(label)",
        "font-size": 10,
        "text-background-color": "#ffffff",
        "text-background-opacity": 0.85,
        "text-background-padding": 2,
        "text-rotation": "autorotate",
        "min-zoomed-font-size": 8,
        "curve-style": "bezier",
        color: "#1d2330",
      },
    },
    { selector: "edge[network = 'oob']", style: { "line-style": "dashed" } },
  ];
  for (const [role, shape] of Object.entries(NETWORK_SHAPES)) {
    rules.push({ selector: `node[kind = 'network-device'][role = '${role}']`, style: { shape } });
  }
  for (const [layer, color] of Object.entries(LAYER_COLORS)) {
    if (layer === "compute") continue;
    rules.push(
      { selector: `node[kind ^= 'network'][layer = '${layer}']`, style: { "background-color": color } },
      { selector: `edge[kind ^= 'network'][network = '${layer}']`, style: { "line-color": color } },
    );
  }
  return rules;
}

/**
 * @param {{large?: boolean}} [options] large: a view with many elements (cheaper styles)
 * @returns {Record<string, any>[]}
 */
export function canvasStyle({ large = false } = {}) {
  /** @type {{selector: string, style: Record<string, any>}[]} */
  const style = [
    {
      selector: "node",
      style: {
        "font-size": 10,
        "font-family": "system-ui, sans-serif",
        color: "#1d2330",
        "text-valign": "bottom",
        "text-margin-y": 3,
        // Labels drawn smaller than 8 px are not drawn (zoom in to read them).
        "min-zoomed-font-size": large ? 9 : 8,
        width: 34,
        height: 22,
        "background-color": "#6b7a90",
        "border-width": 1,
        "border-color": "#ffffff",
      },
    },
    { selector: "node[label]", style: { label: "data(label)" } },
    {
      // A rack of compute trays ("GB300-NVL72 rack 3 · 18 trays · 72 GPUs"): wrapped under
      // the node, so that neighbouring racks' labels do not run into each other.
      selector: "node[compute_trays]",
      style: { "text-wrap": "wrap", "text-max-width": 54, "font-size": 9, "text-valign": "bottom" },
    },
    {
      selector: "node[kind = 'aggregate']",
      style: {
        shape: "round-rectangle",
        width: 120,
        height: 44,
        "text-valign": "center",
        "text-wrap": "wrap",
        "text-max-width": 112,
        color: "#ffffff",
        "font-size": 11,
        "font-weight": 600,
        label: "data(display)",
        "text-margin-y": 0,
        "min-zoomed-font-size": 7,
      },
    },
    {
      selector: "node:parent, node[kind = 'group']",
      style: {
        shape: "round-rectangle",
        "background-color": "#eef1f5",
        "background-opacity": 0.6,
        "border-width": 1,
        "border-style": "dashed",
        "border-color": "#9aa3b2",
        "text-valign": "top",
        "text-halign": "center",
        "text-margin-y": -4,
        "font-size": 12,
        "font-weight": 600,
        color: "#5b6475",
        padding: 12,
      },
    },
    {
      selector: "node.cy-expand-collapse-collapsed-node",
      style: {
        width: 90,
        height: 36,
        "background-color": "#d7dde8",
        "border-style": "solid",
        "text-valign": "center",
        "text-margin-y": 0,
        label: "data(collapsedLabel)",
        "text-wrap": "wrap",
      },
    },
    {
      selector: "edge",
      style: {
        width: 1.2,
        "line-color": "#9aa3b2",
        "curve-style": large ? "haystack" : "bezier",
        "haystack-radius": 0,
        opacity: 0.85,
      },
    },
    {
      selector: "edge[kind = 'bundle']",
      style: {
        width: "mapData(links, 1, 2048, 2, 14)",
        "line-color": "#7d8797",
        label: "data(label)",
        "font-size": 10,
        "text-background-color": "#ffffff",
        "text-background-opacity": 0.85,
        "text-background-padding": 2,
        "text-rotation": "autorotate",
        "min-zoomed-font-size": 8,
        "curve-style": "bezier",
        color: "#1d2330",
      },
    },
    {
      selector: "edge.cy-expand-collapse-collapsed-edge",
      style: {
        width: 3,
        "line-style": "dashed",
        "line-color": "#7d8797",
        "curve-style": "straight",
      },
    },
    {
      selector: "edge.cy-expand-collapse-collapsed-edge[label]",
      style: {
        label: "data(label)",
        "font-size": 9,
        "text-background-color": "#ffffff",
        "text-background-opacity": 0.85,
        "text-rotation": "autorotate",
      },
    },
    {
      selector: ":selected",
      style: { "border-width": 3, "border-color": "#1f5fbf", "line-color": "#1f5fbf", "z-index": 20 },
    },
    { selector: "edge:selected", style: { width: 3, opacity: 1 } },
    {
      selector: ".found",
      style: { "border-width": 4, "border-color": "#ff9f1c", "z-index": 30 },
    },
    {
      selector: "node.problem",
      style: { "border-width": 4, "border-color": "#b3261e", "border-style": "double", "z-index": 25 },
    },
    {
      selector: "edge.problem",
      style: { width: 4, "line-color": "#b3261e", "line-style": "dashed", opacity: 1, "z-index": 25 },
    },
    { selector: "edge.heat", style: { "line-color": "data(heat)", width: 3, opacity: 1 } },
    { selector: "edge.margin", style: { "line-color": "data(margin_color)", width: 3, opacity: 1 } },
    { selector: "edge.measured", style: { "line-color": "data(measured_color)", width: 3, opacity: 1 } },
    {
      selector: "node.power",
      style: {
        "border-width": 3,
        "border-style": "solid",
        "border-color": "data(power_color)",
        "background-color": "data(power_color)",
        "background-opacity": 0.18,
        label: "data(power_label)",
      },
    },
    { selector: "node.power-device", style: { "border-width": 3, "border-color": "data(power_color)" } },
    // edgehandles
    {
      selector: ".eh-handle",
      style: { "background-color": "#1f5fbf", width: 12, height: 12, shape: "ellipse", "overlay-opacity": 0, "border-width": 0 },
    },
    { selector: ".eh-hover, .eh-source, .eh-target", style: { "border-width": 3, "border-color": "#1f5fbf" } },
    {
      selector: ".eh-preview, .eh-ghost-edge",
      style: { "line-color": "#1f5fbf", "line-style": "dashed", width: 2, opacity: 1 },
    },
    { selector: ".eh-ghost-edge.eh-preview-active", style: { opacity: 0 } },
    ...networkRules(),
    // A label that would overlap a more important one (labels.js); shown when selected.
    { selector: ".label-crowded", style: { "text-opacity": 0 } },
    { selector: ".label-crowded:selected, .label-crowded.found", style: { "text-opacity": 1, "z-index": 40 } },
    { selector: ".layer-off", style: { display: "none" } },
  ];
  // Later rules win: roles after the base node rule, groups after roles, then overlays,
  // selection and problems last.
  const roles = Object.entries(ROLE_COLORS).map(([role, color]) => ({
    selector: `node[role = '${role}']`,
    style: { "background-color": color, shape: ROLE_SHAPES[role] },
  }));
  style.splice(1, 0, ...roles);
  const last = ["node:parent, node[kind = 'group']", "node.cy-expand-collapse-collapsed-node", "edge.heat", "edge.margin", "edge.measured", "node.power", "node.power-device", ":selected", "edge:selected", ".found", "node.problem", "edge.problem", ".layer-off"];
  for (const selector of last) {
    const index = style.findIndex((rule) => rule.selector === selector);
    style.push(style.splice(index, 1)[0]);
  }
  return style;
}
