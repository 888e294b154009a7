// Lint rules, and the layer map of src/ and web/src/: every folder (and every file directly in src/ or
// web/src/) has a place in it, or lint fails (house/layer-map). Arrows point down, from the top (cli.ts;
// cluster/, cli-import.ts; main.ts; http/; context.ts; ops/) through the feature folders (FEATURE_LAYERS) to the
// bottom (storage/; config*.ts; contract/; shared/): a place imports only places of the layers below its own,
// and neither a folder cycle (house/no-folder-cycle) nor a file cycle (house/no-cycle) ties two places
// together. Only src/http/ imports Fastify, features never read process.env; notices between feature folders
// go through the event bus, each event published and heard only where FEATURE_EVENTS says.
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import globals from "globals";
import { join } from "node:path";
import { importX } from "eslint-plugin-import-x";
import { createTypeScriptImportResolver } from "eslint-import-resolver-typescript";
import noCycle from "./eslint-rules/no-cycle.js";
import featureEvents from "./eslint-rules/feature-events.js";
import layerMap from "./eslint-rules/layer-map.js";
import noFolderCycle from "./eslint-rules/no-folder-cycle.js";

const FASTIFY_ONLY_IN_HTTP = {
  patterns: [{ group: ["fastify", "fastify/*", "@fastify/*"], message: "Only src/http/ may import Fastify." }],
};

/**
 * The feature folders from the bottom up: a folder imports only folders of the layers below its own
 * (never its own layer's other folders, never a layer above), each in the lowest layer that admits its imports
 * (orphans/ reads clicks/ and links/; streams/ reads clicks/, links/ and webhooks/' receiver check). A new
 * feature folder gets a place here.
 */
const FEATURE_LAYERS = [
  ["mail"],
  ["accounts"],
  ["security"],
  ["teams", "clicks"],
  // Above teams: a team admin manages the owner's custom domains (teams/access.ts).
  ["domains"],
  ["tags", "utm", "conversions", "deeplinks"],
  ["links"],
  ["webhooks", "analytics", "orphans"],
  ["redirect", "admin", "imports", "streams", "shares", "health", "bio"],
  ["sso"],
  ["auth"],
];
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
  // A split's end decided (a winner made the link's url, or none): for listeners of link changes.
  "link.split_decided": { publishers: ["conversions"], subscribers: ["webhooks", "streams"] },
  // A new lead or sale (the tracking API, Stripe), inside its transaction: the stream's outbox, opted-in webhooks, the live feed.
  "lead.created": { publishers: ["conversions"], subscribers: ["webhooks", "streams", "analytics"] },
  "sale.created": { publishers: ["conversions"], subscribers: ["webhooks", "streams", "analytics"] },
  // An app's install or open reported through POST /api/deeplinks/open, inside its transaction: the stream's outbox, opted-in webhooks.
  "app.install": { publishers: ["deeplinks"], subscribers: ["webhooks", "streams"] },
  "app.open": { publishers: ["deeplinks"], subscribers: ["webhooks", "streams"] },
  // A destination of a link broke (three failed checks in a row) or recovered, inside its transaction: the stream's outbox, opted-in webhooks.
  "link.broken": { publishers: ["health"], subscribers: ["webhooks", "streams"] },
  "link.recovered": { publishers: ["health"], subscribers: ["webhooks", "streams"] },
};

/**
 * src/ from the bottom up, the feature layers in the middle: each name a folder or a file directly in src/, each
 * place importing only the layers below it (a feature folder not even its own layer's others; the config files
 * read each other, and cluster/ and cli-import.ts could). Below the features: shared/ (the bus, errors, ids:
 * nothing of the project), contract/ (schemas, shared/ at most), the config*.ts files (config.ts reads the
 * environment, the others check parts of it), storage/. Above them, none imported by a feature: ops/ (logging, tracing, process tweaks: it wraps the mailer and the webhook sender in
 * spans, so it sees their types), context.ts (the composition root), http/, main.ts (one server process),
 * cluster/ and cli-import.ts (WORKERS=N's primary and workers, which run main.ts; the import command), cli.ts.
 */
const CONFIG = ["config.ts", "config-details.ts", "config-error.ts", "config-sso.ts", "config-stream.ts", "config-vars.ts", "config-health.ts"];
const BELOW_FEATURES = [["shared"], ["contract"], CONFIG, ["storage"]];
const ABOVE_FEATURES = [
  ["ops", "click-listeners.ts"],
  ["context.ts", "context-types.ts", "lifecycle.ts", "click-writer-thread.ts", "click-writer-thread-tsx.mjs"],
  ["http"],
  ["main.ts"],
  ["cluster", "cli-import.ts"],
  ["cli.ts"],
];
const SRC_LAYERS = [...BELOW_FEATURES, ...FEATURE_LAYERS, ...ABOVE_FEATURES];
const src = (place) => `./src/${place}`;
const TOP = ABOVE_FEATURES.flat().map(src);
const label = (place) => (place.includes(".") ? place : `${place}/`);

/**
 * The dashboard's feature folders, one per room of src/ a user sees: each imports only web/src/shared/ (and the
 * contract, the typed client); only main.tsx, the app's routes, brings features together.
 */
