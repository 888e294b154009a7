// The SCIM filters identity providers send before they create or push (RFC 7644 3.4.2.2): `attribute eq "value"`,
// joined by `and`. Okta asks `userName eq "..."`, Entra ID `userName eq "..."` or `externalId eq "..."`, both
// `displayName eq "..."` for groups. Other operators and attributes are refused with invalidFilter.
import { ScimError } from "./errors.js";

export type FilterAttribute = "username" | "externalid" | "id" | "displayname" | "emails";
export interface FilterClause {
  attribute: FilterAttribute;
  value: string;
}

const MAX_FILTER = 1_000;
const CORE_PREFIX = /^urn:ietf:params:scim:schemas:core:2\.0:(user|group):/i;
// attrPath SP "eq" SP "string" (JSON string escapes), then optionally " and " and another.
const CLAUSE = /^\s*([A-Za-z][\w:.-]*(?:\[\s*type\s+eq\s+"[A-Za-z]{1,20}"\s*\](?:\.value)?)?)\s+([A-Za-z]{2})\s+("(?:[^"\\\u0000-\u001f]|\\.){0,1000}")\s*/;

const invalid = (detail: string) => new ScimError(400, "invalidFilter", detail);

function attributeOf(raw: string, allowed: readonly FilterAttribute[]): FilterAttribute {
  const path = raw.replace(CORE_PREFIX, "").toLowerCase().replace(/\s+/g, "");
  let attribute: FilterAttribute | null = null;
  if (path === "username" || path === "externalid" || path === "id" || path === "displayname") attribute = path;
  else if (path === "emails" || path === "emails.value" || /^emails\[typeeq"[a-z]+"\]\.value$/.test(path)) attribute = "emails";
  if (attribute === null || !allowed.includes(attribute)) throw invalid(`Filtering on ${raw.slice(0, 100)} is not supported`);
  return attribute;
}

/** The filter's clauses (all must hold), or invalidFilter. */
export function parseFilter(filter: string, allowed: readonly FilterAttribute[]): FilterClause[] {
  if (filter.length > MAX_FILTER) throw invalid(`A filter has at most ${MAX_FILTER} characters`);
  const clauses: FilterClause[] = [];
  let rest = filter;
  for (;;) {
    const m = CLAUSE.exec(rest);
    if (!m) throw invalid('The filter must be `attribute eq "value"` (joined by `and`)');
    if (m[2]!.toLowerCase() !== "eq") throw invalid(`The operator ${m[2]} is not supported: only eq`);
    let value: unknown;
    try {
      value = JSON.parse(m[3]!);
    } catch {
      throw invalid("The filter's value is not a valid string");
    }
    clauses.push({ attribute: attributeOf(m[1]!, allowed), value: value as string });
    rest = rest.slice(m[0].length);
    if (rest === "") return clauses;
    const and = /^and\s+/i.exec(rest);
    if (!and || clauses.length >= 5) throw invalid("Only `and` joins clauses, at most 5 of them");
    rest = rest.slice(and[0].length);
  }
}
