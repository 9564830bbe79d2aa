// Entry of the canvas bundle (dist/canvas.js): cytoscape and its extensions, then the page.
import cytoscape from "cytoscape";
import edgehandles from "cytoscape-edgehandles";
import expandCollapse from "cytoscape-expand-collapse";
import svg from "cytoscape-svg";
import undoRedo from "cytoscape-undo-redo";

import { startCanvas } from "./editor.js";

cytoscape.use(edgehandles);
cytoscape.use(svg);
undoRedo(cytoscape);
expandCollapse(cytoscape);

startCanvas(document, { cytoscape });
