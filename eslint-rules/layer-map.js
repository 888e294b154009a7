// Lint rule house/layer-map: every folder of src/ and web/src/ (and every file directly in them) has a place in
// the layer map of eslint.config.js, so a new folder cannot slip past the zones that hold the others to their
// layers: a folder no list names is a folder no zone checks.
import { relative, sep } from "node:path";

/**
 * The place of `file` under one of `roots` ("src", "web/src"), relative to `cwd`: the root and the first segment
 * below it (a folder, or the file itself when it sits directly in the root), else null.
 */
export function placeOf(cwd, file, roots) {
  const path = relative(cwd, file).split(sep).join("/");
  for (const root of roots) {
    if (!path.startsWith(`${root}/`)) continue;
    const rest = path.slice(root.length + 1).split("/");
    const name = rest[0];
    return { root, name, folder: rest.length > 1, label: `${root}/${name}${rest.length > 1 ? "/" : ""}` };
  }
  return null;
}

export default {
  meta: {
    type: "problem",
    docs: { description: "Every folder and top-level file of src/ and web/src/ is placed in eslint.config.js's layer map." },
    // { "src": [names], "web/src": [names] }: each root with the folders and top-level files placed under it.
    // Then { base }: the folder the roots are in (eslint.config.js's), else the folder lint was started in.
    schema: [
      { type: "object", additionalProperties: { type: "array", items: { type: "string" } } },
      { type: "object", properties: { base: { type: "string" } }, additionalProperties: false },
    ],
    messages: {
      unplaced: "{{label}} has no place in the layer map: give it a layer in eslint.config.js ({{lists}}), so lint checks its imports.",
    },
  },
  create(context) {
    const placed = context.options[0] ?? {};
    const place = placeOf(context.options[1]?.base ?? context.cwd, context.physicalFilename, Object.keys(placed));
    if (place === null || placed[place.root].includes(place.name)) return {};
    const lists = place.root === "src" ? "FEATURE_LAYERS, or SRC_LAYERS for what is not a feature" : "WEB_FEATURES, or WEB_LAYERS";
    return {
      Program(node) {
        context.report({ node, loc: { line: 1, column: 0 }, messageId: "unplaced", data: { label: place.label, lists } });
      },
    };
  },
};
