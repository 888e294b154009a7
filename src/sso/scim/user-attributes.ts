// A SCIM User as snip keeps it (RFC 7643 4.1): userName, externalId, active, name, displayName and emails. What
// identity providers send beyond these (title, phone numbers, the enterprise extension) is accepted and not kept.
import { invalidSyntax, invalidValue } from "./errors.js";

export const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
export const ENTERPRISE_USER_SCHEMA = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
export const GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group";
/** Entra ID names this schema beside the core one when it creates a group. */
export const ENTRA_GROUP_SCHEMA = "http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/Group";
export const PATCH_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
export const LIST_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:ListResponse";

export interface ScimName {
  givenName?: string;
  familyName?: string;
  formatted?: string;
}
export interface ScimEmail {
  value: string;
  type?: string;
  primary?: boolean;
}
export interface UserState {
  userName: string;
  externalId: string | null;
  active: boolean;
  displayName: string | null;
  name: ScimName;
  emails: ScimEmail[];
}
/** What the `attributes` column holds. */
export type StoredAttributes = Pick<UserState, "displayName" | "name" | "emails">;

const MAX_TEXT = 256;
const MAX_EMAILS = 10;

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function text(v: unknown, field: string, max = MAX_TEXT): string {
  if (typeof v !== "string") throw invalidValue(`${field} must be a string`);
  const t = v.trim();
  if (t.length > max) throw invalidValue(`${field} has at most ${max} characters`);
  return t;
}

export function optionalText(v: unknown, field: string): string | null {
  if (v === null || v === undefined) return null;
  const t = text(v, field);
  return t === "" ? null : t;
}

/** A boolean, or Entra ID's "True"/"False" strings. */
export function bool(v: unknown, field: string): boolean {
  if (typeof v === "boolean") return v;
  if (typeof v === "string" && /^(true|false)$/i.test(v.trim())) return v.trim().toLowerCase() === "true";
  throw invalidValue(`${field} must be true or false`);
}

export function userNameOf(v: unknown): string {
  const t = text(v, "userName");
  if (t === "") throw invalidValue("userName is required");
  return t;
}

export function nameOf(v: unknown, before: ScimName = {}): ScimName {
  if (v === null || v === undefined) return {};
  if (!isObject(v)) throw invalidValue("name must be an object");
  const out: ScimName = { ...before };
  for (const [k, raw] of Object.entries(v)) {
    const key = k.toLowerCase();
    if (key === "givenname") out.givenName = text(raw, "name.givenName");
    else if (key === "familyname") out.familyName = text(raw, "name.familyName");
    else if (key === "formatted") out.formatted = text(raw, "name.formatted");
    // middleName, honorificPrefix, honorificSuffix: accepted, not kept.
  }
  return out;
}

export function emailOf(v: unknown, field = "emails"): ScimEmail {
  if (!isObject(v)) throw invalidValue(`${field} entries must be objects`);
  const out: ScimEmail = { value: text(v.value, `${field}.value`) };
  if (v.type !== undefined && v.type !== null) out.type = text(v.type, `${field}.type`, 20).toLowerCase();
  if (v.primary !== undefined && v.primary !== null) out.primary = bool(v.primary, `${field}.primary`);
  return out;
}

export function emailsOf(v: unknown): ScimEmail[] {
  if (v === null || v === undefined) return [];
  if (!Array.isArray(v)) throw invalidValue("emails must be an array");
  if (v.length > MAX_EMAILS) throw invalidValue(`emails has at most ${MAX_EMAILS} entries`);
  return v.map((e) => emailOf(e));
}

/** The schemas a request names: the given resource's, optionally the enterprise extension; anything else is refused. */
export function checkSchemas(v: unknown, main: string, extras: readonly string[] = []): void {
  if (!Array.isArray(v) || v.length === 0 || v.length > 5) throw invalidSyntax(`schemas must list ${main}`);
  const lower = v.map((s) => (typeof s === "string" ? s.toLowerCase() : ""));
  if (!lower.includes(main.toLowerCase())) throw invalidSyntax(`schemas must list ${main}`);
  const known = new Set([main, ...extras].map((s) => s.toLowerCase()));
  const unknown = lower.find((s) => !known.has(s));
  if (unknown !== undefined) throw invalidSyntax(`Unknown schema ${String(unknown).slice(0, 100) || "(not a string)"}`);
}

/** A User body of POST or PUT: the whole resource. */
export function userFromBody(body: unknown): UserState {
  if (!isObject(body)) throw invalidSyntax("The body must be a JSON object");
  checkSchemas(body.schemas, USER_SCHEMA, [ENTERPRISE_USER_SCHEMA]);
  const get = (name: string) => Object.entries(body).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
  const active = get("active");
  return {
    userName: userNameOf(get("userName")),
    externalId: optionalText(get("externalId"), "externalId"),
    active: active === undefined || active === null ? true : bool(active, "active"),
    displayName: optionalText(get("displayName"), "displayName"),
    name: nameOf(get("name")),
    emails: emailsOf(get("emails")),
  };
}

/** The address the account is made with: the primary email, else the work one, else the first, else userName. */
export function accountEmail(u: Pick<UserState, "emails" | "userName">): string {
  const pick = u.emails.find((e) => e.primary) ?? u.emails.find((e) => e.type === "work") ?? u.emails[0];
  return (pick?.value ?? u.userName).toLowerCase();
}
