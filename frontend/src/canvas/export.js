// Export of the drawing as PNG or SVG (cytoscape's png() and the cytoscape-svg extension),
// downloaded under a name that says the design, revision and view (export_names.js).

import { h } from "./dom.js";
import { exportFileName } from "./export_names.js";

/**
 * The export commands of a canvas.
 * @param {{doc: Document, cy: Record<string, any>, state: Record<string, any>, setStatus: Function}} canvas
 * @returns {{exportPng: () => void, exportSvg: () => void}}
 */
export function createExport({ doc, cy, state, setStatus }) {
  function download(blob, filename) {
    const url = URL.createObjectURL(blob);
    const link = h(doc, "a", { href: url, download: filename, hidden: true });
    doc.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 5000);
  }

  const fileName = (extension) =>
    exportFileName({ designId: state.designId, revision: state.revision, view: state.view, scope: state.scope }, extension);

  function exportPng() {
    const blob = cy.png({ output: "blob", bg: "#ffffff", full: true, scale: 2, maxWidth: 8000, maxHeight: 8000 });
    const name = fileName("png");
    download(blob, name);
    setStatus(`Exported ${name}.`, "ok");
  }

  function exportSvg() {
    const text = cy.svg({ full: true, scale: 1, bg: "#ffffff" });
    const name = fileName("svg");
    download(new Blob([text], { type: "image/svg+xml" }), name);
    setStatus(`Exported ${name}.`, "ok");
  }

  return { exportPng, exportSvg };
}
