// Link health's scheduler and record (docs/health.md): due destinations claimed with a lease (one instance checks
// each; PostgreSQL skips rows another instance holds), checked within the host limits and the hourly budget, and
// recorded with their state: three failures in a row make a destination broken, the next success recovers it.
// Each change is a link.broken or link.recovered event on the bus, inside the recording transaction, and a row the
// owner's daily digest reports.
import { setMaxListeners } from "node:events";
import type { Logger } from "pino";
import type { Db, Dialect } from "../storage/db.js";
import type { HealthConfig } from "../config-health.js";
import type { Clock } from "../shared/clock.js";
import { iso } from "../shared/clock.js";
import type { EventPublisher } from "../shared/events.js";
import { newId } from "../shared/ids.js";
import type { Updateable } from "kysely";
import type { LinkHealthRow, LinkHealthTable } from "../storage/health-tables.js";
import { type CheckOutcome, type CheckResult, CHECK_RESULTS, type DestinationChecker, FAILURES } from "./check-destination.js";
import { syncDestinations } from "./destinations.js";
import type { LinkCheckFigures, LinkHealthReply } from "../contract/health.js";
import { checkFigures, destinationsHealth } from "./health-reads.js";
import type { HealthDigest } from "./digest.js";

/** Failures in a row that make a destination broken. */
export const BROKEN_AFTER = 3;
/** Results kept per destination. */
export const HISTORY = 10;
/** How soon a failing destination is checked again (at most LINK_CHECK_INTERVAL). */
export const RETRY_AFTER_FAILURE_MS = 3_600_000;
/** The first wait after a 429; each 429 in a row doubles it (at most LINK_CHECK_INTERVAL). */
export const RATE_LIMITED_WAIT_MS = 300_000;
/** A claim: longer than a batch can take, so no other instance checks a claimed row meanwhile. */
const LEASE_MS = 15 * 60_000;
/** Destinations claimed at once. */
const BATCH = 100;
/** How often the scheduler looks for due destinations (new and edited links are checked at once anyway). */
const TICK_MS = 30_000;
/** Links given their rows per pass (links made before health existed, or while LINK_CHECKS was off). */
const BACKFILL = 500;

export interface LinkHealthDeps {
  db: Db;
  dialect: Dialect;
  clock: Clock;
  log: Logger;
  settings: HealthConfig;
  checker: DestinationChecker;
  /** link.broken and link.recovered. */
  events: EventPublisher;
  digest: HealthDigest;
}

type LinkOfEvent = { id: string; alias: string; domain: string; url: string; folder_id: string | null; owner_id: string | null };

/** stop()'s signal: one listener per check in flight (BATCH), past Node's warning at 10. */
const stopSignal = (c = new AbortController()) => (setMaxListeners(0, c.signal), c);

export class LinkHealth {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private changes: Promise<void> = Promise.resolve();
  /** The queue's figures as of the last pass (metrics read them at scrape time). */
  lastFigures = { due: 0, broken: 0 };
  private started = false;
  private stopping = stopSignal();
  private budget = { hour: -1, used: 0 };
  /** Checks done by result since start (metrics). */
  readonly done = new Map<CheckResult, number>(CHECK_RESULTS.map((r) => [r, 0]));

  constructor(private readonly deps: LinkHealthDeps) {}

  get enabled(): boolean {
    return this.deps.settings.enabled;
  }

  start(): void {
    if (!this.enabled || this.started) return;
    this.started = true;
    if (this.stopping.signal.aborted) this.stopping = stopSignal();
    this.timer = setInterval(() => this.kick(), TICK_MS);
    this.timer.unref();
    this.kick();
  }

  /** At once: checks in flight are abandoned, unrecorded, their rows leased until LEASE_MS ends (no host's timeout waited). */
  async stop(): Promise<void> {
    this.started = false;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.stopping.abort(new Error("link health stopped"));
    await this.changes;
    await this.running;
  }

  /** A pass soon (a link made or edited): one at a time, another after the current one if asked meanwhile. */
  kick(): void {
    if (!this.started) return;
    if (this.running) {
      this.again = true;
      return;
    }
    void this.launch();
  }

  /** A pass now, after the one running (the CLI, tests): answers when it is done. */
  async runNow(): Promise<void> {
    if (this.stopping.signal.aborted) this.stopping = stopSignal();
    await this.changes;
    while (this.running) await this.running;
    await this.launch();
  }

  private launch(): Promise<void> {
    const p = this.pass()
      .catch((err: unknown) => this.deps.log.warn({ err }, "link health pass failed"))
      .finally(() => {
        this.running = null;
        if (this.again && this.started) {
          this.again = false;
          this.kick();
        }
      });
    this.running = p;
    return p;
  }

