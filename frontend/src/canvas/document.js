// The edit document the canvas saves, built from canvas elements, and the small rules behind
// hand edits: device names, link orientation, free ports, problem ids. No DOM, no cytoscape:
// functions take plain element data (`ele.data()`, `ele.position()`) so they run under node.

/** Lower tiers first: a link's "a" end is the lower-tier device. */
export const ROLE_RANK = { server: 0, manager: 1, leaf: 2, spine: 3, core: 4 };
export const SWITCH_ROLES = ["leaf", "spine", "core"];
/** Link fields copied from an edge into the edit document (besides a, b and the ports). */
const LINK_FIELDS = ["a_part", "b_part", "cable", "length_m", "speed_gbps"];

/**
 * The device name of a node: its `name`, else its label, else its id without "node:".
 * @param {Record<string, any>} data node data
 * @returns {string}
 */
export function nodeName(data) {
  return String(data.name ?? data.label ?? String(data.id ?? "").replace(/^node:/, ""));
}

/**
 * The next free auto-numbered name for a prefix: "leaf-3" after "leaf-1" and "leaf-2".
 * Numbers continue after the highest in use, so a deleted name is not handed out again.
 * @param {string} prefix e.g. "leaf", "server"
 * @param {Iterable<string>} taken names (and ids without "node:") already used
 * @returns {string}
 */
