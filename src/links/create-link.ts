// Creating a link: who may set which option, validation, plan limits, alias uniqueness under races.
import { DomainError, FieldChecks } from "../shared/errors.js";
import type { Slot } from "../storage/rate-events.js";
import { newId } from "../shared/ids.js";
import type { LinkRow, UserRow } from "../storage/schema.js";
import { type Cap, type Trx } from "../storage/owner-caps.js";
import { hashPassword } from "../accounts/passwords.js";
import { planLimits, requireCapability } from "../accounts/plans.js";
import { GENERATE_ATTEMPTS, aliasTaken, generateAlias } from "./aliases.js";
import { isForeignKeyViolation, isUniqueViolation } from "../storage/unique-violation.js";
import { AliasReserved, claimAlias } from "./alias-reservations.js";
import { announce, type LinkDeps } from "./deps.js";
import { type LinkDetailsInput, checkDetails, setLinkTags } from "./link-details.js";
import { checkStartBeforeExpiry } from "./link-delivery.js";
import { checkFolderId, folderGone } from "../teams/folders.js";
import { type LinkAccess, requireFolderWrite } from "../teams/access.js";
import { checkAlias, checkLinkPassword, checkMaxClicks, normalizeDestination, parseExpiry, refuseBlocked } from "./validate.js";

export const SIGNED_OUT_LIFETIME_MS = 5 * 60_000;

export interface CreateLinkInput extends LinkDetailsInput {
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
  /**
   * An import (src/imports): columns kept from the source as they are, after the input's checks: the
   * creation time, an expiry already past, a link password's hash (snip's own export), the clicks the
   * source counted.
   */
  imported?: { created_at?: number; expires_at?: number | null; password_hash?: string; imported_clicks?: number };
  /**
   * A team member creating in the owner's account (`?owner=`, links.create: docs/roles.md): the member, and its access
   * to the owner. The link is the owner's (the owner's plan, limits and domains), its updated_by names the member.
   */
  team?: { actor: UserRow; access: LinkAccess & { owner: UserRow } };
}

/** Signed-out creations per address and hour unless SIGNED_OUT_LINKS_PER_HOUR says otherwise (anyone can create them, so they need a bound). */
export const DEFAULT_SIGNED_OUT_PER_HOUR = 30;
const HOUR = 3_600_000;

const SIGNED_IN_OPTIONS = [
  "domain",
  "expires_at",
  "max_clicks",
  "password",
  "ios_url",
  "android_url",
  "title",
  "note",
  "tags",
  "folder_id",
  "expired_url",
  "preview",
  "archived",
  "rules",
  "split",
  "split_goal",
  "split_ends_at",
  "split_min_visits",
  "starts_at",
  "redirect_status",
  "crawlable",
  "track_conversions",
  "app_ios_store_id",
  "app_android_package",
  "app_path",
  "open_outside",
] as const;

const given = (v: unknown) => v !== undefined && v !== null && v !== "" && !(Array.isArray(v) && v.length === 0);

export function requireActive(actor: UserRow): void {
  if (actor.status !== "active") throw new DomainError("account_inactive", "This account is suspended");
}

export async function createLink(deps: LinkDeps, actor: UserRow | null, input: CreateLinkInput, opts: CreateLinkOptions = {}): Promise<LinkRow> {
  const now = deps.clock.now();
  if (actor) {
    requireActive(actor);
    // In a team owner's name: the rest runs as the owner's own creation would (the owner's plan, count and domains).
    return insertLink(deps, opts.team ? opts.team.access.owner : actor, input, opts, now);
  }
  const used = SIGNED_IN_OPTIONS.filter((f) => given(input[f]));
  if (used.length > 0) throw new DomainError("unauthenticated", `Sign in to use ${used.join(", ")}; signed out, only url and alias are accepted`);
  if (!opts.ip) return insertLink(deps, actor, input, opts, now);
  // Signed out, each creation takes its slot of the address's hour before the checks and the insert (one
  // step with the count, so a burst gets exactly the limit); a creation that fails gives it back.
  const slot = await deps.rate.attempt([{ bucket: `anon-link:${opts.ip}`, windowMs: HOUR, limit: deps.signedOutPerHour }], now);
  if ("full" in slot)
    throw new DomainError(
      "rate_limited",
      "Too many links created signed out from this address; sign in to create more",
      undefined,
      undefined,
      slot.full.retryAfter,
    );
  return insertLink(deps, actor, input, opts, now, slot.slot);
}