  /** One pass: rows for links without them, every due destination (within the budget), the digests due. */
  async pass(): Promise<void> {
    await this.backfill();
    await this.runDue();
    if (this.stopping.signal.aborted) return;
    await this.deps.digest.sendDue();
    this.lastFigures = await this.figures();
  }

  /**
   * A link was made, edited or deleted: synced one after the other (a bulk creation of thousands is a queue, not
   * thousands of queries at once).
   */
  queueChange(domain: string, alias: string): void {
    this.changes = this.changes
      .then(() => this.linkChanged(domain, alias))
      .catch((err: unknown) => this.deps.log.warn({ err }, "link health sync failed"))
      // SQLite answers within the microtask queue: a turn between syncs lets answers and timers through.
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)));
  }

  /** A link was made, edited or deleted (links/changes.ts): its rows follow its destinations, new ones checked at once. */
  async linkChanged(domain: string, alias: string): Promise<void> {
    if (!this.enabled) return;
    const link = await this.deps.db
      .selectFrom("links")
      .select(["id", "url", "ios_url", "android_url", "rules", "split", "expired_url"])
      .where("domain", "=", domain)
      .where("alias", "=", alias)
      .executeTakeFirst();
    if (!link) return;
    if (await syncDestinations(this.deps.db, link.id, link, this.deps.clock.now())) this.kick();
  }

  async backfill(): Promise<void> {
    const links = await this.deps.db
      .selectFrom("links")
      .select(["id", "url", "ios_url", "android_url", "rules", "split", "expired_url"])
      .where(({ not, exists, selectFrom }) => not(exists(selectFrom("link_health").select("link_health.id").whereRef("link_health.link_id", "=", "links.id"))))
      .limit(BACKFILL)
      .execute();
    const now = this.deps.clock.now();
    for (const link of links) await syncDestinations(this.deps.db, link.id, link, now);
  }

  /** Requests left in this clock hour. */
  private budgetLeft(): number {
    const hour = Math.floor(this.deps.clock.now() / 3_600_000);
    if (hour !== this.budget.hour) this.budget = { hour, used: 0 };
    return this.deps.settings.budgetPerHour - this.budget.used;
  }

  /** Checks every due destination this instance can claim, batch after batch, while the budget lasts. Answers how many. */
  async runDue(): Promise<number> {
    let checked = 0;
    const { signal } = this.stopping;
    while (!signal.aborted) {
      const left = this.budgetLeft();
      if (left <= 0) break;
      const rows = await this.claim(Math.min(BATCH, left));
      if (rows.length === 0) break;
      await Promise.all(rows.map((row) => this.checkOne(row, signal)));
      checked += rows.length;
    }
    return checked;
  }

  /** Due destinations of active links, leased to this instance (SKIP LOCKED on PostgreSQL: never one another holds). */
  private async claim(n: number): Promise<LinkHealthRow[]> {
    const now = this.deps.clock.now();
    let due = this.deps.db
      .selectFrom("link_health as h")
      .innerJoin("links as l", "l.id", "h.link_id")
      .select("h.id")
      .where("h.next_check_at", "<=", now)
      .where((eb) => eb.or([eb("h.lease_until", "is", null), eb("h.lease_until", "<", now)]))
      .where("l.disabled_at", "is", null)
      .where((eb) => eb.or([eb("l.expires_at", "is", null), eb("l.expires_at", ">", now), eb("h.destination", "=", "fallback")]))
      .orderBy("h.next_check_at")
      .limit(n);
    if (this.deps.dialect === "postgres") due = due.forUpdate("h").skipLocked();
    return this.deps.db
      .updateTable("link_health")
      .set({ lease_until: now + LEASE_MS })
      .where("id", "in", due)
      .returningAll()
      .execute();
  }

  private async checkOne(row: LinkHealthRow, signal: AbortSignal): Promise<void> {
    let outcome: CheckOutcome;
    try {
      outcome = await this.deps.checker.check(row.url, signal);
    } catch (err) {
      if (signal.aborted) return;
      this.deps.log.warn({ err, destination: row.id }, "link check failed unexpectedly");
      outcome = {
        result: "connection_error",
        status_code: null,
        error: "check failed",
        final_url: row.url,
        redirect_loop: false,
        tls_valid_to: null,
        response_ms: 0,
        requests: 1,
      };
    }
    this.budget.used += outcome.requests;
    this.done.set(outcome.result, (this.done.get(outcome.result) ?? 0) + 1);
    try {
      await this.record(row, outcome);
    } catch (err) {
      this.deps.log.warn({ err, destination: row.id }, "link check not recorded");
    }
  }

  /** The row's new state and next check, its history (trimmed to HISTORY) and, on a change, the event and the digest's row. */
  async record(row: LinkHealthRow, o: CheckOutcome): Promise<void> {
    const now = this.deps.clock.now();
    const interval = this.deps.settings.intervalMs;
    let { state, consecutive_failures: failures, broken_since: brokenSince } = row;
    let rateLimited = 0;
    let change: "broken" | "recovered" | null = null;
    let next = now + interval;
    if (o.result === "ok") {
      if (state === "broken") change = "recovered";
      state = "ok";
      failures = 0;
      brokenSince = null;
    } else if (FAILURES.has(o.result)) {
      failures++;
      if (failures >= BROKEN_AFTER && state !== "broken") {
        state = "broken";
        brokenSince = now;
        change = "broken";
      } else if (state !== "broken") state = "failing";
      next = now + Math.min(interval, RETRY_AFTER_FAILURE_MS);
    } else if (o.result === "rate_limited") {
      rateLimited = row.rate_limited + 1;
      next = now + Math.min(interval, RATE_LIMITED_WAIT_MS * 2 ** Math.min(rateLimited - 1, 20));
    }
    const update = {
      state,
      consecutive_failures: failures,
      rate_limited: rateLimited,
      last_result: o.result,
      last_status: o.status_code,
      last_error: o.error,
      final_url: o.final_url,
      redirect_loop: o.redirect_loop ? 1 : 0,
      tls_valid_to: o.tls_valid_to,
      response_ms: o.response_ms,
      last_checked_at: now,
      next_check_at: next,
      broken_since: brokenSince,
      lease_until: null,
    };
    await this.deps.db.transaction().execute((trx) => this.write(trx, row, o, update, change, now));
  }

  /** The row, its history trimmed to HISTORY, and on a change the digest's row and the event, in one transaction. */
  private async write(trx: Db, row: LinkHealthRow, o: CheckOutcome, update: Updateable<LinkHealthTable>, change: "broken" | "recovered" | null, now: number) {
    const { state } = update;
    const brokenSince = update.broken_since ?? null;
    await trx.updateTable("link_health").set(update).where("id", "=", row.id).execute();
    await trx
      .insertInto("link_health_results")
      .values({
        id: newId(),
        health_id: row.id,
        at: now,
        result: o.result,
        status_code: o.status_code,
        error: o.error,
        final_url: o.final_url,
        response_ms: o.response_ms,
      })
      .execute();
    const kept = trx.selectFrom("link_health_results").select("id").where("health_id", "=", row.id).orderBy("at", "desc").orderBy("id", "desc").limit(HISTORY);
    // PostgreSQL and SQLite both take LIMIT in a sub-select of NOT IN when it is wrapped once more.
    await trx
      .deleteFrom("link_health_results")
      .where("health_id", "=", row.id)
      .where("id", "not in", trx.selectFrom(kept.as("k")).select("k.id"))
      .execute();
    if (change === null) return;
    const link = await trx
      .selectFrom("links")
      .select(["id", "alias", "domain", "url", "folder_id", "owner_id"])
      .where("id", "=", row.link_id)
      .executeTakeFirst();
    if (!link?.owner_id) return;
    await trx
      .insertInto("link_health_changes")
      .values({ id: newId(), owner_id: link.owner_id, link_id: link.id, destination: row.destination, url: row.url, change, at: now, digested_at: null })
      .execute();
    await this.publish(change, link as LinkOfEvent & { owner_id: string }, trx, now, {
      destination: row.destination,
      url: row.url,
      state,
      broken_since: iso(brokenSince),
      result: o.result,
      status_code: o.status_code,
      error: o.error,
      checked_at: iso(now),
    });
  }

  private async publish(change: "broken" | "recovered", link: LinkOfEvent & { owner_id: string }, within: Db, at: number, health: Record<string, unknown>) {
    const name = change === "broken" ? "link.broken" : "link.recovered";
    await this.deps.events.publish(name, {
      ownerId: link.owner_id,
      within,
      at,
      link: { id: link.id, alias: link.alias, domain: link.domain, url: link.url, folder_id: link.folder_id },
      data: { health },
    });
  }

  /** What `GET /api/links/{id}/health` answers for a link the caller may read (and its external API twin). */
  async report(linkId: string): Promise<Omit<LinkHealthReply, "status">> {
    return { checks_enabled: this.enabled, destinations: await destinationsHealth(this.deps.db, linkId) };
  }

  /** The check queue's figures (metrics): destinations due now, broken destinations. */
  async figures(): Promise<{ due: number; broken: number }> {
    const { due, destinations_broken } = await this.overview();
    return { due, broken: destinations_broken };
  }

  /** The operator's overview (GET /api/admin/overview); with checks off, nothing (as links show no health then). */
  overview(): Promise<LinkCheckFigures> {
    return checkFigures(this.deps.db, this.enabled, this.deps.clock.now());
  }
}
