// Links as the operator moderates them (docs/operator.md, Links): search across every account, disable
// (410 or 451) and enable one link, disable many (an account's, or a destination host's); every change is
// audited in its transaction and announced so that every instance's redirect cache drops the link at once.
import { type Kysely, sql } from "kysely";
import type { Db, Dialect } from "../storage/db.js";
import type { Database, LinkRow } from "../storage/schema.js";
import type { Clock } from "../shared/clock.js";
import { DomainError, invalid } from "../shared/errors.js";
import { containsPattern } from "../shared/like.js";
import type { LinkKey } from "../links/changes.js";
import type { LinkView } from "../links/link-access.js";
import type { AdminLink, LinkState, DisableStatus as DisabledStatus } from "../contract/admin.js";
import type { Link } from "../contract/links.js";
import { type HostBlocklist, hostOfUrl, normalizeHost } from "../links/host-blocklist.js";
import type { Actor, AuditLog } from "./audit-log.js";
import { decodeKeyset, encodeKeyset } from "../shared/keyset.js";
import { LINK_STATES, REASON_MAX } from "../contract/admin.js";
import type { LinkHealthFilter } from "../contract/health.js";
import { healthCondition } from "../links/link-health.js";

export interface LinkFilter {
  q?: string;
  owner?: string;
  domain?: string;
  state?: string;
  /** Links whose `health` is this (docs/health.md); unchecked: null. */
  health?: LinkHealthFilter;
  cursor?: string;
  limit: number;
}

export interface LinkModerationDeps {
  db: Db;
  dialect: Dialect;
  clock: Clock;
  audit: AuditLog;
  blocklist: HostBlocklist;
  /** The link object (docs/api.md, Links) and fresh click counts, as the owner sees them. */
  links: { present(links: LinkView[]): Promise<Link[]> };
  /** Tells every instance's redirect cache that these links changed. */
  linksChanged: (keys: LinkKey[]) => Promise<void>;
  /** LINK_CHECKS: destinations are checked, so links have a `health`. */
  linkChecks: boolean;
}

/**
 * Rows looked at per request when the state filter needs the blocklist (which lives in memory, not in SQL):
 * a page may then come back shorter than `limit`, even empty, with a next_cursor to go on from.
 */
export const SCAN_ROWS = 5_000;
const SCAN_CHUNK = 500;
/** Ids per UPDATE of a bulk disable (well under either engine's bound-parameter limit). */
const UPDATE_CHUNK = 500;

type Row = LinkView & { owner_email: string | null };

export function checkReason(raw: string): string {
  const reason = raw.trim();
  if (reason.length === 0 || reason.length > REASON_MAX) throw invalid("reason", `must be 1 to ${REASON_MAX} characters`);
  return reason;
}

function checkStatus(status: number | undefined): DisabledStatus {
  if (status === undefined) return 410;
  if (status !== 410 && status !== 451) throw invalid("status", "must be 410 or 451");
  return status;
}

/** `host` itself or one of its subdomains. */
function onHost(url: string | null, host: string): boolean {
  if (url === null) return false;
  const h = hostOfUrl(url);
  return h !== null && (h === host || h.endsWith(`.${host}`));
}

export class LinkModeration {
  constructor(private readonly deps: LinkModerationDeps) {}

  private select(db: Db) {
    return db
      .selectFrom("links")
      .leftJoin("users as owner", "owner.id", "links.owner_id")
      .selectAll("links")
      .select("owner.email as owner_email")
      .select((eb) => eb.selectFrom("users as editor").select("editor.email").whereRef("editor.id", "=", "links.updated_by").as("updated_by_email"));
  }

  /**
   * Newest first across every account. States exclude each other in the order visitors meet them: disabled,
   * else blocked (a destination on the blocklist), else expired, else limit_reached, else active.
   */
  async search(f: LinkFilter): Promise<{ links: AdminLink[]; next_cursor: string | null }> {
    const state = f.state as LinkState | undefined;
    if (state !== undefined && !LINK_STATES.includes(state)) throw invalid("state", `must be one of ${LINK_STATES.join(", ")}`);
    let qb = this.select(this.deps.db);
    const q = f.q?.trim();
    if (q) {
      const p = containsPattern(q);
      qb = qb.where(sql<boolean>`(lower(links.alias) like ${p} escape '\\' or lower(links.url) like ${p} escape '\\')`);
    }
    const owner = f.owner?.trim();
    if (owner) qb = qb.where(sql<boolean>`lower(owner.email) like ${containsPattern(owner)} escape '\\'`);
    if (f.domain !== undefined) qb = qb.where("links.domain", "=", f.domain.trim().toLowerCase().replace(/\.$/, ""));
    if (state !== undefined) qb = this.inState(qb, state);
    const health = f.health === undefined ? null : healthCondition(f.health, this.deps.linkChecks);
    if (health) qb = qb.where(health);
    const ordered = (after: { createdAt: number; id: string } | null) =>
      (after
        ? qb.where((eb) =>
            eb.or([eb("links.created_at", "<", after.createdAt), eb.and([eb("links.created_at", "=", after.createdAt), eb("links.id", "<", after.id)])]),
          )
        : qb
      )
        .orderBy("links.created_at", "desc")
        .orderBy("links.id", "desc");
    const start = f.cursor ? decodeKeyset(f.cursor) : null;

    let page: Row[];
    let next: Row | null;
    // Past "disabled", a state holds only for links the in-memory blocklist does (blocked) or does not block.
    const needsBlocklist = state !== undefined && state !== "disabled" && this.deps.blocklist.size > 0;
    if (state === "blocked" && this.deps.blocklist.size === 0) {
      page = [];
      next = null;
    } else if (!needsBlocklist) {
      const rows = (await ordered(start)
        .limit(f.limit + 1)
        .execute()) as Row[];
      page = rows.slice(0, f.limit);
      next = rows.length > f.limit ? (page[page.length - 1] ?? null) : null;
    } else {
      ({ page, next } = await this.scan(ordered, start, f.limit, state === "blocked"));
    }
    return { links: await this.toAdmin(page), next_cursor: next ? encodeKeyset(next) : null };
  }

