// DomainService: custom domains of an account (docs/api.md, Custom domains): add, list, verify, delete, the
// re-check job, and the lookups other features make (a link's domain, a TLS proxy's question).
import { type SelectQueryBuilder, type Transaction, sql } from "kysely";
import { type Cap, countOf } from "../storage/owner-caps.js";
import type { Database, DomainRow, UserRow } from "../storage/schema.js";
import { iso } from "../shared/clock.js";
import { DomainError, invalid } from "../shared/errors.js";
import { newId, randomBase62 } from "../shared/ids.js";
import { requireCapability } from "../accounts/plans.js";
import { checkRecords, expectedRecords } from "./dns-check.js";
import type { DomainDeps } from "./deps.js";
import { lookupForm, normalizeHostname } from "./hostnames.js";
import { runRecheck, verifyNow } from "./verify-domain.js";
import type { Domain } from "../contract/domains.js";
import { managedOwner, resourceOwner } from "../teams/access.js";

/** Domains one account may add (each is a DNS check every DOMAIN_RECHECK_MINUTES). */
export const MAX_DOMAINS_PER_ACCOUNT = 100;

export type DomainWithCount = DomainRow & { link_count: number };

function requireActive(actor: UserRow): void {
  if (actor.status !== "active") throw new DomainError("account_inactive", "This account is suspended");
}

export class DomainService {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(readonly deps: DomainDeps) {}

  toPublic(d: DomainWithCount): Domain {
    const e = expectedRecords(d, this.deps.cnameTarget);
    return {
      id: d.id,
      hostname: d.hostname,
      status: d.status,
      records: [
        { type: "CNAME", name: e.hostname, value: e.cnameTarget },
        { type: "TXT", name: e.txtName, value: e.txtValue },
      ],
      next_action: d.next_action,
      last_checked_at: iso(d.last_checked_at === null ? null : Number(d.last_checked_at)),
      verified_at: iso(d.verified_at === null ? null : Number(d.verified_at)),
      lost_at: iso(d.lost_at === null ? null : Number(d.lost_at)),
      link_count: d.link_count,
      created_at: iso(Number(d.created_at)),
      track_conversions: d.track_conversions == null ? null : Number(d.track_conversions) === 1,
    };
  }

  /** The hostname as stored, or invalid_request (field "hostname"). */
  normalize(raw: string): string {
    return normalizeHostname(raw, [this.deps.ownHost.toLowerCase(), this.deps.cnameTarget]);
  }

  /**
   * The actor's domains, or with `ownerId` a team owner's (docs/roles.md): every role that sees the owner's links
   * lists them (links.view: the link form picks a domain from them); changing them is domains.manage.
   */
  async list(actor: UserRow, ownerId?: string): Promise<DomainWithCount[]> {
    const { owner } = await managedOwner(this.deps.db, actor, ownerId, "links.view");
    return this.withCounts(this.deps.db.selectFrom("domains").selectAll().where("owner_id", "=", owner.id).orderBy("created_at", "asc").orderBy("id", "asc"));
  }

  /** A domain the actor manages: its own, or a team owner's with domains.manage (another account's: not_found). */
  async get(actor: UserRow, id: string): Promise<DomainWithCount> {
    return (await this.managed(actor, id)).domain;
  }

  /** get() and the domain's owner (whose plan and limits apply). */
  private async managed(actor: UserRow, id: string): Promise<{ domain: DomainWithCount; owner: UserRow }> {
    const [d] = await this.withCounts(this.deps.db.selectFrom("domains").selectAll().where("id", "=", id));
    const owner = await resourceOwner(this.deps.db, actor, d?.owner_id, "domains.manage", "No such domain");
    return { domain: d!, owner };
  }

  /**
   * The domain's default for conversion tracking (docs/conversions.md): a link with none of its own takes it, a
   * domain with none the account's. Setting one needs the plan's conversions; clearing it (null) never does.
   */
  async setTrackConversions(actor: UserRow, id: string, value: boolean | null): Promise<DomainWithCount> {
    requireActive(actor);
    const { domain: d, owner } = await this.managed(actor, id);
    if (value !== null) requireCapability(owner.plan, "conversions", "Conversion tracking");
    const track_conversions = value === null ? null : value ? 1 : 0;
    await this.deps.db.updateTable("domains").set({ track_conversions }).where("id", "=", d.id).where("owner_id", "=", owner.id).execute();
    return { ...d, track_conversions };
  }

