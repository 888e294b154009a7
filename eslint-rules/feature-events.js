// Lint rule house/feature-events: an event of src/shared/events.ts is published and subscribed to only by
// the feature folders eslint.config.js lists for it (FEATURE_EVENTS), so a dependency that goes through
// the event bus is as visible, and as checked, as an import.
import { relative, sep } from "node:path";

/** `x.publish("name", ...)` or `x.subscribe("name", ...)`: the method and the literal name, else null. */
function eventCall(node) {
  const callee = node.callee;
  if (callee.type !== "MemberExpression" || callee.property.type !== "Identifier") return null;
  const method = callee.property.name;
  if (method !== "publish" && method !== "subscribe") return null;
  const first = node.arguments[0];
  if (!first || first.type !== "Literal" || typeof first.value !== "string") return null;
  return { method, name: first.value };
}

export default {
  meta: {
    type: "problem",
    docs: { description: "Events between feature folders only where eslint.config.js lists them." },
    schema: [{ type: "object" }],
    messages: {
      unlisted: 'Event "{{name}}" is not in eslint.config.js FEATURE_EVENTS.',
      forbidden: '{{folder}}/ may not {{method}} "{{name}}": FEATURE_EVENTS lets {{allowed}} do it.',
    },
  },
  create(context) {
    const events = context.options[0] ?? {};
    const parts = relative(context.cwd, context.physicalFilename).split(sep);
    // src/<folder>/...: the folder; a file directly in src/ (context.ts, cli.ts) is named itself.
    const folder = parts[0] === "src" ? parts[1] : null;
    if (folder === null || folder === "shared") return {};
    return {
      CallExpression(node) {
        const call = eventCall(node);
        // Names of the bus's form ("room.happened"); the change feed's channels are constants, not literals.
        if (call === null || !/^[a-z]+\.[a-z]+$/.test(call.name)) return;
        const listed = events[call.name];
        if (!listed) return context.report({ node, messageId: "unlisted", data: { name: call.name } });
        const allowed = call.method === "publish" ? listed.publishers : listed.subscribers;
        if (!allowed.includes(folder)) {
          context.report({ node, messageId: "forbidden", data: { folder, method: call.method, name: call.name, allowed: allowed.join(", ") } });
        }
      },
    };
  },
};
