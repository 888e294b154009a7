// Creating a link: who may set which option, validation, plan limits, alias uniqueness under races.
import { DomainError } from "../shared/errors.js";
import { retryAfterSeconds } from "../storage/rate-events.js";
import { newId } from "../shared/ids.js";
import type { Transaction } from "kysely";
import type { Database, LinkRow, UserRow } from "../storage/schema.js";
import { hashPassword } from "../accounts/passwords.js";
import { planLimits, requireCapability } from "../accounts/plans.js";
import { GENERATE_ATTEMPTS, aliasTaken, generateAlias, isUniqueViolation } from "./aliases.js";
import { AliasReserved, claimAlias } from "./alias-reservations.js";
import { announce, type LinkDeps } from "./deps.js";
import { checkAlias, checkLinkPassword, checkMaxClicks, normalizeDestination, parseExpiry, refuseBlocked } from "./validate.js";

export const SIGNED_OUT_LIFETIME_MS = 5 * 60_000;

export interface CreateLinkInput {
  url: string;
  alias?: string | null;
  domain?: string | null;
  expires_at?: string | null;
  max_clicks?: number | null;
  password?: string | null;
  ios_url?: string | null;
  android_url?: string | null;
}

export interface CreateLinkOptions {
  /** Where the request came from; reserved for auditing and events. */
  via?: "dashboard" | "api";
  /** The client's address: signed-out creations are throttled per address. */
  ip?: string;
}

/** Signed-out creations per address and hour unless SIGNED_OUT_LINKS_PER_HOUR says otherwise (anyone can create them, so they need a bound). */
export const DEFAULT_SIGNED_OUT_PER_HOUR = 30;
const HOUR = 3_600_000;

const SIGNED_IN_OPTIONS = ["domain", "expires_at", "max_clicks", "password", "ios_url", "android_url"] as const;

export function requireActive(actor: UserRow): void {
  if (actor.status !== "active") throw new DomainError("account_inactive", "This account is suspended");
}

export async function createLink(deps: LinkDeps, actor: UserRow | null, input: CreateLinkInput, opts: CreateLinkOptions = {}): Promise<LinkRow> {
  const now = deps.clock.now();
  const anonBucket = !actor && opts.ip ? `anon-link:${opts.ip}` : null;
  if (!actor) {
    const used = SIGNED_IN_OPTIONS.filter((f) => input[f] !== undefined && input[f] !== null && input[f] !== "");
    if (used.length > 0) throw new DomainError("unauthenticated", `Sign in to use ${used.join(", ")}; signed out, only url and alias are accepted`);
    if (anonBucket) {
      const state = await deps.rate.state(anonBucket, now - HOUR);
      if (state.count >= deps.signedOutPerHour) {
        throw new DomainError("rate_limited", "Too many links created signed out from this address; sign in to create more", undefined, undefined, retryAfterSeconds(state, HOUR, now));
      }
    }
  } else {
    requireActive(actor);
  }

  const url = normalizeDestination(String(input.url ?? ""), "url", deps.ownHost);
  const wanted = input.alias === undefined || input.alias === null || input.alias === "" ? null : checkAlias(input.alias);
  // Signed out, a domain was refused above.
  const domain = actor ? await deps.linkDomain(actor.id, input.domain) : "";
  const ios = input.ios_url == null ? null : normalizeDestination(input.ios_url, "ios_url", deps.ownHost);
  const android = input.android_url == null ? null : normalizeDestination(input.android_url, "android_url", deps.ownHost);
  refuseBlocked(deps, { url, ios_url: ios, android_url: android });

  let expiresAt: number | null = actor ? null : now + SIGNED_OUT_LIFETIME_MS;
  let maxClicks: number | null = null;
  let passwordHash: string | null = null;
  if (actor) {
    if (input.expires_at != null) {
      requireCapability(actor.plan, "link_expiration", "Link expiration");
      expiresAt = parseExpiry(input.expires_at, now);
    }
    if (input.max_clicks != null) {
      requireCapability(actor.plan, "link_max_clicks", "A maximum number of clicks");
      maxClicks = checkMaxClicks(input.max_clicks);
    }
    if (input.password != null) passwordHash = await hashPassword(checkLinkPassword(input.password));
  }

  const base = {
    domain,
    url,
    ios_url: ios,
    android_url: android,
    expires_at: expiresAt,
    max_clicks: maxClicks,
    password_hash: passwordHash,
    owner_id: actor?.id ?? null,
    created_at: now,
    updated_at: now,
    updated_by: null,
    disabled_at: null,
    disabled_status: null,
    disabled_reason: null,
  };
  // The unique (domain, alias) constraint decides races: one creator wins, the others get 409. An alias
  // another owner (or a signed-out link) gave up stays theirs: claimAlias refuses it after the insert.
  for (let attempt = 0; ; attempt++) {
    const row = { ...base, id: newId(), alias: wanted ?? generateAlias() };
    try {
      // The plan's link count is checked and the link inserted in one transaction that holds the owner's
      // row, so concurrent creations (on any instance) cannot together pass the limit.
      const { num } = await deps.db.transaction().execute(async (trx) => {
        if (actor) await checkLinkAllowance(trx, actor);
        if (actor && domain !== "") await deps.holdDomain(trx, actor.id, domain);
        const inserted = await trx.insertInto("links").values(row).returning("num").executeTakeFirstOrThrow();
        await claimAlias(trx, row, row.owner_id, wanted === null);
        return inserted;
      });
      if (anonBucket) await deps.rate.record(anonBucket, now);
      await announce(deps, [{ domain, alias: row.alias }]);
      return { ...row, num: Number(num), click_count: 0 };
    } catch (err) {
      if (!isUniqueViolation(err) && !(err instanceof AliasReserved)) throw err;
      if (wanted !== null) throw aliasTaken(wanted);
      if (attempt + 1 >= GENERATE_ATTEMPTS) throw new DomainError("internal_error", "Could not generate a free short code");
    }
  }
}

/** Per-plan link count, inside the creating transaction: it first takes the owner's row lock. */
async function checkLinkAllowance(trx: Transaction<Database>, actor: UserRow): Promise<void> {
  // An UPDATE that changes nothing: a row lock on PostgreSQL (creations by one owner queue here), and
  // on SQLite the transaction already holds the database's write lock (BEGIN IMMEDIATE).
  await trx.updateTable("users").set((eb) => ({ status: eb.ref("status") })).where("id", "=", actor.id).execute();
  const { maxLinks } = planLimits(actor.plan);
  const row = await trx
    .selectFrom("links")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("owner_id", "=", actor.id)
    .executeTakeFirstOrThrow();
  if (Number(row.n) >= maxLinks) {
    throw new DomainError("limit_reached", `Your plan allows ${maxLinks} links; delete some or upgrade`, undefined, { limit: maxLinks });
  }
}