async function insertLink(deps: LinkDeps, actor: UserRow | null, input: CreateLinkInput, opts: CreateLinkOptions, now: number, slot?: Slot): Promise<LinkRow> {
  try {
    return await insertChecked(deps, actor, input, opts, now);
  } catch (e) {
    await slot?.release();
    throw e;
  }
}

async function insertChecked(deps: LinkDeps, actor: UserRow | null, input: CreateLinkInput, opts: CreateLinkOptions, now: number): Promise<LinkRow> {
  const { base, wanted, domain, tags } = await prepareLink(deps, actor, input, opts, now);
  // The unique (domain, alias) constraint decides races: one creator wins, the others get 409. An alias
  // another owner (or a signed-out link) gave up stays theirs: claimAlias refuses it after the insert.
  for (let attempt = 0; ; attempt++) {
    const row = { ...base, id: newId(), alias: wanted ?? generateAlias() };
    try {
      const insert = async (trx: Trx) => {
        if (actor && domain !== "") await deps.holdDomain(trx, actor.id, domain);
        const inserted = await trx.insertInto("links").values(row).returning("num").executeTakeFirstOrThrow();
        await claimAlias(trx, deps.caps, row, row.owner_id, wanted === null);
        if (actor && tags?.length) await setLinkTags(trx, actor.id, row.id, tags, now);
        return inserted;
      };
      // The plan's link count is checked and the link inserted under the owner's lock, so concurrent
      // creations (on any instance) cannot together pass the limit.
      const { num } = actor ? await deps.caps.add(actor.id, linkAllowance(actor), insert) : await deps.db.transaction().execute(insert);
      await announce(deps, [{ domain, alias: row.alias }]);
      return { ...row, num: Number(num), click_count: 0, imported_clicks: row.imported_clicks ?? 0 };
    } catch (err) {
      if (isForeignKeyViolation(err) && row.folder_id !== null) throw folderGone();
      if (!isUniqueViolation(err) && !(err instanceof AliasReserved)) throw err;
      if (wanted !== null) throw aliasTaken(wanted);
      if (attempt + 1 >= GENERATE_ATTEMPTS) throw new DomainError("internal_error", "Could not generate a free short code");
    }
  }
}

/** A link's row as it will be inserted (id and alias aside), its alias asked for and its tags: every check of the input done. */
export interface PreparedLink {
  base: Omit<LinkRow, "id" | "alias" | "num" | "click_count" | "imported_clicks"> & { imported_clicks?: number };
  wanted: string | null;
  domain: string;
  tags: string[] | undefined;
}

/** Checks the input (every check of a creation but the alias's availability and the plan's count) and builds its row; nothing written. */
export async function prepareLink(deps: LinkDeps, actor: UserRow | null, input: CreateLinkInput, opts: CreateLinkOptions, now: number): Promise<PreparedLink> {
  const { url, wanted, domain, ios, android, expiresAt, maxClicks, password, details } = await checkInput(deps, actor, input, now, opts.team?.access);
  const passwordHash = password === null ? null : await hashPassword(password);
  const base: PreparedLink["base"] = {
    domain,
    url: url as string,
    ios_url: ios,
    android_url: android,
    expires_at: expiresAt,
    max_clicks: maxClicks,
    password_hash: passwordHash,
    owner_id: actor?.id ?? null,
    created_at: now,
    updated_at: now,
    updated_by: opts.team?.actor.id ?? null,
    disabled_at: null,
    disabled_status: null,
    disabled_reason: null,
    title: null,
    note: null,
    archived_at: null,
    expired_url: null,
    preview_title: null,
    preview_description: null,
    preview_image: null,
    last_click_at: null,
    rules: null,
    split: null,
    starts_at: null,
    redirect_status: null,
    crawlable: 0,
    split_goal: null,
    split_ends_at: null,
    split_min_visits: null,
    split_started_at: null,
    split_decision: null,
    track_conversions: null,
    app_ios_store_id: null,
    app_android_package: null,
    app_path: null,
    open_outside: null,
    ...details.set,
    ...opts.imported,
  };
  return { base, wanted, domain, tags: details.tags };
}

