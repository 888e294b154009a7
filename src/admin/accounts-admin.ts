// Accounts as the operator manages them (docs/operator.md, Accounts): search and list with link and click
// totals, change plan and status, delete; every change is audited in its own transaction.
import { sql } from "kysely";
import type { Db, Dialect } from "../storage/db.js";
import type { UserRow } from "../storage/schema.js";
import type { Clock } from "../shared/clock.js";
import type { EventPublisher } from "../shared/events.js";
import { iso } from "../shared/clock.js";
import { DomainError, invalid } from "../shared/errors.js";
import { containsPattern } from "../shared/like.js";
import { isPlan, PLANS, type Plan } from "../accounts/plans.js";
import { type ErasedAccount, eraseAccount, lockAccountLinks } from "../accounts/erase.js";
import type { LinkKey } from "../links/changes.js";
import type { Actor, AuditLog } from "./audit-log.js";
import { decodeKeyset, encodeKeyset } from "../shared/keyset.js";
import type { AccountStatus, AdminAccount } from "../contract/admin.js";

export interface AccountFilter {
  q?: string;
  plan?: string;
  status?: string;
  cursor?: string;
  limit: number;
}

export interface AccountsAdminDeps {
  db: Db;
  dialect: Dialect;
  clock: Clock;
  audit: AuditLog;
  /** Tells every instance's redirect cache that these links changed (here: are gone). */
  linksChanged: (keys: LinkKey[]) => Promise<void>;
  /** Tells every instance that a custom domain changed (here: is gone). */
  domainChanged: (hostname: string) => Promise<void>;
  /** "account.changed": e.g. the owner's webhooks reload everywhere (they depend on the plan, and go with the account). */
  events: EventPublisher;
}

const STATUSES: readonly AccountStatus[] = ["active", "suspended"];

function rank(plan: string): number {
  return PLANS.indexOf(plan as Plan);
}

export class AccountsAdmin {
  constructor(private readonly deps: AccountsAdminDeps) {}

  /** Newest first; `q` a substring of the email, `plan` and `status` exact. */
  async list(f: AccountFilter): Promise<{ accounts: AdminAccount[]; next_cursor: string | null }> {
    if (f.plan !== undefined && !isPlan(f.plan)) throw invalid("plan", `must be one of ${PLANS.join(", ")}`);
    if (f.status !== undefined && !STATUSES.includes(f.status as AccountStatus)) throw invalid("status", "must be active or suspended");
    let qb = this.deps.db.selectFrom("users").selectAll();
    const q = f.q?.trim();
    if (q) qb = qb.where(sql<boolean>`lower(email) like ${containsPattern(q)} escape '\\'`);
    if (f.plan !== undefined) qb = qb.where("plan", "=", f.plan);
    if (f.status !== undefined) qb = qb.where("status", "=", f.status);
    if (f.cursor) {
      const c = decodeKeyset(f.cursor);
      qb = qb.where((eb) => eb.or([eb("created_at", "<", c.createdAt), eb.and([eb("created_at", "=", c.createdAt), eb("id", "<", c.id)])]));
    }
    const rows = await qb
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .limit(f.limit + 1)
      .execute();
    const page = rows.slice(0, f.limit);
    const last = page[page.length - 1];
    return { accounts: await this.withTotals(page), next_cursor: rows.length > f.limit && last ? encodeKeyset(last) : null };
  }

  async get(id: string): Promise<AdminAccount> {
    const [account] = await this.withTotals([await this.require(this.deps.db, id)]);
    return account as AdminAccount;
  }

