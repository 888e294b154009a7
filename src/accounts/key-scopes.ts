// Scopes and expiry of an API key (docs/api.md, API keys): checked at creation, read back from the row, and
// the audit entries a key's creation and revocation leave in the audit log (admin_audit, the house's one log).
import type { Kysely } from "kysely";
import type { ApiKeyRow, Database, UserRow } from "../storage/schema.js";
import { invalid } from "../shared/errors.js";
import { requireCapability } from "./plans.js";
import { appendAudit } from "../storage/audit-entry.js";
import { API_KEY_SCOPES, DEFAULT_KEY_SCOPES, type ApiKeyScope } from "../contract/api-keys.js";

/** Latest expiry a key may be given: ten years (a key for ever is `null`). */
const MAX_KEY_LIFETIME_MS = 10 * 366 * 86_400_000;

function isScope(value: string): value is ApiKeyScope {
  return (API_KEY_SCOPES as readonly string[]).includes(value);
}

/** The scopes asked for, each known and once, in the contract's order; absent: the default. */
export function checkScopes(raw: readonly string[] | undefined): ApiKeyScope[] {
  if (raw === undefined) return [...DEFAULT_KEY_SCOPES];
  if (raw.length === 0) throw invalid("scopes", "choose at least one scope");
  const unknown = raw.filter((s) => !isScope(s));
  if (unknown.length > 0) throw invalid("scopes", `unknown scope ${JSON.stringify(unknown[0]!.slice(0, 50))}; known: ${API_KEY_SCOPES.join(", ")}`);
  const twice = raw.find((s, i) => raw.indexOf(s) !== i);
  if (twice !== undefined) throw invalid("scopes", `${twice} is listed twice`);
  return API_KEY_SCOPES.filter((s) => raw.includes(s));
}

/** An ISO-8601 time in the future (at most ten years ahead), or null for a key that does not expire. */
export function checkKeyExpiry(raw: string | null | undefined, now: number): number | null {
  if (raw === undefined || raw === null) return null;
  const t = /^\d{4}-\d{2}-\d{2}T/.test(raw) ? Date.parse(raw) : NaN;
  if (!Number.isFinite(t)) throw invalid("expires_at", "must be an ISO-8601 time such as 2027-01-31T00:00:00Z");
  if (t <= now) throw invalid("expires_at", "must be in the future");
  if (t > now + MAX_KEY_LIFETIME_MS) throw invalid("expires_at", "must be at most ten years ahead");
  return t;
}

/**
 * The folders a new key is limited to: each a folder of the account, once (an id of another account's is refused
 * as one that does not exist); null or absent: every link. Business and above.
 */
export async function checkKeyFolders(
  db: Kysely<Database>,
  user: Pick<UserRow, "id" | "plan">,
  raw: readonly string[] | null | undefined,
): Promise<string[] | null> {
  if (raw === undefined || raw === null) return null;
  requireCapability(user.plan, "folders", "A key limited to folders");
  if (raw.length === 0) throw invalid("folder_ids", "choose at least one folder, or leave folder_ids out for every link");
  const twice = raw.find((s, i) => raw.indexOf(s) !== i);
  if (twice !== undefined) throw invalid("folder_ids", "a folder is listed twice");
  const found = await db
    .selectFrom("folders")
    .select("id")
    .where("owner_id", "=", user.id)
    .where("id", "in", [...raw])
    .execute();
  if (found.length !== raw.length) throw invalid("folder_ids", "No such folder");
  return [...raw];
}

/** The folders a key is limited to, or null for every link; an unreadable value limits it to none. */
export function keyFolders(key: Pick<ApiKeyRow, "folder_ids">): string[] | null {
  if (key.folder_ids === null || key.folder_ids === undefined) return null;
  try {
    const parsed: unknown = JSON.parse(key.folder_ids);
    return Array.isArray(parsed) ? parsed.filter((v): v is string => typeof v === "string") : [];
  } catch {
    return [];
  }
}

/** The row's scopes; an unreadable value grants nothing. */
export function scopesOf(key: Pick<ApiKeyRow, "scopes">): ApiKeyScope[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(key.scopes);
  } catch {
    return [];
  }
  return Array.isArray(parsed) ? API_KEY_SCOPES.filter((s) => parsed.includes(s)) : [];
}

/**
 * One audit entry for a key's creation or revocation, in the action's transaction. The account holder is the
 * actor (the key is theirs); written as the operator console's AuditLog writes (admin/ sits above accounts/).
 */
export async function auditKey(
  trx: Kysely<Database>,
  user: Pick<UserRow, "id" | "email">,
  at: number,
  action: "api_key.create" | "api_key.revoke",
  key: ApiKeyRow,
): Promise<void> {
  const state = {
    name: key.name,
    prefix: key.prefix,
    scopes: scopesOf(key),
    expires_at: key.expires_at === null ? null : new Date(key.expires_at).toISOString(),
    ...(key.folder_ids ? { folder_ids: keyFolders(key) } : {}),
  };
  const created = action === "api_key.create";
  await appendAudit(trx, {
    at,
    actor_id: user.id,
    actor_email: user.email,
    action,
    target_type: "api_key",
    target_id: key.id,
    summary: `${user.email}: ${created ? "created" : "revoked"} API key ${key.prefix} (${state.scopes.join(", ")})`,
    before: created ? null : JSON.stringify(state),
    after: created ? JSON.stringify(state) : null,
  });
}
