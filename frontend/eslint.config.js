// Flat eslint config for the browser code (src/) and the build script; `npm run lint` runs it
// with `tsc -p .` (JSDoc types checked, tsconfig.json).
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["dist/", "node_modules/"] },
  js.configs.recommended,
  {
    files: ["src/**/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.browser } },
    rules: {
      "no-unused-vars": ["error", { argsIgnorePattern: "^_", caughtErrors: "none" }],
      eqeqeq: ["error", "always"],
      "prefer-const": "error",
      "no-var": "error",
    },
  },
  {
    files: ["src/**/*.test.js", "build.mjs", "eslint.config.js"],
    languageOptions: { globals: { ...globals.node } },
  },
];
