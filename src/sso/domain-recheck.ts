// Verified single sign-on domains checked again in the background (docs/sso.md), every DOMAIN_RECHECK_MINUTES as
// custom domains are. A TXT record that is gone or changed (not merely unanswered) starts a 72-hour grace, its
// owner told at once; restored meanwhile, nothing is lost; still gone after it, the domain becomes pending, so a
// domain that changed hands stops sending its people to the old owner's provider. Each check is claimed by one
// instance, as custom domains' are.
import type { Logger } from "pino";
import type { SsoDomainRow } from "../storage/schema.js";
import type { Actor } from "../admin/audit-log.js";
import type { SsoDeps } from "./deps.js";
import { checkTxt, publicDomain, txtAction } from "./connections.js";
import { RECORD_GRACE_MS, recordGone, verificationLost } from "./domain-notices.js";

const RECHECK_ACTOR: Actor = { id: null, email: "SSO domain re-check (DOMAIN_RECHECK_MINUTES)" };

/** Domains checked per run. */
const BATCH = 20;

export class SsoDomainRecheck {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly deps: SsoDeps,
    private readonly log: Logger,
  ) {}

  /** Runs the due re-checks once (every instance may call it: each check is claimed by one). Returns how many ran. */
  async recheckDue(): Promise<number> {
    const now = this.deps.clock.now();
    const due = await this.deps.db
      .selectFrom("sso_domains")
      .selectAll()
      .where("status", "=", "verified")
      .where((eb) => eb.or([eb("next_check_at", "is", null), eb("next_check_at", "<=", now)]))
      .orderBy("next_check_at")
      .limit(BATCH)
      .execute();
    let ran = 0;
    for (const d of due) if (await this.recheckOne(d, now)) ran++;
    return ran;
  }

  private async recheckOne(d: SsoDomainRow, now: number): Promise<boolean> {
    const { db, clock, recheckMs } = this.deps;
    const claimed = await db
      .updateTable("sso_domains")
      .set({ next_check_at: now + recheckMs })
      .where("connection_id", "=", d.connection_id)
      .where("domain", "=", d.domain)
      .where("status", "=", "verified")
      .where((eb) => (d.next_check_at === null ? eb("next_check_at", "is", null) : eb("next_check_at", "=", Number(d.next_check_at))))
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) !== 1) return false;
    const t = await checkTxt(this.deps, d);
    const at = clock.now();
    const claim = db.updateTable("sso_domains").where("connection_id", "=", d.connection_id).where("domain", "=", d.domain).where("status", "=", "verified");
    if (t.state === "ok") {
      await claim.set({ last_checked_at: at, failing_since: null, next_action: null }).execute();
      return true;
    }
    // DNS not answering proves nothing either way: the grace neither starts nor ends.
    if (t.state !== "missing" && t.state !== "wrong") {
      await claim.set({ last_checked_at: at }).execute();
      return true;
    }
    const since = d.failing_since === null ? at : Number(d.failing_since);
    if (at - since < RECORD_GRACE_MS) {
      const action = `${txtAction(d, t)} Restore it before ${new Date(since + RECORD_GRACE_MS).toISOString()}, or the domain loses its verification.`;
      const r = await claim
        .set({ last_checked_at: at, failing_since: since, next_action: action })
        .where((eb) => (d.failing_since === null ? eb("failing_since", "is", null) : eb("failing_since", "=", since)))
        .executeTakeFirst();
      // Told once: at the check that first found the record gone.
      if (d.failing_since === null && Number(r.numUpdatedRows) === 1)
        await this.tell(d, (to) => recordGone(this.deps, to, d.domain, publicDomain(d).record, since));
      return true;
    }
    await this.demote(d, t, at);
    return true;
  }

  /** The record has been gone for the whole grace: the domain is pending (audited) and its owner told. */
  private async demote(d: SsoDomainRow, t: Parameters<typeof txtAction>[1], at: number): Promise<void> {
    const steps = txtAction(d, t);
    const action = `Verification lost: ${steps} Nobody signs in through this domain until it is verified again.`;
    const demoted = await this.deps.db.transaction().execute(async (trx) => {
      const r = await trx
        .updateTable("sso_domains")
        .set({ status: "pending", next_action: action, last_checked_at: at, verified_at: null, next_check_at: null, failing_since: null })
        .where("connection_id", "=", d.connection_id)
        .where("domain", "=", d.domain)
        .where("status", "=", "verified")
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) return false;
      await this.deps.audit.record(trx, RECHECK_ACTOR, at, {
        action: "sso.domain_lost",
        targetType: "sso_connection",
        targetId: d.connection_id,
        summary: `${d.domain} lost its single sign-on verification (TXT record ${t.state} for 72 hours)`,
        after: { domain: d.domain },
      });
      return true;
    });
    if (demoted) await this.tell(d, (to) => verificationLost(this.deps, to, d.domain, steps));
  }

  /** Emails the owner of the domain's connection. */
  private async tell(d: SsoDomainRow, send: (to: string) => Promise<void>): Promise<void> {
    const owner = await this.deps.db
      .selectFrom("sso_connections")
      .innerJoin("users", "users.id", "sso_connections.owner_id")
      .select("users.email")
      .where("sso_connections.id", "=", d.connection_id)
      .executeTakeFirst();
    if (owner) await send(owner.email);
  }

  /** Re-checks in the background, every 30 s or the re-check interval if shorter. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(
      () => {
        if (this.running) return;
        this.running = this.recheckDue()
          .catch((err: unknown) => this.log.warn({ err }, "SSO domain re-check failed"))
          .finally(() => (this.running = null));
      },
      Math.min(30_000, this.deps.recheckMs),
    );
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