  /** The SQL part of a state: disabled, expiry and click limit (the blocklist is applied in memory). */
  private inState<Q extends ReturnType<LinkModeration["select"]>>(qb: Q, state: LinkState): Q {
    if (state === "disabled") return qb.where("links.disabled_at", "is not", null) as Q;
    const now = this.deps.clock.now();
    const open = qb.where("links.disabled_at", "is", null);
    if (state === "blocked") return open as Q;
    const expired = sql<boolean>`(links.expires_at is not null and links.expires_at <= ${now})`;
    // Click-limited links count their clicks into links.click_count as they are served, so this is exact.
    const exhausted = sql<boolean>`(links.max_clicks is not null and links.click_count >= links.max_clicks)`;
    if (state === "expired") return open.where(expired) as Q;
    if (state === "limit_reached") return open.where(sql<boolean>`not ${expired}`).where(exhausted) as Q;
    return open.where(sql<boolean>`not ${expired}`).where(sql<boolean>`not ${exhausted}`) as Q;
  }

  /** Walks rows in order, keeping those the in-memory blocklist says are (or are not) blocked, for at most SCAN_ROWS rows. */
  private async scan(
    ordered: (after: { createdAt: number; id: string } | null) => { limit(n: number): { execute(): Promise<unknown[]> } },
    start: { createdAt: number; id: string } | null,
    limit: number,
    blocked: boolean,
  ): Promise<{ page: Row[]; next: Row | null }> {
    const found: Row[] = [];
    let after = start;
    let lastSeen: Row | null = null;
    for (let scanned = 0; scanned < SCAN_ROWS;) {
      const rows = (await ordered(after).limit(SCAN_CHUNK).execute()) as Row[];
      for (const row of rows) {
        scanned++;
        lastSeen = row;
        if (this.deps.blocklist.blocksLink(row) === blocked) {
          found.push(row);
          // One more than the page: there is more, and the page's last row is where the next one starts.
          if (found.length > limit) return { page: found.slice(0, limit), next: found[limit - 1] ?? null };
        }
      }
      if (rows.length < SCAN_CHUNK) return { page: found, next: null };
      after = { createdAt: Number(lastSeen!.created_at), id: lastSeen!.id };
    }
    // Out of budget: the next page goes on after the last row looked at.
    return { page: found, next: lastSeen };
  }

  async get(id: string): Promise<AdminLink> {
    const row = (await this.select(this.deps.db).where("links.id", "=", id).executeTakeFirst()) as Row | undefined;
    if (!row) throw new DomainError("not_found", "No such link");
    return (await this.toAdmin([row]))[0]!;
  }

  /** Visitors get `status` and a page saying so; the owner sees the reason. Disabling again replaces reason and status. */
  async disable(actor: Actor, id: string, input: { reason: string; status?: number }): Promise<AdminLink> {
    const reason = checkReason(input.reason);
    const status = checkStatus(input.status);
    const now = this.deps.clock.now();
    const link = await this.deps.db.transaction().execute(async (trx) => {
      const row = await this.lock(trx, id);
      await setDisabled(trx, [id], { reason, status, at: now }, true);
      await this.deps.audit.record(trx, actor, now, {
        action: "link.disable",
        targetType: "link",
        targetId: id,
        summary: `${row.domain || "main host"}/${row.alias} disabled (${status}): ${reason}`,
        before: { disabled: disabledOf(row) },
        after: { disabled: { reason, status } },
      });
      return row;
    });
    await this.deps.linksChanged([{ domain: link.domain, alias: link.alias }]);
    return this.get(id);
  }

