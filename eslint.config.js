// The annotation client's lint rules (npm run lint; make test runs it).
import js from "@eslint/js";
import globals from "globals";

export default [
  js.configs.recommended,
  {
    files: ["ui/annotation/client/**/*.js"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: { ...globals.browser },
    },
    rules: {
      eqeqeq: ["error", "always"],
      "no-var": "error",
      "prefer-const": "error",
      "no-implicit-globals": "error",
      "no-unused-vars": ["error", { args: "after-used", argsIgnorePattern: "^_" }],
    },
  },
  {
    // classic scripts, inserted by the page (no import / export of their own)
    files: [
      "ui/annotation/client/boot.js",
      "ui/annotation/client/instant_keys.js",
      "ui/annotation/client/follow_focus.js",
      "ui/annotation/client/completion_redirect.js",
    ],
    languageOptions: { sourceType: "script" },
  },
  {
    files: ["tests/js/**/*.js", "eslint.config.js"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: { ...globals.node },
    },
  },
];
