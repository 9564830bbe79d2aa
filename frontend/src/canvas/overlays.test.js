import assert from "node:assert/strict";
import { test } from "node:test";

import { missingOverlays, overlaySourceLabel } from "./overlays.js";

test("a revision without a simulation offers the older revision's", () => {
  const data = { revision: 2, jobs: [], older: { util: 1 } };
  assert.deepEqual(missingOverlays(data, ["util"]), [
    { overlay: "util", text: "No simulation for revision 2 — run one, or show revision 1's.", older: 1 },
  ]);
});

test("without an older run the note says where to run one", () => {
  const [note] = missingOverlays({ revision: 3, jobs: [{ kind: "simulate" }], older: {} }, ["util", "power"]);
  assert.equal(note.overlay, "power");
  assert.equal(note.older, null);
  assert.match(note.text, /No power budget for revision 3 yet — run one from the design page/);
});

test("problems come from validation or power jobs", () => {
  assert.deepEqual(missingOverlays({ revision: 1, jobs: [{ kind: "power" }] }, ["problems", "power"]), []);
});

test("overlays of an older revision are labelled as such", () => {
  assert.equal(overlaySourceLabel({ revision: 1, source_revision: 1 }, 2), "Showing revision 1's results, older than this canvas (revision 2).");
  assert.match(overlaySourceLabel({ source_revision: 1, unmatched_links: 1200 }, 2), /1,200 of its links are not in revision 2/);
  assert.equal(overlaySourceLabel({ revision: 2 }, 2), "");
});