/** Every check of a creation but the alias's availability and the plan's count, nothing written (the import's preview). */
export async function checkCreation(deps: LinkDeps, actor: UserRow, input: CreateLinkInput): Promise<void> {
  requireActive(actor);
  await checkInput(deps, actor, input, deps.clock.now());
}

/** The plan's link count, read under the owner's lock. */
export function linkAllowance(actor: UserRow): Cap {
  const { maxLinks } = planLimits(actor.plan);
  return {
    limit: maxLinks,
    // Kept by triggers on users and links (migration 024): no count of the account's links per creation.
    count: async (trx) => Number((await trx.selectFrom("link_counts").select("links").where("owner_id", "=", actor.id).executeTakeFirst())?.links ?? 0),
    refuse: () => new DomainError("limit_reached", `Your plan allows ${maxLinks} links; delete some or upgrade`, undefined, { limit: maxLinks }),
  };
}

/** The link's fields checked, every wrong one reported at once; a plan refusal still comes after the fields before it. */
async function checkInput(deps: LinkDeps, actor: UserRow | null, input: CreateLinkInput, now: number, team?: LinkAccess) {
  const checks = new FieldChecks();
  const url = checks.run(() => normalizeDestination(String(input.url ?? ""), "url", deps.ownHost));
  const alias = input.alias === undefined || input.alias === null || input.alias === "" ? null : checks.run(() => checkAlias(input.alias as string));
  // Signed out, a domain was refused before.
  const domain = actor ? await checks.runAsync(() => deps.linkDomain(actor.id, input.domain)) : "";
  const ios = input.ios_url == null ? null : checks.run(() => normalizeDestination(input.ios_url as string, "ios_url", deps.ownHost));
  const android = input.android_url == null ? null : checks.run(() => normalizeDestination(input.android_url as string, "android_url", deps.ownHost));
  const details = actor ? checkDetails(checks, input, actor.plan, deps.ownHost, now) : { set: {}, tags: undefined, targetUrls: [] };
  checks.run(() => refuseBlocked(deps, { url, ios_url: ios, android_url: android, expired_url: details.set.expired_url }, details.targetUrls));
  // Signed out, a folder was refused before. Checked again where the link is written: a folder deleted meanwhile leaves it in none.
  // A team member files the link only in a folder it may write (docs/folders.md, Access).
  const folderId =
    actor && input.folder_id != null
      ? await checks.runAsync(async () => {
          const id = await checkFolderId(deps.db, actor, input.folder_id ?? null);
          if (team) requireFolderWrite(team, id);
          return id;
        })
      : null;

  let expiresAt: number | null | undefined = actor ? null : now + SIGNED_OUT_LIFETIME_MS;
  let maxClicks: number | null | undefined = null;
  let password: string | null | undefined = null;
  if (actor) {
    const { expires_at: at, max_clicks: n, password: secret } = input;
    if (at != null) {
      expiresAt = checks.run(() => {
        requireCapability(actor.plan, "link_expiration", "Link expiration");
        return parseExpiry(at, now);
      });
    }
    if (n != null) {
      maxClicks = checks.run(() => {
        requireCapability(actor.plan, "link_max_clicks", "A maximum number of clicks");
        return checkMaxClicks(n);
      });
    }
    if (secret != null) password = checks.run(() => checkLinkPassword(secret));
    checks.run(() => checkStartBeforeExpiry(details.set.starts_at, expiresAt));
  }
  checks.throwIfAny();
  // Past throwIfAny every check passed: nothing is undefined.
  return {
    url: url as string,
    wanted: alias as string | null,
    domain: domain as string,
    ios: ios as string | null,
    android: android as string | null,
    expiresAt: expiresAt as number | null,
    maxClicks: maxClicks as number | null,
    password: password as string | null,
    details: { ...details, set: { ...details.set, folder_id: folderId ?? null } },
  };
}
