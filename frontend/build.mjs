// Bundles src/ into dist/ (git-ignored), which Django serves as static/app/.
// app.js/app.css: every page. canvas.js/canvas.css: the design canvas page only (cytoscape).
import { build } from "esbuild";

await build({
  entryPoints: [
    { in: "src/app.js", out: "app" },
    { in: "src/app.css", out: "app" },
    { in: "src/canvas/main.js", out: "canvas" },
    { in: "src/canvas/canvas.css", out: "canvas" },
  ],
  bundle: true,
  minify: true,
  sourcemap: true,
  format: "esm",
  target: ["chrome110", "firefox110", "safari16"],
  outdir: "dist",
  logLevel: "warning",
});
