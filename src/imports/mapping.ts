// A source link as a snip link (docs/import.md, Mapping): the alias kept on the owner's verified custom
// domain of the same name, else on the main host; what the owner's plan does not allow dropped with a
// note; what snip cannot hold (a password it cannot read) noted. The creation itself
// (destination checks, the blocklist, the alias) is LinkService.create's, as for any link.
import { can } from "../accounts/plans.js";
import { isOwnHash } from "../accounts/passwords.js";
import type { CreateLinkInput, CreateLinkOptions } from "../links/create-link.js";
import type { UserRow } from "../storage/schema.js";
import { MAX_TAGS_PER_LINK } from "../contract/form-rules.js";
import type { SourceLink } from "./source.js";

export interface ImportTarget {
  owner: UserRow;
  /** The owner's verified custom domains (lower case). */
  domains: ReadonlySet<string>;
  /** BASE_URL's host name. */
  mainHost: string;
}

export interface MappedLink {
  input: CreateLinkInput;
  imported: NonNullable<CreateLinkOptions["imported"]>;
  /** "" for the main host. */
  domain: string;
  notes: string[];
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function targetDomain(src: SourceLink, target: ImportTarget, notes: string[]): string {
  const host = src.domain?.trim().toLowerCase().replace(/\.$/, "") ?? "";
  if (host === "" || host === target.mainHost) return "";
  if (target.domains.has(host)) return host;
  notes.push(`was on ${host}, not a verified domain of this account: created on ${target.mainHost}`);
  return "";
}

/** Plan-gated and source-only fields: kept when allowed, else dropped with a note. */
function gated(src: SourceLink, plan: string, now: number, m: MappedLink): void {
  const { input, imported, notes } = m;
  if (src.expires_at != null) {
    if (!can(plan, "link_expiration")) notes.push(`expiry ${day(src.expires_at)} dropped: link expiration needs the Pro plan`);
    else if (src.expires_at <= now) imported.expires_at = src.expires_at;
    else input.expires_at = new Date(src.expires_at).toISOString();
  }
  if (src.max_clicks != null) {
    if (can(plan, "link_max_clicks")) input.max_clicks = src.max_clicks;
    else notes.push(`click limit ${src.max_clicks} dropped: a maximum number of clicks needs the Pro plan`);
  }
  if (src.expired_url) {
    if (can(plan, "link_fallback")) input.expired_url = src.expired_url;
    else notes.push("fallback URL dropped: it needs the Pro plan");
  }
  if (src.preview) {
    if (can(plan, "link_preview")) input.preview = src.preview;
    else notes.push("social preview dropped: it needs the Pro plan");
  }
  // Given and not empty: anything but a list of rules is passed on for the schema to refuse (link-gate.ts).
  const present = (v: unknown) => v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0);
  const rules = present(src.rules);
  const split = present(src.split);
  if (rules || split) {
    if (can(plan, "link_targeting")) {
      if (rules) input.rules = src.rules as CreateLinkInput["rules"];
      if (split) input.split = src.split as CreateLinkInput["split"];
    } else notes.push("redirect rules and split dropped: they need the Business plan");
  }
}

export function mapLink(src: SourceLink, target: ImportTarget, now: number): MappedLink {
  const notes = [...(src.notes ?? [])];
  const domain = targetDomain(src, target, notes);
  const input: CreateLinkInput = { url: src.url, alias: src.alias ?? null, domain: domain === "" ? null : domain };
  const m: MappedLink = { input, imported: {}, domain, notes };
  if (src.title) input.title = src.title.slice(0, 2000);
  if (src.note) input.note = src.note;
  if (src.tags?.length) {
    const tags = [...new Map(src.tags.map((t) => [t.trim().toLowerCase(), t.trim()])).values()].filter((t) => t !== "");
    if (tags.length > MAX_TAGS_PER_LINK) notes.push(`${tags.length - MAX_TAGS_PER_LINK} tags past the first ${MAX_TAGS_PER_LINK} dropped`);
    input.tags = tags.slice(0, MAX_TAGS_PER_LINK);
  }
  if (src.ios_url) input.ios_url = src.ios_url;
  if (src.android_url) input.android_url = src.android_url;
  // App destinations (Firebase Dynamic Links), on every plan as the iOS and Android addresses are.
  if (src.app_ios_store_id) input.app_ios_store_id = src.app_ios_store_id;
  if (src.app_android_package) input.app_android_package = src.app_android_package;
  if (src.app_path) input.app_path = src.app_path;
  if (src.archived) input.archived = true;
  gated(src, target.owner.plan, now, m);
  if (src.password) input.password = src.password;
  else if (src.password_hash) {
    // Only snip's own parameters: a hash brings its cost with it (t=300 holds a pool thread 6 s a guess).
    if (isOwnHash(src.password_hash)) m.imported.password_hash = src.password_hash;
    else notes.push("password_hash is not a hash with snip's own argon2id parameters (m=19456, t=2, p=1): the link is imported without a password");
  } else if (src.password_protected) notes.push("password-protected at the source; its password cannot be read: imported without one");
  if (src.valid_since != null && src.valid_since > now) {
    if (can(target.owner.plan, "link_start")) input.starts_at = new Date(src.valid_since).toISOString();
    else notes.push(`start date ${day(src.valid_since)} dropped: a start date needs the Pro plan; the link works now`);
  }
  if (src.crawlable) input.crawlable = true;
  if (src.redirect_status != null) input.redirect_status = src.redirect_status as CreateLinkInput["redirect_status"];
  if (src.created_at != null && src.created_at > 0 && src.created_at <= now) m.imported.created_at = src.created_at;
  if (src.clicks_total != null && src.clicks_total > 0) m.imported.imported_clicks = src.clicks_total;
  return m;
}
