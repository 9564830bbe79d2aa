import { test } from "node:test";
import assert from "node:assert/strict";

import { MARGIN_LEVELS, marginLevel, marginStyles } from "./margin.js";

test("margin levels: negative is over, under the threshold is low, else ok", () => {
  assert.equal(marginLevel(-0.01, 1).level, "over");
  assert.equal(marginLevel(0, 1).level, "low");
  assert.equal(marginLevel(0.99, 1).level, "low");
  assert.equal(marginLevel(1, 1).level, "ok");
  assert.equal(marginLevel(0.5, 0.25).level, "ok");
  assert.equal(marginLevel(null, 1), null);
  assert.equal(marginLevel(/** @type {any} */ ("x"), 1), null);
  assert.equal(MARGIN_LEVELS[1].label(1.5), "margin under 1.5 dB");
});

test("only the drawn links the budget names get a style", () => {
  const budget = { threshold_db: 1, links: { "link:1": -1.45, "link:2": 0.28, "link:3": 1.9 } };
  const styles = marginStyles(budget, ["link:1", "link:2", "link:4"]);
  assert.deepEqual(Object.keys(styles), ["link:1", "link:2"]);
  assert.equal(styles["link:1"].color, MARGIN_LEVELS[0].color);
  assert.equal(styles["link:2"].label, "0.28 dB margin");
});
