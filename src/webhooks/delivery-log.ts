// The delivery log: each webhook's last KEEP deliveries and its dropped-event count, written in batches
// (one transaction a second at most) so that a busy webhook costs the database little.
import type { Logger } from "pino";
import type { Db } from "../storage/db.js";
import type { WebhookDeliveryRow } from "../storage/schema.js";
import type { DeliveryResult } from "./send.js";

/** Deliveries kept per webhook. */
export const KEEP_DELIVERIES = 50;
const FLUSH_MS = 1_000;
/** Results held while the database does not answer; beyond it the oldest are forgotten. */
const MAX_PENDING = 10_000;

export class DeliveryLog {
  private pending: DeliveryResult[] = [];
  private readonly drops = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;

  constructor(private readonly deps: { db: Db; log: Logger }) {}

  add(result: DeliveryResult): void {
    if (this.pending.length >= MAX_PENDING) this.pending.shift();
    this.pending.push(result);
    this.schedule();
  }

  dropped(webhookId: string): void {
    this.drops.set(webhookId, (this.drops.get(webhookId) ?? 0) + 1);
    this.schedule();
  }

  /** Dropped events not yet written (added to the stored count when shown). */
  unwrittenDrops(webhookId: string): number {
    return this.drops.get(webhookId) ?? 0;
  }

  /** Writes one result now (the test event's answer must be in the log when it is returned). */
  async writeNow(result: DeliveryResult): Promise<void> {
    await this.write([result], new Map());
  }

  /** Writes everything held; concurrent callers share one write. */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.pending.length === 0 && this.drops.size === 0) return;
    const results = this.pending;
    const drops = new Map(this.drops);
    this.pending = [];
    this.drops.clear();
    this.flushing = this.write(results, drops)
      .catch((err) => {
        this.deps.log.warn({ err }, "webhook delivery log write failed");
        this.pending = [...results, ...this.pending].slice(-MAX_PENDING);
        for (const [id, n] of drops) this.drops.set(id, (this.drops.get(id) ?? 0) + n);
      })
      .finally(() => {
        this.flushing = null;
      });
    await this.flushing;
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.flush();
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, FLUSH_MS);
    this.timer.unref();
  }

  private async write(results: DeliveryResult[], drops: Map<string, number>): Promise<void> {
    // Only the newest KEEP of a webhook can survive the trim: older ones are never written.
    const byHook = new Map<string, DeliveryResult[]>();
    for (const r of results) {
      const list = byHook.get(r.webhookId);
      if (list) list.push(r);
      else byHook.set(r.webhookId, [r]);
    }
    const rows: WebhookDeliveryRow[] = [];
    for (const list of byHook.values()) {
      for (const r of list.slice(-KEEP_DELIVERIES)) {
        rows.push({
          id: r.id,
          webhook_id: r.webhookId,
          event: r.event,
          at: r.at,
          status_code: r.status_code,
          error: r.error,
          duration_ms: r.duration_ms,
          test: r.test ? 1 : 0,
          payload: r.payload,
        });
      }
    }
    await this.deps.db.transaction().execute(async (trx) => {
      const live = new Set(
        byHook.size === 0
          ? []
          : (
              await trx
                .selectFrom("webhooks")
                .select("id")
                .where("id", "in", [...byHook.keys()])
                .execute()
            ).map((w) => w.id),
      );
      // A webhook removed meanwhile takes its results with it.
      const kept = rows.filter((r) => live.has(r.webhook_id));
      for (let i = 0; i < kept.length; i += 500)
        await trx
          .insertInto("webhook_deliveries")
          .values(kept.slice(i, i + 500))
          .execute();
      for (const id of live) {
        const cutoff = await trx
          .selectFrom("webhook_deliveries")
          .select(["at", "id"])
          .where("webhook_id", "=", id)
          .orderBy("at", "desc")
          .orderBy("id", "desc")
          .offset(KEEP_DELIVERIES - 1)
          .limit(1)
          .executeTakeFirst();
        if (!cutoff) continue;
        await trx
          .deleteFrom("webhook_deliveries")
          .where("webhook_id", "=", id)
          .where((eb) => eb.or([eb("at", "<", cutoff.at), eb.and([eb("at", "=", cutoff.at), eb("id", "<", cutoff.id)])]))
          .execute();
      }
      for (const [id, n] of drops)
        await trx
          .updateTable("webhooks")
          .set((eb) => ({ dropped: eb("dropped", "+", n) }))
          .where("id", "=", id)
          .execute();
    });
  }
}
