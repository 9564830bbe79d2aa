// The device palette's pure part: a catalog row as a palette entry, its label, the node a
// click or drop adds, and where that node goes. No DOM, no cytoscape: positions and names are
// passed in as plain values.

import { freeNodeId, nextName } from "./document.js";

/**
 * A catalog row (server or switch API) as a palette entry.
 * @param {Record<string, any>} row a `/api/inventory/{servers,switches}/` row
 * @param {string} category  "server" or "switch"
 * @returns {{slug: string, name: string, category: string, ports: number|null, speed_gbps: number|null,
 *   rack_units: number|null, power_typical_w: number|null, power_max_w: number|null, gpus: number|null}}
 */
export function catalogEntry(row, category) {
  const ports = category === "server" ? row.compute_port_count : row.port_count;
  return {
    slug: row.slug,
    name: row.name,
    category,
    ports: ports ?? null,
    speed_gbps: row.port_speed_gbps ?? null,
    rack_units: row.rack_units ?? null,
    power_typical_w: row.power_typical_w ?? null,
    power_max_w: row.power_max_w ?? null,
    gpus: row.gpus ?? null,
  };
}

/**
 * The ports of an entry in short: "32 × 800G", "8 × ?G", or "ports unknown".
 * @param {{ports: number|null, speed_gbps: number|null}} entry
 * @returns {string}
 */
export function paletteDetail(entry) {
  return entry.ports ? `${entry.ports} × ${entry.speed_gbps ?? "?"}G` : "ports unknown";
}

/**
 * The accessible name of a palette button.
 * @param {{slug: string, name: string, ports: number|null, speed_gbps: number|null}} entry
 * @returns {string}
 */
export function paletteItemLabel(entry) {
  return `Add ${entry.slug} (${entry.name}, ${paletteDetail(entry)})`;
}

/**
 * The data of the device node a palette entry adds: servers are servers, switches take the
 * role picked beside the palette; the name is the next free one for that role.
 * @param {{slug: string, category: string, ports: number|null, speed_gbps: number|null}} entry
 * @param {{switchRole: string, names: Iterable<string>, exists: (id: string) => boolean}} context
 *   `names`: device names in use; `exists`: whether an element id is taken
 * @returns {{id: string, name: string, label: string, kind: "device", role: string, model: string,
 *   ports: number, speed_gbps: number|null}}
 */
export function deviceNodeData(entry, { switchRole, names, exists }) {
  const role = entry.category === "server" ? "server" : switchRole;
  const name = nextName(role, names);
  return {
    id: freeNodeId(name, exists),
    name,
    label: name,
    kind: "device",
    role,
    model: entry.slug,
    ports: entry.ports ?? 0,
    speed_gbps: entry.speed_gbps,
  };
}

/**
 * A spot near `start` that no node sits on: steps right 60 at a time, ten to a row, then a
 * row down; gives up after 200 tries (and returns the last spot tried).
 * @param {{x: number, y: number}} start
 * @param {{x: number, y: number}[]} taken positions of the nodes already drawn (not groups)
 * @returns {{x: number, y: number}}
 */
export function freeSpot(start, taken) {
  const spot = { ...start };
  const near = () => taken.some((p) => Math.abs(p.x - spot.x) < 50 && Math.abs(p.y - spot.y) < 40);
  for (let i = 0; i < 200 && near(); i += 1) {
    spot.x += 60;
    if (i % 10 === 9) {
      spot.x = start.x;
      spot.y += 60;
    }
  }
  return spot;
}

/**
 * A point on screen (relative to the canvas) in model coordinates.
 * @param {{x: number, y: number}} rendered pixels from the canvas's top left
 * @param {{x: number, y: number}} pan the canvas's pan
 * @param {number} zoom the canvas's zoom
 * @returns {{x: number, y: number}}
 */
export function modelPosition(rendered, pan, zoom) {
  return { x: (rendered.x - pan.x) / zoom, y: (rendered.y - pan.y) / zoom };
}