  /** Serves the link again; 409 when it is not disabled. */
  async enable(actor: Actor, id: string): Promise<AdminLink> {
    const now = this.deps.clock.now();
    const link = await this.deps.db.transaction().execute(async (trx) => {
      const row = await this.lock(trx, id);
      if (row.disabled_at === null) throw new DomainError("conflict", "This link is not disabled");
      await trx.updateTable("links").set({ disabled_at: null, disabled_status: null, disabled_reason: null }).where("id", "=", id).execute();
      await this.deps.audit.record(trx, actor, now, {
        action: "link.enable",
        targetType: "link",
        targetId: id,
        summary: `${row.domain || "main host"}/${row.alias} enabled`,
        before: { disabled: disabledOf(row) },
        after: { disabled: null },
      });
      return row;
    });
    await this.deps.linksChanged([{ domain: link.domain, alias: link.alias }]);
    return this.get(id);
  }

  /**
   * Every link not already disabled of one account (`owner_id`), or whose destination (main, iOS or Android)
   * is on `host` or a subdomain of it; one audit entry with the count and every id. Returns the count.
   */
  async disableBulk(actor: Actor, input: { owner_id?: string; host?: string; reason: string; status?: number }): Promise<number> {
    if ((input.owner_id === undefined) === (input.host === undefined)) throw invalid("owner_id", "give exactly one of owner_id and host");
    const reason = checkReason(input.reason);
    const status = checkStatus(input.status);
    const host = input.host === undefined ? null : input.host.includes("://") ? hostOfUrl(input.host) : normalizeHost(input.host);
    if (input.host !== undefined && host === null) throw invalid("host", "is not a host name");
    const now = this.deps.clock.now();
    const changed = await this.deps.db.transaction().execute(async (trx) => {
      let ids: string[];
      if (input.owner_id !== undefined) {
        let owner = trx.selectFrom("users").select(["id", "email"]).where("id", "=", input.owner_id);
        // Locked (PostgreSQL): a link created for the owner meanwhile waits, and is not left out.
        if (this.deps.dialect === "postgres") owner = owner.forUpdate();
        if (!(await owner.executeTakeFirst())) throw new DomainError("not_found", "No such account");
        ids = (await trx.selectFrom("links").select("id").where("owner_id", "=", input.owner_id).where("disabled_at", "is", null).execute()).map((r) => r.id);
      } else {
        // SQL narrows to destinations containing the host; the exact host rule is applied here.
        const p = containsPattern(host as string);
        const candidates = await trx
          .selectFrom("links")
          .select(["id", "url", "ios_url", "android_url"])
          .where("disabled_at", "is", null)
          .where(sql<boolean>`(lower(url) like ${p} escape '\\' or lower(ios_url) like ${p} escape '\\' or lower(android_url) like ${p} escape '\\')`)
          .execute();
        ids = candidates
          .filter((l) => onHost(l.url, host as string) || onHost(l.ios_url, host as string) || onHost(l.android_url, host as string))
          .map((l) => l.id);
      }
      const keys = await setDisabled(trx, ids, { reason, status, at: now });
      const done = keys.map((k) => k.id).sort();
      await this.deps.audit.record(trx, actor, now, {
        action: "link.disable_bulk",
        targetType: input.owner_id !== undefined ? "account" : "host",
        targetId: input.owner_id ?? (host as string),
        summary: `${done.length} link${done.length === 1 ? "" : "s"} disabled (${status}) ${input.owner_id !== undefined ? "of an account" : `pointing to ${host}`}: ${reason}`,
        before: { disabled: null },
        after: { disabled: { reason, status }, count: done.length, ids: done },
      });
      return keys;
    });
    await this.deps.linksChanged(changed.map((k) => ({ domain: k.domain, alias: k.alias })));
    return changed.length;
  }

  private async lock(trx: Db, id: string): Promise<LinkRow> {
    let q = trx.selectFrom("links").selectAll().where("id", "=", id);
    if (this.deps.dialect === "postgres") q = q.forUpdate();
    const row = await q.executeTakeFirst();
    if (!row) throw new DomainError("not_found", "No such link");
    return row;
  }

  private async toAdmin(rows: Row[]): Promise<AdminLink[]> {
    const links = await this.deps.links.present(rows);
    return links.map((l, i) => ({ ...l, owner_email: rows[i]!.owner_email ?? null }));
  }
}

/**
 * Disables the links of `ids` (visitors then get `status`; updated_at and updated_by stay: they say who last
 * edited the link) and returns them, for the caller to announce after its commit. Links already disabled
 * keep their own reason and status unless `replace`.
 */
export async function setDisabled(
  trx: Kysely<Database>,
  ids: string[],
  d: { reason: string; status: number; at: number },
  replace = false,
): Promise<Array<LinkKey & { id: string }>> {
  const keys: Array<LinkKey & { id: string }> = [];
  for (let i = 0; i < ids.length; i += UPDATE_CHUNK) {
    let q = trx
      .updateTable("links")
      .set({ disabled_at: d.at, disabled_status: d.status, disabled_reason: d.reason })
      .where("id", "in", ids.slice(i, i + UPDATE_CHUNK));
    if (!replace) q = q.where("disabled_at", "is", null);
    keys.push(...(await q.returning(["id", "domain", "alias"]).execute()));
  }
  return keys;
}

export function disabledOf(row: LinkRow): { reason: string; status: number } | null {
  return row.disabled_at === null ? null : { reason: row.disabled_reason ?? "", status: Number(row.disabled_status ?? 410) };
}
