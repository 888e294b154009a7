// The door every imported link passes before LinkService.create, whatever its source: the same TypeBox
// schema as POST /api/links (every field, rules and split; unknown fields and conditions refused), then
// the characters no field holds (NUL, unpaired surrogates: an escape in a JSON file gets past the
// request's own check) and a nesting bound. A refusal is a DomainError naming the field, as the API's.
import { Compile } from "typebox/compile";
import { CreateLinkBody } from "../contract/links.js";
import { BAD_IN_TEXT, findBadString } from "../shared/bad-text.js";
import { invalid } from "../shared/errors.js";
import type { CreateLinkInput } from "../links/create-link.js";

const createBody = Compile(CreateLinkBody);

/** The dotted field of an issue: /rules/0/if/bogus -> rules[0].if.bogus. */
function fieldOf(instancePath: string, extra?: string): string {
  const parts = [...instancePath.split("/").filter((p) => p !== ""), ...(extra ? [extra] : [])];
  return parts.reduce((out, p) => (/^\d+$/.test(p) ? `${out}[${p}]` : out === "" ? p : `${out}.${p}`), "");
}

/** Refuses a link input the API would refuse for its shape or characters. */
export function checkLinkShape(input: CreateLinkInput): void {
  const bad = findBadString(input, BAD_IN_TEXT, "");
  if (bad !== null) {
    const deep = bad.includes("nested deeper");
    const field = bad.replace(/ \(.*\)$/, "").replace(/^\./, "") || "url";
    throw invalid(field, deep ? "is nested too deeply" : "contains a control character (NUL...) or an unpaired surrogate, which cannot be stored");
  }
  if (createBody.Check(input)) return;
  const [first] = createBody.Errors(input);
  if (!first) throw invalid("url", "is invalid");
  const params = (first as { params?: { additionalProperties?: unknown[] } }).params;
  const unknown = Array.isArray(params?.additionalProperties) ? String(params.additionalProperties[0]) : undefined;
  if (unknown !== undefined || first.keyword === "boolean") throw invalid(fieldOf(first.instancePath, unknown), "is not a known field");
  throw invalid(fieldOf(first.instancePath) || "url", first.message);
}