  /** Plan and status; the rules that depend on them (API keys, dashboard writes, team access) follow at once. */
  async update(actor: Actor, id: string, input: { plan?: string; status?: string }): Promise<AdminAccount> {
    if (input.plan === undefined && input.status === undefined) throw invalid("body", "give plan or status");
    if (input.plan !== undefined && !isPlan(input.plan)) throw invalid("plan", `must be one of ${PLANS.join(", ")}`);
    if (input.status !== undefined && !STATUSES.includes(input.status as AccountStatus)) throw invalid("status", "must be active or suspended");
    const now = this.deps.clock.now();
    const changed = await this.deps.db.transaction().execute(async (trx) => {
      const user = await this.require(trx, id, true);
      const plan = input.plan ?? user.plan;
      const status = input.status ?? user.status;
      if (user.id === actor.id && (status !== user.status || rank(plan) < rank(user.plan))) {
        // An operator locking themself out (or losing what they use) by mistake: another operator must do it.
        throw new DomainError("conflict", "You cannot suspend or downgrade your own account here");
      }
      if (plan === user.plan && status === user.status) return false;
      await trx.updateTable("users").set({ plan, status, updated_at: now }).where("id", "=", id).execute();
      if (plan !== user.plan) {
        await this.deps.audit.record(trx, actor, now, {
          action: "account.plan",
          targetType: "account",
          targetId: id,
          summary: `${user.email}: plan ${user.plan} -> ${plan}`,
          before: { plan: user.plan },
          after: { plan },
        });
      }
      if (status !== user.status) {
        await this.deps.audit.record(trx, actor, now, {
          action: "account.status",
          targetType: "account",
          targetId: id,
          summary: `${user.email}: ${status}`,
          before: { status: user.status },
          after: { status },
        });
      }
      return true;
    });
    if (changed) await this.deps.events.publish("account.changed", { userId: id });
    return this.get(id);
  }

  /**
   * Deletes the account as its own deletion does (the users row; the database cascades to sessions, links
   * with their clicks, keys, team, domains and webhooks), then tells every instance's caches.
   */
  async remove(actor: Actor, id: string, confirmEmail: string): Promise<void> {
    const now = this.deps.clock.now();
    const gone = await this.deps.db.transaction().execute(async (trx) => {
      // The account's links locked before its row, as the click writer locks them (lockAccountLinks). Then the row
      // (PostgreSQL): a link inserted for this owner meanwhile waits for it, so the keys read next are all of them.
      await lockAccountLinks(trx, this.deps.dialect, id);
      const user = await this.require(trx, id, true);
      if (confirmEmail.trim().toLowerCase() !== user.email) throw invalid("confirm_email", "must be the account's email");
      if (user.id === actor.id) throw new DomainError("conflict", "You cannot delete your own account here");
      const [account] = await this.withTotals([user], trx);
      const gone = await eraseAccount(trx, id);
      await this.deps.audit.record(trx, actor, now, {
        action: "account.delete",
        targetType: "account",
        targetId: id,
        summary: `${user.email} deleted`,
        before: { email: user.email, plan: user.plan, status: user.status, links: account?.links ?? 0, clicks: account?.clicks ?? 0 },
        after: null,
      });
      return gone;
    });
    await this.forget(id, gone);
  }

  /** Every instance's caches forget a deleted account's links, domains and webhooks (its own deletion too). */
  async forget(id: string, gone: ErasedAccount): Promise<void> {
    await this.deps.linksChanged(gone.links);
    for (const hostname of gone.domains) await this.deps.domainChanged(hostname);
    await this.deps.events.publish("account.changed", { userId: id });
  }

  private async require(db: Db, id: string, lock = false): Promise<UserRow> {
    let q = db.selectFrom("users").selectAll().where("id", "=", id);
    if (lock && this.deps.dialect === "postgres") q = q.forUpdate();
    const user = await q.executeTakeFirst();
    if (!user) throw new DomainError("not_found", "No such account");
    return user;
  }

  /** Link and click totals of a page of accounts, in one grouped query. */
  private async withTotals(users: UserRow[], db: Db = this.deps.db): Promise<AdminAccount[]> {
    const ids = users.map((u) => u.id);
    const totals = ids.length
      ? await db
          .selectFrom("links")
          .select((eb) => ["owner_id", eb.fn.countAll<number | string>().as("links"), eb.fn.sum<number | string | null>("click_count").as("clicks")])
          .where("owner_id", "in", ids)
          .groupBy("owner_id")
          .execute()
      : [];
    const byOwner = new Map(totals.map((t) => [t.owner_id, t]));
    return users.map((u) => {
      const t = byOwner.get(u.id);
      return {
        id: u.id,
        email: u.email,
        name: u.name,
        plan: u.plan,
        status: u.status,
        is_admin: Number(u.is_admin) === 1,
        email_verified: u.email_verified_at !== null,
        created_at: iso(Number(u.created_at)),
        last_sign_in_at: u.last_sign_in_at === null ? null : iso(Number(u.last_sign_in_at)),
        links: Number(t?.links ?? 0),
        clicks: Number(t?.clicks ?? 0),
      };
    });
  }
}
