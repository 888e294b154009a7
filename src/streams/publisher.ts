// The click stream's publisher (docs/stream.md): on every instance, for each active sink, takes the sink's
// lease (one publisher per sink across instances: each event is sent by one of them), reads the oldest
// outbox rows, publishes them and deletes them once the broker confirmed. A broker that is down or silent
// only holds up its own sink: rounds are bounded in time and retried with a growing pause, nothing on the
// redirect path waits for them, and the outbox keeps the events (in order) until the broker is back.
import { hostname } from "node:os";
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { Db } from "../storage/db.js";
import type { StreamOutboxRow, StreamSinkRow } from "../storage/schema.js";
import type { StreamConfig } from "../config-stream.js";
import type { SealedBox } from "../shared/secret-box.js";
import type { ReceiverCheck } from "../webhooks/receiver-check.js";
import { can } from "../accounts/plans.js";
import { shortUrl } from "../links/public-link.js";
import { type BrokerClient, type BrokerKind, type StreamEvent, brokerClient } from "./brokers.js";
import { BROKER_KINDS } from "../contract/broker-kinds.js";
import { checkBrokerHost, parseBrokerUrl } from "./stream-urls.js";
import { decodeBatch } from "./outbox.js";
import { decodeOutward } from "./event-outbox.js";

/** The event schema's version (docs/stream.md). */
export const STREAM_SCHEMA = 1;
/** Events per publish round. */
const ROUND = 500;
/** A sink's drain goes on round after round for at most this long, then waits for the next poll. */
const DRAIN_MS = 1_000;
/** Backlog, lag and the outbox bound are read this often. */
const STATS_MS = 2_000;
const MAX_PAUSE_MS = 30_000;

interface SinkState {
  client: BrokerClient | null;
  /** The sink row's updated_at the client was made for: an edited URL gets a new client. */
  version: number;
  busy: boolean;
  failures: number;
  retryAt: number;
}

/** Per sink: events waiting, the oldest one's click time, published and failed rounds (this instance). */
export interface SinkStats {
  backlog: number;
  oldestAt: number | null;
  published: number;
  failures: number;
}

export interface PublisherDeps {
  db: Db;
  settings: StreamConfig;
  box: SealedBox;
  check: ReceiverCheck;
  origin: string;
  log: Logger;
  now: () => number;
}

