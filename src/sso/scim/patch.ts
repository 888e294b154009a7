// PATCH (RFC 7644 3.5.2) as Okta and Entra ID send it: operations with or without a path, `op` in any case
// ("replace", "Replace"), values as objects, strings or Entra ID's "True"/"False", and the paths
// `active`, `userName`, `externalId`, `displayName`, `name.givenName`, `emails[type eq "work"].value`.
import {
  PATCH_SCHEMA,
  type ScimEmail,
  type UserState,
  bool,
  checkSchemas,
  emailOf,
  emailsOf,
  isObject,
  nameOf,
  optionalText,
  text,
  userNameOf,
} from "./user-attributes.js";
import { ScimError, invalidPath, invalidSyntax, invalidValue } from "./errors.js";

export type PatchOpName = "add" | "replace" | "remove";
export interface PatchOp {
  op: PatchOpName;
  path: string | null;
  value: unknown;
}

const MAX_OPS = 100;
const USER_PREFIX = /^urn:ietf:params:scim:schemas:core:2\.0:user:/i;
const ENTERPRISE_PREFIX = /^urn:ietf:params:scim:schemas:extension:enterprise:2\.0:user/i;
/** Core User attributes snip does not keep: accepted so that a provider's mapping does not fail, and dropped. */
const NOT_KEPT = new Set([
  "nickname",
  "profileurl",
  "title",
  "usertype",
  "preferredlanguage",
  "locale",
  "timezone",
  "password",
  "phonenumbers",
  "ims",
  "photos",
  "addresses",
  "entitlements",
  "roles",
  "x509certificates",
]);

/** The operations of a PatchOp body, checked. */
export function patchOps(body: unknown): PatchOp[] {
  if (!isObject(body)) throw invalidSyntax("The body must be a JSON object");
  checkSchemas(body.schemas, PATCH_SCHEMA);
  const ops = body.Operations ?? body.operations;
  if (!Array.isArray(ops) || ops.length === 0) throw invalidSyntax("Operations must be a non-empty array");
  if (ops.length > MAX_OPS) throw invalidSyntax(`At most ${MAX_OPS} operations per request`);
  return ops.map((o, i) => {
    if (!isObject(o)) throw invalidSyntax(`Operations[${i}] must be an object`);
    const op = typeof o.op === "string" ? o.op.toLowerCase() : "";
    if (op !== "add" && op !== "replace" && op !== "remove") throw invalidSyntax(`Operations[${i}].op must be add, replace or remove`);
    if (o.path !== undefined && o.path !== null && (typeof o.path !== "string" || o.path.length > 300)) throw invalidPath(`Operations[${i}].path is not valid`);
    const path = typeof o.path === "string" && o.path.trim() !== "" ? o.path.trim() : null;
    if (op === "remove" && path === null) throw new ScimError(400, "noTarget", `Operations[${i}]: remove needs a path`);
    if (op !== "remove" && o.value === undefined) throw invalidValue(`Operations[${i}] has no value`);
    return { op: op as PatchOpName, path, value: o.value };
  });
}

/** One email of a type set (created when the user has none of that type). */
function setTypedEmail(emails: ScimEmail[], type: string, value: unknown): ScimEmail[] {
  const v = isObject(value) ? emailOf({ type, ...value }) : { value: text(value, `emails[type eq "${type}"].value`), type };
  const at = emails.findIndex((e) => e.type === type);
  if (at === -1) return [...emails, { ...v, type }];
  return emails.map((e, i) => (i === at ? { ...e, ...v, type } : e));
}

/** One attribute (by path) of the user changed by an operation. */
function applyPath(u: UserState, op: PatchOpName, rawPath: string, value: unknown): UserState {
  const path = rawPath.replace(USER_PREFIX, "");
  const key = path.toLowerCase().replace(/\s+/g, " ");
  if (ENTERPRISE_PREFIX.test(path)) return u;
  const remove = op === "remove";
  switch (key) {
    case "active":
      if (remove) throw invalidValue("active cannot be removed");
      return { ...u, active: bool(value, "active") };
    case "username":
      if (remove) throw invalidValue("userName cannot be removed");
      return { ...u, userName: userNameOf(value) };
    case "externalid":
      return { ...u, externalId: remove ? null : optionalText(value, "externalId") };
    case "displayname":
      return { ...u, displayName: remove ? null : optionalText(value, "displayName") };
    case "name":
      return { ...u, name: remove ? {} : nameOf(value, op === "add" ? u.name : {}) };
    case "name.givenname":
    case "name.familyname":
    case "name.formatted": {
      const field = key === "name.givenname" ? "givenName" : key === "name.familyname" ? "familyName" : "formatted";
      const name = { ...u.name };
      if (remove) delete name[field];
      else name[field] = text(value, `name.${field}`);
      return { ...u, name };
    }
    case "emails":
      if (remove) return { ...u, emails: [] };
      return { ...u, emails: op === "add" ? [...u.emails, ...emailsOf(Array.isArray(value) ? value : [value])].slice(0, 10) : emailsOf(value) };
  }
  const typed = /^emails\[type eq "([a-z]{1,20})"\](\.value)?$/.exec(key);
  if (typed) {
    const type = typed[1]!;
    if (remove) return { ...u, emails: u.emails.filter((e) => e.type !== type) };
    return { ...u, emails: setTypedEmail(u.emails, type, value) };
  }
  const head = key.split(/[.[]/)[0]!;
  if (NOT_KEPT.has(head)) return u;
  throw invalidPath(`The attribute ${rawPath.slice(0, 100)} is not known`);
}

/** The user after the operations (all or nothing: the caller saves the result once). */
export function applyUserPatch(before: UserState, ops: PatchOp[]): UserState {
  let u = before;
  for (const o of ops) {
    if (o.path !== null) {
      u = applyPath(u, o.op, o.path, o.value);
      continue;
    }
    // No path: the value is an object of attributes (Okta: {"active": false}; Entra ID may send dotted keys).
    if (!isObject(o.value)) throw invalidValue("An operation without a path takes an object of attributes");
    for (const [k, v] of Object.entries(o.value)) {
      if (ENTERPRISE_PREFIX.test(k) || k.toLowerCase() === "schemas" || k.toLowerCase() === "id") continue;
      u = applyPath(u, o.op, k, v);
    }
  }
  return u;
}