  /** By hostname, whoever owns it (the CLI). */
  async byHostname(raw: string): Promise<DomainRow> {
    const d = await this.deps.db.selectFrom("domains").selectAll().where("hostname", "=", lookupForm(raw)).executeTakeFirst();
    if (!d) throw new DomainError("not_found", `No domain ${raw.trim()} has been added`);
    return d;
  }

  /** A domain of the actor's account, or with `ownerId` of a team owner's (domains.manage): the owner's plan and limit apply. */
  async add(actor: UserRow, rawHostname: string, ownerId?: string): Promise<DomainWithCount> {
    requireActive(actor);
    const { owner } = await managedOwner(this.deps.db, actor, ownerId, "domains.manage");
    requireCapability(owner.plan, "custom_domains", "Custom domains");
    const hostname = this.normalize(rawHostname);
    const now = this.deps.clock.now();
    const row: DomainRow = {
      id: newId(),
      owner_id: owner.id,
      hostname,
      status: "pending",
      txt_token: randomBase62(32),
      next_action: null,
      last_checked_at: null,
      verified_at: null,
      lost_at: null,
      next_check_at: null,
      verify_requested_at: null,
      created_at: now,
      track_conversions: null,
    };
    const e = expectedRecords(row, this.deps.cnameTarget);
    row.next_action = `Add the CNAME record ${e.hostname} -> ${e.cnameTarget} and the TXT record ${e.txtName} with the value ${e.txtValue} at your DNS provider, then verify.`;
    // The count and the insert under the owner's lock: concurrent adds (on any instance) stop at the cap.
    // The unique hostname decides races between accounts (and double submits): one row, the rest 409.
    const cap: Cap = {
      limit: MAX_DOMAINS_PER_ACCOUNT,
      count: (trx) =>
        countOf(
          trx
            .selectFrom("domains")
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .where("owner_id", "=", owner.id),
        ),
      refuse: () =>
        new DomainError("limit_reached", `An account can add at most ${MAX_DOMAINS_PER_ACCOUNT} domains`, undefined, { limit: MAX_DOMAINS_PER_ACCOUNT }),
    };
    const r = await this.deps.caps.add(owner.id, cap, (trx) =>
      trx
        .insertInto("domains")
        .values(row)
        .onConflict((oc) => oc.column("hostname").doNothing())
        .executeTakeFirst(),
    );
    if (Number(r.numInsertedOrUpdatedRows ?? 0n) === 0) throw new DomainError("conflict", `${hostname} has already been added`);
    // From now on the hostname is this domain's (404 until verified), no longer the main host, everywhere.
    await this.announce(hostname);
    return { ...row, link_count: 0 };
  }

  /** Checks the records now (throttled per domain); verified when both are right. */
  async verify(actor: UserRow, id: string): Promise<DomainWithCount> {
    requireActive(actor);
    const d = await this.get(actor, id);
    await verifyNow(this, d, { throttle: true });
    return this.get(actor, id);
  }

  /** The CLI's verify: any account's domain, no throttle (the operator asks). */
  async verifyHostname(raw: string): Promise<DomainRow> {
    const d = await this.byHostname(raw);
    await verifyNow(this, d, { throttle: false });
    return this.byHostname(d.hostname);
  }

  /** Deletes the domain and its links: every instance answers 404 for them at once, and the hostname is free. */
  async delete(actor: UserRow, id: string): Promise<void> {
    requireActive(actor);
    const { owner } = await this.managed(actor, id);
    const hostname = await this.deps.db.transaction().execute(async (trx) => {
      // The account's lock, then the domain's row lock (a no-op update): a link being put on this domain commits
      // before, and is deleted here, or fails after. Creations take the account's lock before the domain's; so
      // must this, since each link deleted below counts down the account's link_counts row, whose check of its
      // users row would otherwise wait on a creation that waits on the domain (a deadlock on PostgreSQL).
      await this.deps.caps.hold(trx, owner.id);
      const locked = await trx
        .updateTable("domains")
        .set((eb) => ({ status: eb.ref("status") }))
        .where("id", "=", id)
        .where("owner_id", "=", owner.id)
        .executeTakeFirst();
      const d = Number(locked.numUpdatedRows) === 1 ? await trx.selectFrom("domains").select(["hostname"]).where("id", "=", id).executeTakeFirst() : undefined;
      if (!d) throw new DomainError("not_found", "No such domain");
      await trx.deleteFrom("links").where("domain", "=", d.hostname).execute();
      await trx.deleteFrom("domains").where("id", "=", id).execute();
      // The hostname is free: whoever verifies it next controls its DNS, so the aliases given up on it
      // (by the delete above too) protect no shared address any more.
      await trx.deleteFrom("alias_reservations").where("domain", "=", d.hostname).execute();
      return d.hostname;
    });
    await this.announce(hostname);
  }

