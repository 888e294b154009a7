// Every email goes through the outbox (the mail_outbox table): stored first, sent at once, removed when the
// transport accepts it; when the transport is down it stays and is retried with backoff by any instance,
// across restarts, until sent, its link expires or the attempts run out. Callers learn whether it went now.
import type { Logger } from "pino";
import type { Db } from "../storage/db.js";
import type { Clock } from "../shared/clock.js";
import { newId } from "../shared/ids.js";
import type { SealedBox } from "../shared/secret-box.js";
import type { EventPublisher } from "../shared/events.js";
import type { MailMessage, Mailer } from "./mailer.js";

/** sent: the transport accepted it; queued: kept for a retry; failed: refused for good (or given up). */
export type MailOutcome = "sent" | "queued" | "failed";

export interface SendOptions {
  /** A newer message with the same key replaces a queued one (its link replaced the older link). */
  key?: string;
  /** Epoch ms when the message's link stops working: it is not retried past then. */
  expiresAt?: number;
}

/** What features send mail through. */
export interface MailSender {
  send(message: MailMessage, opts?: SendOptions): Promise<MailOutcome>;
}

/** How long a request waits for the transport before answering "not sent yet" (the attempt goes on). */
export const MAIL_WAIT_MS = 5_000;
/** Waits before the 1st, 2nd, ... retry; past the last one the message is given up (about 21 hours in all). */
export const MAIL_RETRY_DELAYS_MS = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 6 * 3_600_000, 12 * 3_600_000];
/** An attempt's claim: no other instance takes the message meanwhile (longer than the transport's timeouts). */
const CLAIM_MS = 2 * 60_000;
/** Due messages taken per run of the retry loop, and how often it runs. */
const RETRY_BATCH = 20;
const RETRY_EVERY_MS = 15_000;

interface Claimed {
  id: string;
  key: string | null;
  message: MailMessage;
  attempts: number;
  expiresAt: number | null;
}

/** A reply of the SMTP server in 5xx refuses the message for good; anything else (no connection, 4xx) may pass later. */
function permanent(err: unknown): boolean {
  const code = (err as { responseCode?: unknown }).responseCode;
  return typeof code === "number" && code >= 500;
}

function describeError(err: unknown): string {
  const e = err as { code?: string; responseCode?: number; message?: string };
  if (typeof e.responseCode === "number") return `server answered ${e.responseCode}`;
  if (e.code === "ECONNECTION" || /ECONNREFUSED/.test(e.message ?? "")) return "connection refused";
  if (e.code === "ETIMEDOUT") return "timed out";
  return e.code ? `failed (${e.code})` : "failed";
}

export class MailQueue implements MailSender {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  private readonly attempts = new Set<Promise<unknown>>();

  constructor(
    private readonly deps: {
      db: Db;
      transport: Mailer;
      box: SealedBox;
      clock: Clock;
      log: Logger;
      waitMs?: number;
      /** "mail.sent" after a keyed message is accepted: e.g. teams/ marks an invitation's email sent. */
      events?: EventPublisher;
    },
  ) {}