export class StreamPublisher {
  readonly instance = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly states = new Map<string, SinkState>();
  /** Keyed by sink id ("env:amqp", ...). */
  readonly stats = new Map<string, SinkStats>();
  private timer: NodeJS.Timeout | null = null;
  private statsAt = 0;
  private running: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly deps: PublisherDeps) {}

  /** The operator's brokers as sinks (added, or turned off when their setting is gone), then the loop. */
  async start(): Promise<void> {
    const { db, settings, now } = this.deps;
    const t = now();
    for (const { kind, setting } of BROKER_KINDS) {
      const id = `env:${kind}`;
      const active = settings[kind] ? 1 : 0;
      const row = { id, owner_id: null, kind, name: setting, url: "", url_enc: null, active, created_at: t, updated_at: t };
      await db
        .insertInto("stream_sinks")
        .values(row)
        .onConflict((oc) => oc.column("id").doUpdateSet({ active }))
        .execute();
      if (!active) await db.deleteFrom("stream_outbox").where("sink_id", "=", id).execute();
    }
    this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      this.running = this.tick()
        .catch((err) => this.deps.log.warn({ err }, "click stream round failed"))
        .finally(() => {
          this.running = null;
          this.schedule(this.deps.settings.pollMs);
        });
    }, ms);
    this.timer.unref();
  }

  /** One pass over the active sinks; sinks publish side by side, each at most one round at a time. */
  async tick(): Promise<void> {
    const { db, now } = this.deps;
    const sinks = await db
      .selectFrom("stream_sinks")
      .leftJoin("users", "users.id", "stream_sinks.owner_id")
      .selectAll("stream_sinks")
      .select(["users.plan", "users.status"])
      .where("stream_sinks.active", "=", 1)
      .execute();
    if (now() - this.statsAt >= STATS_MS) await this.refreshStats(sinks);
    const rounds: Promise<void>[] = [];
    for (const sink of sinks) {
      if (sink.owner_id !== null && (sink.status !== "active" || !can(sink.plan ?? "free", "streams"))) {
        // Nothing is owed to a sink whose account lost the plan or is suspended.
        await db.deleteFrom("stream_outbox").where("sink_id", "=", sink.id).execute();
        continue;
      }
      const state = this.state(sink);
      if (state.busy || now() < state.retryAt) continue;
      state.busy = true;
      rounds.push(this.drain(sink, state).finally(() => (state.busy = false)));
    }
    await Promise.all(rounds);
  }

  private state(sink: StreamSinkRow): SinkState {
    let s = this.states.get(sink.id);
    if (s && s.version !== Number(sink.updated_at)) {
      void s.client?.close();
      s = undefined;
    }
    if (!s) this.states.set(sink.id, (s = { client: null, version: Number(sink.updated_at), busy: false, failures: 0, retryAt: 0 }));
    return s;
  }

  /** Rounds until the sink's outbox is empty, a round fails, or another instance holds its lease. */
  private async drain(sink: StreamSinkRow, state: SinkState): Promise<void> {
    const { db, now } = this.deps;
    // Bounded, so that the poll comes back (the backlog, `full`, a sink turned off) while a busy sink drains.
    const until = now() + DRAIN_MS;
    for (;;) {
      if (this.closed) return;
      // The lease is taken (a write) only when there is something to send; the rows are read again under it.
      const waiting = await db.selectFrom("stream_outbox").select("id").where("sink_id", "=", sink.id).limit(1).executeTakeFirst();
      if (waiting === undefined || !(await this.lease(sink.id))) return;
      const ids = await this.roundIds(sink.id);
      if (ids.length === 0) return;
      const rows = await db.selectFrom("stream_outbox").selectAll().where("id", "in", ids).orderBy("id").execute();
      const t = now();
      const events = rows.flatMap((r) => this.events(r, t));
      const stat = this.stat(sink.id);
      try {
        state.client ??= await this.client(sink);
        // A batch row can hold thousands: sent ROUND at a time, each bounded in time; a failure sends the row again.
        for (let i = 0; i < events.length; i += ROUND) await state.client.publish(events.slice(i, i + ROUND));
      } catch (err) {
        stat.failures++;
        state.failures++;
        state.retryAt = now() + Math.min(MAX_PAUSE_MS, 2 * this.deps.settings.timeoutMs, 250 * 2 ** Math.min(state.failures, 7));
        const message = err instanceof Error ? err.message.slice(0, 300) : String(err);
        this.deps.log.warn({ err, sink: sink.id }, "click stream: broker did not confirm; kept for a retry");
        await db
          .updateTable("stream_sinks")
          .set((eb) => ({ failed: eb("failed", "+", 1), last_error: message, last_error_at: now() }))
          .where("id", "=", sink.id)
          .execute();
        return;
      }
      state.failures = 0;
      await db.deleteFrom("stream_outbox").where("sink_id", "=", sink.id).where("id", "in", ids).execute();
      stat.published += events.length;
      stat.backlog = Math.max(0, stat.backlog - events.length);
      await db
        .updateTable("stream_sinks")
        .set((eb) => ({ delivered: eb("delivered", "+", events.length), last_ok_at: now() }))
        .where("id", "=", sink.id)
        .execute();
      if (events.length < ROUND || now() >= until) return;
    }
  }

  /** The oldest rows of a round: up to ROUND events, and at least one row (a batch row may hold more). */
  private async roundIds(sinkId: string): Promise<number[]> {
    const heads = await this.deps.db.selectFrom("stream_outbox").select(["id", "n"]).where("sink_id", "=", sinkId).orderBy("id").limit(ROUND).execute();
    const ids: number[] = [];
    let events = 0;
    for (const h of heads) {
      if (ids.length > 0 && events + Number(h.n) > ROUND) break;
      ids.push(Number(h.id));
      events += Number(h.n);
    }
    return ids;
  }

  /** A row's events: a batch row's list, a lead, sale or split event, or the row itself (written before migration 038). */
  private events(r: StreamOutboxRow, t: number): StreamEvent[] {
    if (r.events === null) return [{ id: r.event_id, ownerId: r.owner_id, body: this.body(r, `"click":${r.click}`, t) }];
    const outward = decodeOutward(r.events);
    if (outward !== null)
      return [
        {
          id: outward.id,
          ownerId: outward.owner_id,
          body: outward.link
            ? this.body({ ...outward.link, owner_id: outward.owner_id, event_id: outward.id }, outward.tail, t, outward.type)
            : this.head({ event_id: outward.id, owner_id: outward.owner_id }, outward.tail, t, outward.type),
        },
      ];
    return decodeBatch(r.events).map((e) => ({
      id: e.id,
      ownerId: e.owner_id,
      body: this.body({ ...e, event_id: e.id }, `"click":${JSON.stringify(e.click)}`, t),
    }));
  }

  /** Takes or renews the sink's lease; false while another live instance holds it. */
  private async lease(sinkId: string): Promise<boolean> {
    const t = this.deps.now();
    const res = await this.deps.db
      .updateTable("stream_sinks")
      .set({ lease_owner: this.instance, lease_until: t + 3 * this.deps.settings.timeoutMs + 5_000 })
      .where("id", "=", sinkId)
      .where((eb) => eb.or([eb("lease_owner", "=", this.instance), eb("lease_until", "<", t), eb("lease_owner", "is", null)]))
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  private async client(sink: StreamSinkRow): Promise<BrokerClient> {
    const { settings, box, check } = this.deps;
    const kind = sink.kind as BrokerKind;
    const opts = { timeoutMs: settings.timeoutMs, redisMaxLen: settings.redisMaxLen, clientId: `snip-${sink.id.replace(/[^a-zA-Z0-9]/g, "")}` };
    if (sink.owner_id === null) return brokerClient(kind, { url: settings[kind] as string }, opts);
    // An account's broker: its host checked again (the DNS answer may have changed), connected to by that address.
    const url = box.open(sink.url_enc as string, sink.id);
    if (url === null) throw new Error("the broker URL cannot be opened (SESSION_SECRET changed?); enter it again");
    const address = await checkBrokerHost(check, parseBrokerUrl(url, kind));
    return brokerClient(kind, { url, address }, opts);
  }

  /** The event's JSON: its head, the link, then `tail` (its own object under its name, e.g. "click":{...}). */
  private body(
    r: { event_id: string; owner_id: string | null; link_id: string; alias: string; domain: string; url: string; folder_id?: string | null },
    tail: string,
    t: number,
    type = "link_click",
  ): string {
    const link = {
      id: r.link_id,
      alias: r.alias,
      domain: r.domain || null,
      short_url: shortUrl(this.deps.origin, r.domain, r.alias),
      url: r.url,
      folder_id: r.folder_id ?? null,
    };
    return this.head(r, tail, t, type, link);
  }

  /** The event's JSON without a link (an audit event), or with the link `body` made. */
  private head(r: { event_id: string; owner_id: string | null }, tail: string, t: number, type: string, link?: Record<string, unknown>): string {
    const head = {
      schema: STREAM_SCHEMA,
      id: r.event_id,
      version: 1,
      type,
      created_at: new Date(t).toISOString(),
      test: false,
      owner_id: r.owner_id,
      ...(link ? { link } : {}),
    };
    return `${JSON.stringify(head).slice(0, -1)},${tail}}`;
  }

  private stat(id: string): SinkStats {
    let s = this.stats.get(id);
    if (!s) this.stats.set(id, (s = { backlog: 0, oldestAt: null, published: 0, failures: 0 }));
    return s;
  }

  /** Backlog and lag per sink; a sink at STREAM_OUTBOX_MAX is marked full (the writer stops queueing for it) and back. */
  private async refreshStats(sinks: readonly StreamSinkRow[]): Promise<void> {
    this.statsAt = this.deps.now();
    const { db, settings } = this.deps;
    const rows = await db
      .selectFrom("stream_outbox")
      .select((eb) => ["sink_id", eb.fn.sum<number>("n").as("n"), eb.fn.min("at").as("oldest")])
      .groupBy("sink_id")
      .execute();
    const by = new Map(rows.map((r) => [r.sink_id, r]));
    for (const sink of sinks) {
      const r = by.get(sink.id);
      const stat = this.stat(sink.id);
      stat.backlog = r ? Number(r.n) : 0;
      stat.oldestAt = r && r.oldest !== null ? Number(r.oldest) : null;
      const full = stat.backlog >= settings.outboxMax ? 1 : 0;
      if (full !== Number(sink.full)) await db.updateTable("stream_sinks").set({ full }).where("id", "=", sink.id).execute();
    }
  }

  /** The stats by broker for /metrics: the operator's by kind, accounts' summed as "account". */
  byBroker(): Map<string, SinkStats> {
    const out = new Map<string, SinkStats>();
    for (const [id, st] of this.stats) {
      const key = id.startsWith("env:") ? id.slice(4) : "account";
      const o = out.get(key) ?? { backlog: 0, oldestAt: null, published: 0, failures: 0 };
      o.backlog += st.backlog;
      o.published += st.published;
      o.failures += st.failures;
      if (st.oldestAt !== null && (o.oldestAt === null || st.oldestAt < o.oldestAt)) o.oldestAt = st.oldestAt;
      out.set(key, o);
    }
    return out;
  }

  /** Stops the loop, lets a round in flight finish, closes the connections. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
    await Promise.all([...this.states.values()].map((s) => s.client?.close()));
  }
}
