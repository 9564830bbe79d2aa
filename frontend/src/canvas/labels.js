// Labels that never overlap and are never too small to read: a label-density rule. Labels are kept greedily, most important
// first (aggregates, then cores, spines, leaves, groups, servers, link bundles), and a label
// whose box overlaps one already kept is hidden (class "label-crowded"; selecting the element
// shows it). Label boxes grow with the zoom like everything else, so two labels that overlap
// at one zoom overlap at every zoom: the choice holds until the drawing changes. Labels under
// their min-zoomed-font-size are not drawn at all (style.js).

/** Lower is kept first. */
const LABEL_RANK = { aggregate: 0, "network-aggregate": 0, core: 1, spine: 2, leaf: 3, group: 4, server: 5, manager: 5 };

/**
 * The order labels are kept in: rank, then left to right, top to bottom.
 * @param {{rank: number, x: number, y: number}} p
 * @param {{rank: number, x: number, y: number}} q
 * @returns {number}
 */
function byImportance(p, q) {
  return p.rank - q.rank || p.y - q.y || p.x - q.x;
}

/**
 * Which labelled boxes to hide so that no two kept boxes overlap (greedy, in `byImportance`
 * order; boxes that only touch, within `slack`, are apart).
 * @param {{id: string, rank: number, x1: number, y1: number, x2: number, y2: number}[]} boxes
 * @param {number} [slack] model units
 * @returns {Set<string>} ids of the boxes to hide
 */
export function crowdedLabels(boxes, slack = 4) {
  const order = boxes
    .filter((b) => b.x2 - b.x1 > 0 && b.y2 - b.y1 > 0)
    .map((b) => ({ ...b, x: b.x1, y: b.y1 }))
    .sort(byImportance);
  const cell = 120;
  /** @type {Map<string, {x1: number, y1: number, x2: number, y2: number}[]>} */
  const grid = new Map();
  const cells = (b) => {
    const keys = [];
    for (let i = Math.floor(b.x1 / cell); i <= Math.floor(b.x2 / cell); i += 1) {
      for (let j = Math.floor(b.y1 / cell); j <= Math.floor(b.y2 / cell); j += 1) keys.push(`${i},${j}`);
    }
    return keys;
  };
  const hidden = new Set();
  for (const b of order) {
    const keys = cells(b);
    const hit = keys.some((key) =>
      (grid.get(key) ?? []).some((k) => b.x1 < k.x2 - slack && k.x1 < b.x2 - slack && b.y1 < k.y2 - slack && k.y1 < b.y2 - slack),
    );
    if (hit) {
      hidden.add(b.id);
      continue;
    }
    for (const key of keys) {
      if (!grid.has(key)) grid.set(key, []);
      grid.get(key).push(b);
    }
  }
  return hidden;
}

/** Labels smaller than this on screen (px) are not drawn: zoom in to read them. cytoscape's
 * own min-zoomed-font-size compares with the zoom rounded up to a power of two, so it alone
 * lets labels through at down to half its size. */
export const MIN_LABEL_PX = 7;

/**
 * Hide the labels of `cy` that would be drawn under MIN_LABEL_PX at the current zoom or would
 * overlap a more important one (class "label-crowded").
 * @param {Record<string, any>} cy
 * @returns {{labels: number, hidden: number}}
 */
export function declutterLabels(cy) {
  const boxes = [];
  const zoom = cy.zoom();
  const small = [];
  cy.elements().forEach((ele) => {
    if (!ele.visible() || !ele.pstyle("label").strValue) return;
    if (ele.pstyle("font-size").pfValue * zoom < MIN_LABEL_PX) {
      small.push(ele.id());
      return;
    }
    const box = ele.boundingBox({ includeNodes: false, includeEdges: false, includeLabels: true, includeOverlays: false });
    const kind = ele.data("kind");
    const rank = ele.isEdge() ? 6 : LABEL_RANK[kind] ?? LABEL_RANK[ele.data("role")] ?? (ele.isParent() ? 4 : 5);
    boxes.push({ id: ele.id(), rank, x1: box.x1, y1: box.y1, x2: box.x2, y2: box.y2 });
  });
  const hidden = crowdedLabels(boxes);
  for (const id of small) hidden.add(id);
  cy.batch(() => {
    cy.elements(".label-crowded").forEach((ele) => {
      if (!hidden.has(ele.id())) ele.removeClass("label-crowded");
    });
    for (const id of hidden) cy.getElementById(id).addClass("label-crowded");
  });
  return { labels: boxes.length, hidden: hidden.size };
}

/**
 * Keep the labels apart as the drawing changes (added, removed, moved, renamed, layers shown
 * or hidden): declutter shortly after the last change.
 * @param {Record<string, any>} cy
 * @param {{setTimeout: Function, clearTimeout: Function}} timers
 * @returns {() => void} declutter now
 */
export function keepLabelsApart(cy, { setTimeout, clearTimeout }) {
  let timer = null;
  let busy = false;
  const run = () => {
    timer = null;
    busy = true;
    try {
      declutterLabels(cy);
    } finally {
      busy = false;
    }
  };
  const schedule = () => {
    if (busy) return; // the declutter's own class changes
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(run, 120);
  };
  cy.on("add remove position data class", schedule);
  cy.on("zoom", schedule);
  return () => {
    if (timer !== null) clearTimeout(timer);
    run();
  };
}
