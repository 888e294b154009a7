// Verified single sign-on domains checked again in the background (docs/sso.md): a TXT record that is gone or
// changed (not merely unanswered) ends the domain's verification, so a domain that changed hands stops sending
// its people to the old owner's provider. Each check is claimed by one instance, as custom domains' are.
import type { Logger } from "pino";
import type { SsoDomainRow } from "../storage/schema.js";
import type { Actor } from "../admin/audit-log.js";
import type { SsoDeps } from "./deps.js";
import { checkTxt, txtAction } from "./connections.js";

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
    const { db, clock, audit, recheckMs } = this.deps;
    const claimed = await db
      .updateTable("sso_domains")
      .set({ next_check_at: now + recheckMs })
      .where("domain", "=", d.domain)
      .where("status", "=", "verified")
      .where((eb) => (d.next_check_at === null ? eb("next_check_at", "is", null) : eb("next_check_at", "=", Number(d.next_check_at))))
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) !== 1) return false;
    const t = await checkTxt(this.deps, d);
    const at = clock.now();
    if (t.state !== "missing" && t.state !== "wrong") {
      await db.updateTable("sso_domains").set({ last_checked_at: at }).where("domain", "=", d.domain).where("status", "=", "verified").execute();
      return true;
    }
    const action = `Verification lost: ${txtAction(d, t)} Nobody signs in through this domain until it is verified again.`;
    await db.transaction().execute(async (trx) => {
      await trx.updateTable("sso_domains").set({ status: "pending", next_action: action, last_checked_at: at, verified_at: null, next_check_at: null }).where("domain", "=", d.domain).execute();
      await audit.record(trx, RECHECK_ACTOR, at, {
        action: "sso.domain_lost", targetType: "sso_connection", targetId: d.connection_id, summary: `${d.domain} lost its single sign-on verification (TXT record ${t.state})`, after: { domain: d.domain },
      });
    });
    return true;
  }

  /** Re-checks in the background, every 30 s or the re-check interval if shorter. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.recheckDue()
        .catch((err: unknown) => this.log.warn({ err }, "SSO domain re-check failed"))
        .finally(() => (this.running = null));
    }, Math.min(30_000, this.deps.recheckMs));
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
