// Lint rules, and the layers of src/ checked: arrows point down (http/, cli.ts -> features -> storage/, contract/,
// shared/), only src/http/ imports Fastify, features never read process.env, no import cycles; notices between
// feature folders go through the event bus, each event published and heard only where FEATURE_EVENTS says.
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import globals from "globals";
import { importX } from "eslint-plugin-import-x";
import { createTypeScriptImportResolver } from "eslint-import-resolver-typescript";
import noCycle from "./eslint-rules/no-cycle.js";
import featureEvents from "./eslint-rules/feature-events.js";

const FASTIFY_ONLY_IN_HTTP = {
  patterns: [{ group: ["fastify", "fastify/*", "@fastify/*"], message: "Only src/http/ may import Fastify." }],
};

/**
 * The feature folders from the bottom up: a folder imports only folders of the layers below its own
 * (never its own layer's other folders, never a layer above). A new feature folder gets a place here.
 */
const FEATURE_LAYERS = [["mail"], ["accounts"], ["security"], ["teams", "clicks", "domains"], ["tags", "utm"], ["links"], ["webhooks", "analytics"], ["redirect", "admin", "imports"], ["sso"], ["auth"]];
const FEATURES = FEATURE_LAYERS.flat();

/**
 * The events of src/shared/events.ts (SnipEvents) with the feature folders that publish and that subscribe
 * to each: what a folder must tell one it may not import (or need not know) goes through them, wired by
 * src/context.ts. A new event, or a new publisher or subscriber, gets a place here.
 */
const FEATURE_EVENTS = {
  // A plan or status change, or a deletion: the owner's webhooks reload everywhere (they depend on the plan).
  "account.changed": { publishers: ["accounts", "admin"], subscribers: ["webhooks"] },
  // A keyed email accepted by the transport: an invitation's email shows as sent.
  "mail.sent": { publishers: ["mail"], subscribers: ["teams"] },
};
const TOP = ["./src/http", "./src/context.ts", "./src/cli.ts", "./src/main.ts"];
const src = (folder) => `./src/${folder}`;

/**
 * The dashboard's feature folders, one per room of src/ a user sees: each imports only web/src/shared/ (and the
 * contract, the typed client); only main.tsx, the app's routes, brings features together.
 */
const WEB_FEATURES = ["links", "stats", "analytics", "team", "domains", "webhooks", "imports", "profile", "security", "admin", "auth", "public", "sso"];
const web = (folder) => `./web/src/${folder}`;

/** import-x/no-restricted-paths zones: `target` files may not import `from` files (type-only imports included). */
const ZONES = [
  { target: FEATURES.map(src), from: TOP, message: "Features sit below http/, context.ts, cli.ts and main.ts: pass what they need in." },
  ...FEATURE_LAYERS.flatMap((layer, i) =>
    layer.map((folder) => ({
      target: src(folder),
      from: [...layer.filter((f) => f !== folder), ...FEATURE_LAYERS.slice(i + 1).flat()].map(src),
      message: `${folder}/ may import only the feature folders below it (eslint.config.js, FEATURE_LAYERS).`,
    })),
  ).filter((zone) => zone.from.length > 0),
  { target: [src("storage"), src("shared"), src("contract")], from: [...FEATURES.map(src), ...TOP], message: "storage/, shared/ and contract/ import no feature." },
  { target: src("shared"), from: [src("storage"), src("contract"), "./src/config.ts"], message: "shared/ is the bottom: it imports nothing of the project." },
  { target: src("contract"), from: [src("storage"), "./src/config.ts"], message: "contract/ holds schemas only: shared/ at most." },
  { target: "./web", from: "./src", except: ["./contract"], message: "The dashboard talks to the server over HTTP: from src/ it imports only types of src/contract/." },
  ...WEB_FEATURES.map((folder) => ({
    target: web(folder),
    from: [...WEB_FEATURES.filter((f) => f !== folder).map(web), "./web/src/main.tsx"],
    message: `web/src/${folder}/ imports no other feature folder: what two features need lives in web/src/shared/ (eslint.config.js, WEB_FEATURES).`,
  })),
  { target: web("shared"), from: [...WEB_FEATURES.map(web), "./web/src/main.tsx"], message: "web/src/shared/ imports no feature folder." },
];

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
    // Instead of import-x/no-cycle, which skips type-only imports by design and, measured here, took as
    // long as the rest of lint together.
    files: ["**/*.{ts,tsx}"],
    plugins: { house: { rules: { "no-cycle": noCycle, "feature-events": featureEvents } } },
    rules: { "house/no-cycle": "error", "house/feature-events": ["error", FEATURE_EVENTS] },
  },
  {
    files: ["src/**/*.ts", "web/**/*.{ts,tsx}"],
    plugins: { "import-x": importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      "import-x/resolver-next": [createTypeScriptImportResolver({ project: ["tsconfig.json", "web/tsconfig.json"], noWarnOnMultipleProjects: true })],
    },
    rules: { "import-x/no-restricted-paths": ["error", { zones: ZONES }] },
  },
  {
    // Sizes: a longer function carries its reason in an eslint-disable-next-line comment at its top.
    files: ["src/**/*.ts"],
    rules: { "max-lines": ["error", { max: 400 }], "max-lines-per-function": ["error", { max: 80 }] },
  },
  {
    // The dashboard under the server's sizes; a longer component carries its reason in an eslint-disable-next-line
    // comment at its top. (The generated client types are data, not code.)
    files: ["web/**/*.{ts,tsx}", "packages/client/src/index.ts"],
    rules: { "max-lines": ["error", { max: 400 }], "max-lines-per-function": ["error", { max: 80 }] },
  },
  {
    // Route plugins and buildApp register one route or hook after another and grow with their group's
    // routes (the limit applies to the handlers inside them too); their files stay under 400 lines.
    files: ["src/http/routes/*.ts", "src/http/app.ts"],
    rules: { "max-lines-per-function": ["error", { max: 150 }] },
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
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              // Except the dependency-free tables both sides must apply alike: field checks and messages,
              // which plan has which capability, the contract's limits, states and names, and the redirect
              // condition kinds (conditions/: type imports only, so no schema code is bundled).
              group: [
                "@contract/*",
                "**/src/contract/*",
                "!@contract/form-rules",
                "!@contract/plans",
                "!@contract/tables",
                "!@contract/conditions",
                "!@contract/conditions/*",
                "!**/src/contract/form-rules",
                "!**/src/contract/plans",
                // With the extension, for a web file the server's tests also compile (NodeNext wants it).
                "!**/src/contract/form-rules.js",
              ],
              allowTypeImports: true,
              message: "web/ imports src/contract/ with `import type` only: no server code in the bundle.",
            },
          ],
        },
      ],
    },
  },
);