  async send(message: MailMessage, opts: SendOptions = {}): Promise<MailOutcome> {
    const now = this.deps.clock.now();
    const id = newId();
    const key = opts.key ?? null;
    // Stored (claimed by this attempt) before the transport is asked: a crash meanwhile leaves it to a retry.
    await this.deps.db.transaction().execute(async (trx) => {
      if (key !== null) await trx.deleteFrom("mail_outbox").where("key", "=", key).execute();
      await trx
        .insertInto("mail_outbox")
        .values({
          id,
          key,
          message_enc: this.deps.box.seal(JSON.stringify(message), id),
          created_at: now,
          expires_at: opts.expiresAt ?? null,
          attempts: 0,
          next_attempt_at: now + CLAIM_MS,
          last_error: null,
        })
        .execute();
    });
    const attempt = this.track(this.attempt({ id, key, message, attempts: 0, expiresAt: opts.expiresAt ?? null }));
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<MailOutcome>((resolve) => {
      timer = setTimeout(() => resolve("queued"), this.deps.waitMs ?? MAIL_WAIT_MS);
    });
    try {
      return await Promise.race([attempt, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Sends the messages whose retry is due (each claimed first, so one instance sends it). Returns how many were tried. */
  async retryDue(): Promise<number> {
    const now = this.deps.clock.now();
    const due = await this.deps.db
      .selectFrom("mail_outbox")
      .selectAll()
      .where("next_attempt_at", "<=", now)
      .orderBy("next_attempt_at")
      .limit(RETRY_BATCH)
      .execute();
    const claimed: Claimed[] = [];
    for (const row of due) {
      const r = await this.deps.db
        .updateTable("mail_outbox")
        .set({ next_attempt_at: now + CLAIM_MS })
        .where("id", "=", row.id)
        .where("next_attempt_at", "=", Number(row.next_attempt_at))
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) continue;
      const opened = this.deps.box.open(row.message_enc, row.id);
      if (opened === null) {
        this.deps.log.error({ mail: row.id }, "queued email unreadable (SESSION_SECRET changed?): given up");
        await this.remove(row.id);
        continue;
      }
      claimed.push({
        id: row.id,
        key: row.key,
        message: JSON.parse(opened) as MailMessage,
        attempts: Number(row.attempts),
        expiresAt: row.expires_at === null ? null : Number(row.expires_at),
      });
    }
    await Promise.all(claimed.map((c) => this.track(this.attempt(c))));
    return claimed.length;
  }

  /** Messages waiting for a retry (the operator console, tests). */
  async pending(): Promise<number> {
    const r = await this.deps.db
      .selectFrom("mail_outbox")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.retryDue()
        .catch((err) => this.deps.log.warn({ err }, "email retry run failed"))
        .finally(() => (this.running = null));
    }, RETRY_EVERY_MS);
    this.timer.unref();
  }

  /** Stops retrying and waits for the attempts in flight (each bounded by the transport's timeouts). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
    await Promise.all([...this.attempts]);
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.attempts.add(p);
    void p.finally(() => this.attempts.delete(p)).catch(() => undefined);
    return p;
  }

  /** One attempt of a claimed message: removed when accepted or refused for good, else rescheduled or given up. */
  /** Transport attempts since start by what came of them (metrics: snip_email_attempts_total). */
  readonly outcomes: Record<MailOutcome, number> = { sent: 0, queued: 0, failed: 0 };

  private async attempt(c: Claimed): Promise<MailOutcome> {
    const outcome = await this.tryOnce(c);
    this.outcomes[outcome]++;
    return outcome;
  }

  private async tryOnce(c: Claimed): Promise<MailOutcome> {
    try {
      await this.deps.transport.send(c.message);
    } catch (err) {
      return this.failed(c, err);
    }
    // A newer message with the same key may have replaced this one meanwhile: only a row still here counts.
    // Published for the first attempt too: its caller may have stopped waiting (MAIL_WAIT_MS).
    const removed = await this.remove(c.id);
    if (removed && c.key !== null) await this.deps.events?.publish("mail.sent", { key: c.key });
    if (c.attempts > 0) this.deps.log.info({ mail: c.id, attempts: c.attempts + 1 }, "queued email sent");
    return "sent";
  }

  private async failed(c: Claimed, err: unknown): Promise<MailOutcome> {
    const attempts = c.attempts + 1;
    const error = describeError(err);
    const delay = MAIL_RETRY_DELAYS_MS[attempts - 1];
    const next = delay === undefined ? null : this.deps.clock.now() + delay;
    if (permanent(err) || next === null || (c.expiresAt !== null && next >= c.expiresAt)) {
      await this.remove(c.id);
      this.deps.log.error(
        { mail: c.id, attempts, error },
        permanent(err) ? "email refused by the mail server" : "email given up: not sent before its link expired or after every retry",
      );
      return "failed";
    }
    await this.deps.db.updateTable("mail_outbox").set({ attempts, next_attempt_at: next, last_error: error }).where("id", "=", c.id).execute();
    this.deps.log.warn({ mail: c.id, attempts, error, retry_at: new Date(next).toISOString() }, "email not sent; queued for a retry");
    return "queued";
  }

  private async remove(id: string): Promise<boolean> {
    const r = await this.deps.db.deleteFrom("mail_outbox").where("id", "=", id).executeTakeFirst();
    return Number(r.numDeletedRows) === 1;
  }
}