export function nextName(prefix, taken) {
  const pattern = new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}-(\\d+)$`);
  const used = new Set(taken);
  let highest = 0;
  for (const name of used) {
    const match = pattern.exec(name);
    if (match) highest = Math.max(highest, Number(match[1]));
  }
  let n = highest + 1;
  while (used.has(`${prefix}-${n}`)) n += 1;
  return `${prefix}-${n}`;
}

/**
 * A node id for a device name that no element uses yet ("node:<name>", "node:<name>~2", ...).
 * @param {string} name
 * @param {(id: string) => boolean} exists
 * @returns {string}
 */
export function freeNodeId(name, exists) {
  let id = `node:${name}`;
  for (let n = 2; exists(id); n += 1) id = `node:${name}~${n}`;
  return id;
}

/**
 * Whether a new name is acceptable for a device: not empty, no spaces at the ends, unique.
 * @param {string} name
 * @param {Iterable<string>} others names of the other devices
 * @returns {string|null} the problem, or null when the name is fine
 */
export function nameProblem(name, others) {
  if (!name || !name.trim()) return "Give the device a name.";
  if (name !== name.trim()) return "A name cannot start or end with a space.";
  if (name.length > 100) return "Use at most 100 characters.";
  for (const other of others) if (other === name) return `Another device is called “${name}”.`;
  return null;
}

/**
 * Order a link's ends so that "a" is the lower tier (server below leaf below spine below core).
 * @param {{id?: string, role?: string}} first the node the user dragged from
 * @param {{id?: string, role?: string}} second the node the user dropped on
 * @returns {{a: Record<string, any>, b: Record<string, any>, swapped: boolean}}
 */
export function orientLink(first, second) {
  const rank = (node) => ROLE_RANK[node.role] ?? 99;
  return rank(second) < rank(first)
    ? { a: second, b: first, swapped: true }
    : { a: first, b: second, swapped: false };
}

/**
 * The tier name of a link between two roles ("server-leaf", "leaf-spine", "spine-core").
 * @param {string} roleA
 * @param {string} roleB
 * @returns {string}
 */
export function tierOf(roleA, roleB) {
  const [low, high] = [roleA, roleB].sort((x, y) => (ROLE_RANK[x] ?? 99) - (ROLE_RANK[y] ?? 99));
  return `${low === "manager" ? "server" : low}-${high}`;
}

/** Links join adjacent tiers only; a fabric-manager endpoint hangs off a leaf like a server. */
const ADJACENT = new Set(["server-leaf", "manager-leaf", "leaf-spine", "spine-core"]);

/**
 * Why two devices cannot be linked directly, or null when their tiers are adjacent.
 * @param {{id?: string, role: string, label?: string}} a
 * @param {{id?: string, role: string, label?: string}} b
 * @returns {string|null}
 */
export function tierProblem(a, b) {
  const { a: low, b: high } = orientLink(a, b);
  if (ADJACENT.has(`${low.role}-${high.role}`)) return null;
  if (low.role === "server" && high.role === "server") {
    return "Two servers are not linked directly: link each to a leaf.";
  }
  return `A ${low.role} and a ${high.role} are not adjacent tiers: links join server–leaf, leaf–spine or spine–core.`;
}

/**
 * Ports (1-based) of a node that links already use.
 * @param {string} nodeId
 * @param {Record<string, any>[]} edges link edge data ({source, target, a_port, b_port})
 * @returns {Set<number>}
 */
export function usedPorts(nodeId, edges) {
  const used = new Set();
  for (const edge of edges) {
    if (edge.kind && edge.kind !== "link") continue;
    if (edge.source === nodeId && edge.a_port) used.add(Number(edge.a_port));
    if (edge.target === nodeId && edge.b_port) used.add(Number(edge.b_port));
  }
  return used;
}

/**
 * Free ports 1..total, lowest first.
 * @param {number} total
 * @param {Set<number>} used
 * @returns {number[]}
 */
export function freePorts(total, used) {
  const free = [];
  for (let port = 1; port <= (Number(total) || 0); port += 1) if (!used.has(port)) free.push(port);
  return free;
}

/**
 * Ports to offer for each end of a new link, or why the link cannot be made.
 * @param {{id: string, ports: number, label?: string}} a
 * @param {{id: string, ports: number, label?: string}} b
 * @param {Record<string, any>[]} edges link edge data
 * @param {{a_port?: number, b_port?: number}} [keep] ports of the link being edited (stay free)
 * @returns {{a: number[], b: number[], problem: string|null}}
 */
export function portChoices(a, b, edges, keep = {}) {
  const usedA = usedPorts(a.id, edges);
  const usedB = usedPorts(b.id, edges);
  if (keep.a_port) usedA.delete(Number(keep.a_port));
  if (keep.b_port) usedB.delete(Number(keep.b_port));
  const freeA = freePorts(a.ports, usedA);
  const freeB = freePorts(b.ports, usedB);
  let problem = null;
  const name = (node) => node.label ?? nodeName(node);
  if (!a.ports) problem = `${name(a)} has no known network ports.`;
  else if (!b.ports) problem = `${name(b)} has no known network ports.`;
  else if (!freeA.length) problem = `${name(a)} has no free port (${a.ports} used).`;
  else if (!freeB.length) problem = `${name(b)} has no free port (${b.ports} used).`;
  return { a: freeA, b: freeB, problem };
}

function present(value) {
  return value !== null && value !== undefined && value !== "";
}

/**
 * A node's entry in the edit document: its kept structure (plane, SU, rail, group, rack, RU,
 * from `edit_extra`), name, model, role and position (to 0.1).
 * @param {Record<string, any>} data node data
 * @param {{x: number, y: number}} [position]
 * @returns {Record<string, any>}
 */
export function nodeEntry(data, position) {
  const node = { ...(data.edit_extra ?? {}), name: nodeName(data), model: data.model, role: data.role };
  if (position) {
    node.x = Math.round(position.x * 10) / 10;
    node.y = Math.round(position.y * 10) / 10;
  }
  return node;
}

/**
 * A link's entry in the edit document: its ends by device name, 1-based ports and the fields
 * given (parts, cable, length, speed).
 * @param {Record<string, any>} data link edge data
 * @param {string} a name of the source device
 * @param {string} b name of the target device
 * @returns {Record<string, any>}
 */
export function linkEntry(data, a, b) {
  const link = { a, a_port: Number(data.a_port), b, b_port: Number(data.b_port) };
  for (const key of LINK_FIELDS) if (present(data[key])) link[key] = data[key];
  return link;
}

/**
 * The edit document of the drawing (PUT /topology/ body without base_revision), and which
 * element each `link:<i>` of the document is, to map problems back to the canvas.
 * @param {{data: Record<string, any>, position?: {x: number, y: number}}[]} nodes every node (groups ignored)
 * @param {{data: Record<string, any>}[]} edges every edge (only kind "link" is saved)
 * @returns {{nodes: Record<string, any>[], links: Record<string, any>[], linkIds: string[], nodeIds: Map<string, string>}}
 */
export function buildEditDocument(nodes, edges) {
  const names = new Map();
  const docNodes = [];
  for (const { data, position } of nodes) {
    if ((data.kind ?? "device") !== "device") continue;
    const node = nodeEntry(data, position);
    names.set(data.id, node.name);
    docNodes.push(node);
  }
  docNodes.sort((p, q) => (p.name < q.name ? -1 : p.name > q.name ? 1 : 0));
  const links = [];
  const linkIds = [];
  for (const { data } of edges) {
    if ((data.kind ?? "link") !== "link") continue;
    if (!names.has(data.source) || !names.has(data.target)) continue;
    links.push(linkEntry(data, names.get(data.source), names.get(data.target)));
    linkIds.push(data.id);
  }
  const nodeIds = new Map([...names].map(([id, name]) => [name, id]));
  return { nodes: docNodes, links, linkIds, nodeIds };
}

/**
 * Canvas element ids for the element ids of a save problem ("node:<name>", "link:<i>"), by
 * the document that was saved.
 * @param {string[]} ids
 * @param {{linkIds: string[], nodeIds: Map<string, string>}} saved
 * @returns {string[]}
 */
export function resolveProblemIds(ids, saved) {
  const out = [];
  for (const id of ids ?? []) {
    const link = /^link:(\d+)$/.exec(id);
    if (link && saved.linkIds[Number(link[1])] !== undefined) {
      out.push(saved.linkIds[Number(link[1])]);
    } else if (id.startsWith("node:") && saved.nodeIds.has(id.slice(5))) {
      out.push(saved.nodeIds.get(id.slice(5)));
    } else {
      out.push(id);
    }
  }
  return out;
}

/**
 * Elements to paste: copies of nodes (new names, ids, offset positions) and of the links
 * among them (same ports: the copies' ports are all free).
 * @param {{nodes: {data: Record<string, any>, position: Record<string, any>}[], edges: {data: Record<string, any>}[]}} clip
 * @param {{names: Iterable<string>, exists: (id: string) => boolean, offset: number, edgeId: () => string}} ctx
 * @returns {Record<string, any>[]} cytoscape element definitions
 */
export function pasteElements(clip, { names, exists, offset, edgeId }) {
  const taken = new Set(names);
  const ids = new Set();
  const idOf = new Map();
  const out = [];
  for (const { data, position } of clip.nodes) {
    const name = nextName(data.role === "server" ? "server" : data.role || "device", taken);
    taken.add(name);
    const id = freeNodeId(name, (candidate) => exists(candidate) || ids.has(candidate));
    ids.add(id);
    idOf.set(data.id, id);
    /** @type {Record<string, any>} */
    const copy = { ...data, id, name, label: name };
    delete copy.parent;
    delete copy.edit_extra; // a copy is not in the original's rack, SU or rail
    out.push({
      group: "nodes",
      data: copy,
      position: { x: (position?.x ?? 0) + offset, y: (position?.y ?? 0) + offset },
    });
  }
  for (const { data } of clip.edges) {
    if (!idOf.has(data.source) || !idOf.has(data.target)) continue;
    out.push({
      group: "edges",
      data: { ...data, id: edgeId(), source: idOf.get(data.source), target: idOf.get(data.target) },
    });
  }
  return out;
}

/**
 * The label of a link: "400G DAC 3 m" from its speed, media kind and length.
 * @param {Record<string, any>} data link data
 * @returns {string}
 */
export function linkLabel(data) {
  const parts = [];
  if (data.speed_gbps) parts.push(`${data.speed_gbps}G`);
  if (data.media_kind) parts.push(data.media_kind);
  if (present(data.length_m)) parts.push(`${data.length_m} m`);
  return parts.join(" ");
}