const WEB_FEATURES = [
  "links",
  "stats",
  "analytics",
  "team",
  "domains",
  "webhooks",
  "imports",
  "profile",
  "security",
  "admin",
  "auth",
  "public",
  "sso",
  "conversions",
  "bio",
];
/** web/src/ from the bottom up. */
const WEB_LAYERS = [["shared"], WEB_FEATURES, ["main.tsx"]];
const web = (folder) => `./web/src/${folder}`;

/** What a place below or above the features is told when it imports a place above it (default: the map's rule). */
const FRAME_NOTES = {
  shared: "shared/ is the bottom: it imports nothing of the project.",
  contract: "contract/ holds schemas only: shared/ at most.",
  ops: "ops/ sits below context.ts, http/ and main.ts: they hand it what it traces and logs.",
};

/** import-x/no-restricted-paths zones: `target` files may not import `from` files (type-only imports included). */
const ZONES = [
  {
    target: FEATURES.map(src),
    from: TOP,
    message: "Features sit below context.ts, http/, main.ts and the rest of ABOVE_FEATURES (eslint.config.js): pass what they need in.",
  },
  ...FEATURE_LAYERS.flatMap((layer, i) =>
    layer.map((folder) => ({
      target: src(folder),
      from: [...layer.filter((f) => f !== folder), ...FEATURE_LAYERS.slice(i + 1).flat()].map(src),
      message: `${folder}/ may import only the feature folders below it (eslint.config.js, FEATURE_LAYERS).`,
    })),
  ).filter((zone) => zone.from.length > 0),
  // The places around the features: each imports only the layers below its own.
  ...SRC_LAYERS.flatMap((layer, i) =>
    layer
      .filter((place) => !FEATURES.includes(place))
      .map((place) => ({
        target: src(place),
        from: SRC_LAYERS.slice(i + 1)
          .flat()
          .map(src),
        message: FRAME_NOTES[place] ?? `${label(place)} may import only the places below it (eslint.config.js, SRC_LAYERS).`,
      })),
  ).filter((zone) => zone.from.length > 0),
  {
    target: "./web",
    from: "./src",
    except: ["./contract"],
    message: "The dashboard talks to the server over HTTP: from src/ it imports only types of src/contract/.",
  },
  ...WEB_FEATURES.map((folder) => ({
    target: web(folder),
    from: [...WEB_FEATURES.filter((f) => f !== folder).map(web), "./web/src/main.tsx"],
    message: `web/src/${folder}/ imports no other feature folder: what two features need lives in web/src/shared/ (eslint.config.js, WEB_FEATURES).`,
  })),
  { target: web("shared"), from: [...WEB_FEATURES.map(web), "./web/src/main.tsx"], message: "web/src/shared/ imports no feature folder." },
];

/** The house rules (eslint-rules/), one plugin object for the blocks that use them. */
const HOUSE = { rules: { "no-cycle": noCycle, "no-folder-cycle": noFolderCycle, "layer-map": layerMap, "feature-events": featureEvents } };

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "data/", "coverage/", "bench/.data/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // The parser's root named, so that two copies of the tree linted in one process (test/unit/layer-map.test.ts) do not clash.
    languageOptions: { globals: { ...globals.node }, parserOptions: { tsconfigRootDir: import.meta.dirname } },
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
    plugins: { house: HOUSE },
    rules: {
      "house/no-cycle": "error",
      "house/no-folder-cycle": ["error", ["src", "web/src"], { base: import.meta.dirname }],
      "house/feature-events": ["error", FEATURE_EVENTS],
    },
  },
  {
    // Every file of src/ and web/src/ lint reads, scripts too: a folder of .mjs files is as unplaced as any.
    files: ["src/**/*.{ts,tsx,js,jsx,mjs,cjs}", "web/src/**/*.{ts,tsx,js,jsx,mjs,cjs}"],
    plugins: { house: HOUSE },
    rules: { "house/layer-map": ["error", { src: SRC_LAYERS.flat(), "web/src": WEB_LAYERS.flat() }, { base: import.meta.dirname }] },
  },
  {
    files: ["src/**/*.ts", "web/**/*.{ts,tsx}"],
    plugins: { "import-x": importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      // The projects named from this file's folder, not the process's (a copy of the tree linted from elsewhere).
      "import-x/resolver-next": [
        createTypeScriptImportResolver({
          project: ["tsconfig.json", "web/tsconfig.json"].map((p) => join(import.meta.dirname, p)),
          noWarnOnMultipleProjects: true,
        }),
      ],
    },
    // basePath: the zones' paths from this file's folder too (the rule's default is the process's).
    rules: { "import-x/no-restricted-paths": ["error", { zones: ZONES, basePath: import.meta.dirname }] },
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
    // Every <input> names its type: the stylesheet styles inputs by type, and a field without one was left in the
    // browser's own look (issue 55: the two-factor code). test/e2e/unstyled.ts checks what the pages show.
    files: ["web/src/**/*.tsx"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "JSXOpeningElement[name.name='input']:not(:has(JSXAttribute[name.name='type'])):not(:has(JSXSpreadAttribute))",
          message: 'Give every <input> a type (type="text" for a plain field): web/src/styles.css styles inputs by type.',
        },
        {
          selector: "CallExpression[callee.property.name='toLocaleString'][arguments.length=0]",
          message: "Use formatNumber (shared/numbers.ts) or formatDateTime (shared/dates.ts): toLocaleString() builds a formatter on every call.",
        },
      ],
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
                "!@contract/broker-kinds",
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