  /**
   * The domain a link of `ownerId` may live on: "" for BASE_URL's host (empty, null or its name), else a
   * hostname the owner has verified. Takes the OWNER's id, so whoever manages the owner's links can use it.
   */
  async linkDomain(ownerId: string, raw: string | null | undefined): Promise<string> {
    if (raw === undefined || raw === null || raw.trim() === "") return "";
    const wanted = lookupForm(raw);
    if (wanted === this.deps.ownHost.toLowerCase()) return "";
    let hostname: string;
    try {
      hostname = normalizeHostname(raw, [], "domain");
    } catch {
      throw invalid("domain", "is not a verified domain of this account");
    }
    const row = await this.deps.db
      .selectFrom("domains")
      .innerJoin("users", "users.id", "domains.owner_id")
      .select(["domains.status", "users.plan"])
      .where("domains.hostname", "=", hostname)
      .where("domains.owner_id", "=", ownerId)
      .executeTakeFirst();
    if (!row) throw invalid("domain", "is not a verified domain of this account");
    requireCapability(row.plan, "custom_domains", "Links on a custom domain");
    if (row.status !== "verified") throw invalid("domain", `${hostname} is not verified yet: verify it on the Domains page first`);
    return hostname;
  }

  /** See LinkDeps.holdDomain: an UPDATE that changes nothing takes the domain's row lock on PostgreSQL. */
  async holdDomain(trx: Transaction<Database>, ownerId: string, hostname: string): Promise<void> {
    const r = await trx
      .updateTable("domains")
      .set((eb) => ({ status: eb.ref("status") }))
      .where("hostname", "=", hostname)
      .where("owner_id", "=", ownerId)
      .where("status", "=", "verified")
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) === 0) throw invalid("domain", `${hostname} is no longer a verified domain of this account`);
  }

  /** For a TLS proxy about to get a certificate: is this a verified custom domain? */
  async isVerified(raw: string): Promise<boolean> {
    const hostname = lookupForm(raw);
    if (hostname === "") return false;
    const row = await this.deps.db.selectFrom("domains").select("id").where("hostname", "=", hostname).where("status", "=", "verified").executeTakeFirst();
    return row !== undefined;
  }

  /** Runs the due re-checks once (every instance may call it: each check is claimed by one). Returns how many ran. */
  recheckDue(): Promise<number> {
    return runRecheck(this);
  }

  /** Re-checks in the background, every 30 s or the recheck interval if shorter. */
  start(): void {
    if (this.timer) return;
    const every = Math.min(30_000, this.deps.recheckMs);
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.recheckDue()
        .catch((err) => this.deps.log.warn({ err }, "domain re-check failed"))
        .finally(() => (this.running = null));
    }, every);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Tells every instance's redirect cache; a failure to notify never fails the write (entries also expire). */
  async announce(hostname: string): Promise<void> {
    try {
      await this.deps.changes.publish(hostname);
    } catch (err) {
      this.deps.log.warn({ err, hostname }, "domain change notification failed");
    }
  }

  /** DNS checks since start: both records right, a record missing or wrong, DNS not answering (metrics). */
  readonly checks = { ok: 0, records_wrong: 0, no_answer: 0 };

  async check(d: Pick<DomainRow, "hostname" | "txt_token">) {
    const c = await checkRecords(this.deps.dns, expectedRecords(d, this.deps.cnameTarget));
    const states = [c.cname.state, c.txt.state];
    this.checks[states.includes("no_answer") ? "no_answer" : states.every((s) => s === "ok") ? "ok" : "records_wrong"]++;
    return c;
  }

  private async withCounts(qb: SelectQueryBuilder<Database, "domains", DomainRow>): Promise<DomainWithCount[]> {
    const rows = await qb
      .select((eb) =>
        eb
          .selectFrom("links")
          .select(sql<number>`count(*)`.as("n"))
          .whereRef("links.domain", "=", "domains.hostname")
          .as("link_count"),
      )
      .execute();
    return rows.map((r) => ({ ...r, link_count: Number(r.link_count ?? 0) }));
  }
}
