// Bundles src/ into dist/ (git-ignored), which Django serves as static/app/.
import { build } from "esbuild";

await build({
  entryPoints: ["src/app.js", "src/app.css"],
  bundle: true,
  minify: true,
  sourcemap: true,
  format: "esm",
  target: ["chrome110", "firefox110", "safari16"],
  outdir: "dist",
  logLevel: "warning",
});
