// Lint rules; the import restriction keeps Fastify inside src/http/ (DESIGN.md, rule 1).
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import globals from "globals";

const FASTIFY_ONLY_IN_HTTP = {
  patterns: [{ group: ["fastify", "fastify/*", "@fastify/*"], message: "Only src/http/ may import Fastify." }],
};

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "data/", "coverage/", "bench/.data/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" }],
      "@typescript-eslint/no-explicit-any": "off",
      "no-control-regex": "off",
    },
  },
  {
    files: ["src/**/*.ts"],
    ignores: ["src/http/**"],
    rules: { "no-restricted-imports": ["error", FASTIFY_ONLY_IN_HTTP] },
  },
  {
    files: ["src/**/*.ts"],
    ignores: ["src/config.ts"],
    rules: {
      "no-restricted-properties": ["error", { object: "process", property: "env", message: "Read configuration through src/config.ts." }],
    },
  },
  {
    files: ["web/**/*.{ts,tsx}"],
    languageOptions: { globals: { ...globals.browser } },
  },
);
