// The Networks control of a cluster design: one checkbox per layer (compute, storage,
// converged, in-band, OOB; only those the design has), each with its colour swatch, so the
// control is also the legend. Toggling shows or hides the layer's elements in place (no
// re-fetch); the choice holds across views. The rules are layers.js.

import { h } from "./dom.js";
import { layerChoices, layerStatus, shownWith } from "./layers.js";

/**
 * @param {{doc: Document, $: Function, state: Record<string, any>, cy: Record<string, any>, setStatus: Function}} canvas
 * @returns {{renderNetworks: () => void, applyLayers: () => void}}
 */
export function createNetworkPanel({ doc, $, state, cy, setStatus }) {
  state.hiddenLayers = state.hiddenLayers ?? new Set();

  /** Hide the elements none of whose layers is on. */
  function applyLayers() {
    const hidden = state.hiddenLayers;
    if (!hidden.size) {
      cy.elements(".layer-off").removeClass("layer-off"); // every layer on: only those hidden change
      return;
    }
    cy.batch(() => {
      cy.elements().forEach((ele) => {
        ele.toggleClass("layer-off", hidden.size > 0 && !shownWith(ele.data(), hidden));
      });
    });
    if (hidden.size) cy.$(".layer-off:selected").unselect();
  }

  function renderNetworks() {
    const choices = layerChoices(state.networks);
    const group = $("networks");
    const boxes = $("network-boxes");
    group.hidden = choices.length === 0;
    boxes.replaceChildren();
    for (const choice of choices) {
      const id = `canvas-layer-${choice.id}`;
      const box = h(doc, "input", {
        type: "checkbox",
        id,
        "data-layer": choice.id,
        "aria-describedby": `${id}-detail`,
      });
      box.checked = !state.hiddenLayers.has(choice.id);
      box.addEventListener("change", () => {
        if (box.checked) state.hiddenLayers.delete(choice.id);
        else state.hiddenLayers.add(choice.id);
        applyLayers();
        const shown = cy.elements().filter((ele) => !ele.hasClass("layer-off") && ele.visible()).length;
        setStatus(layerStatus(choices, state.hiddenLayers, shown, cy.elements().length));
      });
      const swatch = h(doc, "span", { class: `swatch layer-${choice.id}`, "aria-hidden": "true" });
      swatch.style.backgroundColor = choice.color;
      boxes.append(
        h(doc, "label", { for: id, title: choice.detail }, box, swatch, choice.label),
        h(doc, "span", { id: `${id}-detail`, class: "visually-hidden", text: choice.detail }),
      );
    }
    applyLayers();
  }

  return { renderNetworks, applyLayers };
}
