// Saving what an edit changed: the patch of the saved revision's edit document that the
// canvas sends (PATCH /topology/), and how link ids move once it is saved. The server applies
// the patch to the revision's document and checks the whole result, as it checks a whole
// document (planner/domain/canvas/edit_patch.py); so the patch only has to name every entry
// the drawing no longer has as saved. No DOM, no cytoscape: plain documents and ids.

const NODE_KEYS = ["name", "model", "role", "x", "y", "plane", "su", "rail", "group", "rack", "ru"];
const LINK_KEYS = ["a", "a_port", "b", "b_port", "speed_gbps", "a_part", "b_part", "cable", "length_m"];
const BASE_LINK = /^link:(\d+)$/;

/**
 * A document entry as text to compare: its known fields in a fixed order, absent, null and
 * "" alike (the server writes null for what a drawn link leaves out).
 * @param {Record<string, any>} entry
 * @param {string[]} keys
 * @returns {string}
 */
function entryKey(entry, keys) {
  return JSON.stringify(keys.map((key) => (entry[key] === undefined || entry[key] === "" ? null : entry[key])));
}

/** @param {Record<string, any>} node */
export const nodeKey = (node) => entryKey(node, NODE_KEYS);
/** @param {Record<string, any>} link */
export const linkKey = (link) => entryKey(link, LINK_KEYS);

/**
 * What the drawing is as saved, by canvas id: each node (`node:<name>`) with its name and
 * entry, each link (`link:<i>`, its index in the document) with its entry.
 * @typedef {{nodes: Map<string, {name: string, key: string}>, links: Map<string, string>, linkCount: number}} SavedEntries
 */

/**
 * The saved entries of a revision's edit document (GET revisions/N/topology/).
 * @param {{nodes?: Record<string, any>[], links?: Record<string, any>[]}} doc
 * @returns {SavedEntries}
 */
export function savedEntries(doc) {
  const nodes = new Map((doc.nodes ?? []).map((node) => [`node:${node.name}`, { name: node.name, key: nodeKey(node) }]));
  const links = new Map((doc.links ?? []).map((link, i) => [`link:${i}`, linkKey(link)]));
  return { nodes, links, linkCount: (doc.links ?? []).length };
}

/**
 * The patch of the drawing against what was saved, and the canvas ids of the elements the
 * server will name differently (new ones, renamed nodes: drawn again from its answer).
 * A node renamed is its old name removed and the new one set (unless another node took the
 * old name: then setting that one replaces it); a link with another entry is changed in its
 * place; one whose id is not a saved link's is added.
 * @param {SavedEntries} saved
 * @param {{nodes: Record<string, any>[], links: Record<string, any>[], linkIds: string[], nodeIds: Map<string, string>}} built
 *   the edit document of the drawing (buildEditDocument)
 * @returns {{patch: Record<string, any[]>, created: string[], addedLinkIds: string[], changedLinkIds: string[], size: number}}
 */
export function editPatch(saved, built) {
  const patch = { nodes_removed: [], nodes_set: [], links_removed: [], links_changed: [], links_added: [] };
  const created = [];
  const drawn = new Set();
  for (const node of built.nodes) {
    const id = built.nodeIds.get(node.name);
    const was = saved.nodes.get(id);
    drawn.add(id);
    if (was && was.key === nodeKey(node)) continue;
    patch.nodes_set.push(node);
    if (!was || was.name !== node.name) created.push(id);
    if (was && was.name !== node.name) patch.nodes_removed.push(was.name);
  }
  for (const [id, was] of saved.nodes) if (!drawn.has(id)) patch.nodes_removed.push(was.name);
  const setNames = new Set(patch.nodes_set.map((node) => node.name));
  patch.nodes_removed = patch.nodes_removed.filter((name) => !setNames.has(name));
  const kept = new Set();
  const addedLinkIds = [];
  const changedLinkIds = [];
  built.links.forEach((link, j) => {
    const id = built.linkIds[j];
    const was = BASE_LINK.test(id) ? saved.links.get(id) : undefined;
    if (was === undefined) {
      patch.links_added.push(link);
      addedLinkIds.push(id);
      created.push(id);
      return;
    }
    kept.add(id);
    if (was !== linkKey(link)) {
      patch.links_changed.push({ index: Number(BASE_LINK.exec(id)[1]), link });
      changedLinkIds.push(id);
    }
  });
  for (const id of saved.links.keys()) if (!kept.has(id)) patch.links_removed.push(Number(BASE_LINK.exec(id)[1]));
  patch.links_removed.sort((p, q) => p - q);
  const size = Object.values(patch).reduce((sum, list) => sum + list.length, 0);
  return { patch, created, addedLinkIds, changedLinkIds, size };
}

/**
 * Where the saved links go once links are removed: every later link moves up (the saved
 * document keeps the rest in their order). Only the ids that change are listed.
 * @param {number} linkCount links of the saved document
 * @param {number[]} removed their indices removed
 * @returns {Map<string, string>} `link:<i>` -> `link:<new i>`
 */
export function linkRenumbering(linkCount, removed) {
  const gone = new Set(removed);
  const moves = new Map();
  let next = 0;
  for (let i = 0; i < linkCount; i += 1) {
    if (gone.has(i)) continue;
    if (next !== i) moves.set(`link:${i}`, `link:${next}`);
    next += 1;
  }
  return moves;
}

/**
 * Canvas ids for the element ids of a patch's problems: `link:<i>` a saved link (by its id
 * in the drawing, which is `link:<i>`), `link:added-<j>` the j-th added link, `node:<name>` as
 * the drawing names it.
 * @param {string[]} ids
 * @param {{addedLinkIds: string[], nodeIds: Map<string, string>}} sent
 * @returns {string[]}
 */
export function patchProblemIds(ids, sent) {
  return (ids ?? []).map((id) => {
    const added = /^link:added-(\d+)$/.exec(id);
    if (added) return sent.addedLinkIds[Number(added[1])] ?? id;
    if (id.startsWith("node:") && sent.nodeIds.has(id.slice(5))) return sent.nodeIds.get(id.slice(5));
    return id;
  });
}

/**
 * The saved entries once a patch is saved: links renumbered, the removed left out; the
 * entries of the elements drawn again from the server's answer are set by the caller.
 * @param {SavedEntries} saved
 * @param {Record<string, any[]>} patch
 * @returns {SavedEntries}
 */
export function entriesAfter(saved, patch) {
  const moves = linkRenumbering(saved.linkCount, patch.links_removed);
  const gone = new Set(patch.links_removed.map((i) => `link:${i}`));
  const links = new Map();
  for (const [id, key] of saved.links) if (!gone.has(id)) links.set(moves.get(id) ?? id, key);
  const nodes = new Map(saved.nodes);
  for (const name of patch.nodes_removed) nodes.delete(`node:${name}`);
  const linkCount = saved.linkCount - patch.links_removed.length + patch.links_added.length;
  return { nodes, links, linkCount };
}
