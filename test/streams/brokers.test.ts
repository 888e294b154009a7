// The click stream against the real RabbitMQ, Redis, NATS JetStream and Mosquitto of 127.0.0.1 (docs/stream.md):
// every click of a load reaches each broker exactly once after de-duplication by id; a broker stopped for 10 s
// under load and restarted loses nothing; a broker that accepts and never answers slows no redirect; two
// PostgreSQL instances publish each click once. One file: these tests stop shared brokers, never side by side.
import { randomUUID } from "node:crypto";
import { createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINES } from "../helpers/engines.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { signedInClient } from "../helpers/client.js";
import { createLink } from "../helpers/links.js";
import { visit } from "../helpers/visit.js";
import { waitFor } from "../helpers/wait.js";
import {
  ALL_BROKERS_ENV,
  BROKER_CONTROL,
  BROKER_URLS,
  CONSUMERS,
  type Consumer,
  type Kind,
  type StreamEventSeen,
  brokersUp,
  listening,
  sh,
} from "../helpers/broker-consumers.js";

const KINDS: Kind[] = ["amqp", "redis", "nats", "mqtt"];
const ALL_ENV = ALL_BROKERS_ENV;

/** Clicks on `aliases` in rounds, `perRound` at a time; resolves with the number served. */
async function load(server: TestServer, aliases: string[], clicks: number, perRound = 20): Promise<number> {
  let served = 0;
  for (let i = 0; i < clicks; i += perRound) {
    const n = Math.min(perRound, clicks - i);
    const codes = await Promise.all(
      Array.from({ length: n }, (_, k) => visit(server.url, `/${aliases[(i + k) % aliases.length]}`, { "user-agent": "stream-test" })),
    );
    served += codes.filter((c) => c === 302).length;
  }
  return served;
}

/** The events of these links a consumer got: all of them (duplicates kept) and the distinct ids. */
async function received(c: Consumer, linkIds: Set<string>): Promise<{ all: StreamEventSeen[]; ids: Set<string> }> {
  const all = (await c.events()).filter((e) => linkIds.has(e.link.id));
  return { all, ids: new Set(all.map((e) => e.id)) };
}

async function everyBrokerHas(
  consumers: Record<Kind, Consumer>,
  linkIds: Set<string>,
  n: number,
): Promise<Record<Kind, { all: StreamEventSeen[]; ids: Set<string> }>> {
  const out = {} as Record<Kind, { all: StreamEventSeen[]; ids: Set<string> }>;
  for (const k of KINDS)
    out[k] = await waitFor(
      async () => {
        const r = await received(consumers[k], linkIds);
        return r.ids.size >= n ? r : null;
      },
      { timeoutMs: 30_000 },
    );
  return out;
}

async function startConsumers(): Promise<Record<Kind, Consumer>> {
  const out = {} as Record<Kind, Consumer>;
  for (const k of KINDS) out[k] = await CONSUMERS[k]();
  return out;
}

async function setup(server: TestServer, email: string, links = 4): Promise<{ ownerId: string; ids: Set<string>; aliases: string[] }> {
  const c = await signedInClient(server, email, "business");
  const made = await Promise.all(Array.from({ length: links }, (_, i) => createLink(c, { url: `https://example.com/${i}` })));
  const owner = await server.ctx.storage.db.selectFrom("users").select("id").where("email", "=", email).executeTakeFirstOrThrow();
  return { ownerId: owner.id, ids: new Set(made.map((l) => l.id)), aliases: made.map((l) => l.alias) };
}

const up = await brokersUp();
const ALL_UP = Object.values(up).every(Boolean);

describe.skipIf(!ALL_UP).each(ENGINES)("click stream on the four brokers (%s)", (engine) => {
  let server: TestServer;
  let consumers: Record<Kind, Consumer>;
  beforeAll(async () => {
    consumers = await startConsumers();
    server = await startTestServer({ engine, env: ALL_ENV });
  });
  afterAll(async () => {
    await server?.close();
    for (const c of Object.values(consumers ?? {})) await c.close();
  });

  it("every click of a load reaches each broker, exactly once after de-duplication, in order per link", async () => {
    const { ownerId, ids, aliases } = await setup(server, `load-${engine}@example.com`);
    expect(await load(server, aliases, 200)).toBe(200);
    const got = await everyBrokerHas(consumers, ids, 200);
    for (const k of KINDS) {
      expect(got[k].ids.size, k).toBe(200);
      const e = got[k].all[0] as StreamEventSeen;
      expect(e.schema).toBe(1);
      expect(e.owner_id).toBe(ownerId);
      expect(e.click.source).toBe("link");
      // Per link, the clicks come in time order.
      for (const id of ids) {
        const times = got[k].all.filter((x) => x.link.id === id).map((x) => x.click.at);
        expect(times, k).toEqual([...times].sort());
      }
    }
    // Published and confirmed: the outbox is empty again and /metrics' figures name each broker.
    await waitFor(
      async () =>
        Number(
          (
            await server.ctx.storage.db
              .selectFrom("stream_outbox")
              .select((eb) => eb.fn.countAll<number>().as("n"))
              .executeTakeFirstOrThrow()
          ).n,
        ) === 0 || null,
    );
    const byBroker = server.ctx.streamPublisher.byBroker();
    expect([...byBroker.keys()].sort()).toEqual(["amqp", "mqtt", "nats", "redis"]);
    for (const k of KINDS) expect(byBroker.get(k)?.published, k).toBe(200);
  });

  it("publishes an event queued one per row, as before migration 038", async () => {
    const { ownerId, ids } = await setup(server, `legacy-${engine}@example.com`, 1);
    const linkId = [...ids][0] as string;
    const link = await server.ctx.storage.db.selectFrom("links").select(["alias", "url"]).where("id", "=", linkId).executeTakeFirstOrThrow();
    const click = JSON.stringify({
      at: new Date(5_000).toISOString(),
      country: null,
      device: "desktop",
      os: null,
      browser: null,
      referrer_host: null,
      bot: false,
      destination: "default",
      source: "qr",
    });
    // Unique per run: JetStream drops a Nats-Msg-Id it saw in the last two minutes (an earlier run's).
    const eventId = `legacy-${engine}-${randomUUID()}.1`;
    await server.ctx.storage.db
      .insertInto("stream_outbox")
      .values(
        KINDS.map((k) => ({
          sink_id: `env:${k}`,
          event_id: eventId,
          link_id: linkId,
          owner_id: ownerId,
          alias: link.alias,
          domain: "",
          url: link.url,
          at: 5_000,
          click,
        })),
      )
      .execute();
    const got = await everyBrokerHas(consumers, ids, 1);
    for (const k of KINDS) {
      const e = got[k].all[0] as StreamEventSeen;
      expect([e.id, e.owner_id, e.link.id, e.click.source], k).toEqual([eventId, ownerId, linkId, "qr"]);
    }
  });
});

describe.skipIf(!ALL_UP)("a broker stopped for 10 s under load and restarted loses nothing", () => {
  let server: TestServer;
  let consumers: Record<Kind, Consumer>;
  beforeAll(async () => {
    consumers = await startConsumers();
    server = await startTestServer({ engine: "sqlite", env: ALL_ENV });
  });
  afterAll(async () => {
    await server?.close();
    for (const c of Object.values(consumers ?? {})) await c.close();
  });

  for (const kind of KINDS) {
    it(`${kind}: clicks during the outage arrive after it, none lost`, async () => {
      const { ids, aliases } = await setup(server, `outage-${kind}@example.com`, 3);
      const control = BROKER_CONTROL[kind];
      let served = await load(server, aliases, 30);
      const failuresBefore = server.ctx.streamPublisher.stats.get(`env:${kind}`)?.failures ?? 0;
      try {
        sh(control.stop);
        const until = Date.now() + 10_000;
        while (Date.now() < until) {
          served += await load(server, aliases, 10, 10);
          await new Promise((r) => setTimeout(r, 200));
        }
      } finally {
        sh(control.start);
        await listening(control.port);
      }
      served += await load(server, aliases, 30);
      const got = await waitFor(
        async () => {
          const r = await received(consumers[kind], ids);
          return r.ids.size >= served ? r : null;
        },
        { timeoutMs: 60_000 },
      );
      expect(got.ids.size).toBe(served);
      // The broker was really away: rounds failed meanwhile, and were retried.
      expect(server.ctx.streamPublisher.stats.get(`env:${kind}`)?.failures ?? 0).toBeGreaterThan(failuresBefore);
    }, 120_000);
  }
});

describe("a broker that never answers", () => {
  let silent: Server;
  const sockets = new Set<Socket>();
  let server: TestServer;
  beforeAll(async () => {
    silent = createServer((s) => void sockets.add(s.on("error", () => undefined)));
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    const port = (silent.address() as { port: number }).port;
    server = await startTestServer({
      engine: "sqlite",
      env: { STREAM_AMQP_URL: `amqp://guest:guest@127.0.0.1:${port}`, STREAM_TIMEOUT_MS: "500", STREAM_POLL_MS: "50", CLICK_FLUSH_MS: "50" },
    });
  });
  afterAll(async () => {
    await server?.close();
    for (const s of sockets) s.destroy();
    silent?.close();
  });

  it("slows no redirect, keeps the events, and counts the failures", async () => {
    const { aliases } = await setup(server, "silent@example.com", 2);
    await load(server, aliases, 20);
    const started = performance.now();
    expect(await load(server, aliases, 200, 20)).toBe(200);
    const perRedirectMs = (performance.now() - started) / 200;
    // A redirect never waits for the publisher (a wait would be STREAM_TIMEOUT_MS, 500 ms).
    expect(perRedirectMs).toBeLessThan(50);
    await waitFor(() => (server.ctx.streamPublisher.stats.get("env:amqp")?.failures ?? 0) >= 1 || null, { timeoutMs: 10_000 });
    await server.ctx.clicks.flush();
    // The events wait in the outbox, a row per written batch (not per click).
    const kept = await server.ctx.storage.db
      .selectFrom("stream_outbox")
      .select((eb) => [eb.fn.sum<number>("n").as("n"), eb.fn.countAll<number>().as("rows")])
      .where("sink_id", "=", "env:amqp")
      .executeTakeFirstOrThrow();
    expect(Number(kept.n)).toBe(220);
    expect(Number(kept.rows)).toBeLessThan(220);
    const metrics = await server.ctx.storage.db
      .selectFrom("stream_sinks")
      .select(["failed", "last_error"])
      .where("id", "=", "env:amqp")
      .executeTakeFirstOrThrow();
    expect(Number(metrics.failed)).toBeGreaterThanOrEqual(1);
    expect(metrics.last_error).toMatch(/ETIMEDOUT|no answer/);
  }, 60_000);
});

describe.skipIf(!ENGINES.includes("postgres") || !ALL_UP)("two PostgreSQL instances", () => {
  let a: TestServer;
  let b: TestServer;
  let consumer: Consumer;
  beforeAll(async () => {
    consumer = await CONSUMERS.redis();
    const env = { STREAM_REDIS_URL: BROKER_URLS.redis, STREAM_TIMEOUT_MS: "1000", STREAM_POLL_MS: "20", CLICK_FLUSH_MS: "50" };
    a = await startTestServer({ engine: "postgres", env });
    b = await startTestServer({ databaseUrl: a.databaseUrl, env });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it("publish each click once: no event twice, none missing", async () => {
    const { ids, aliases } = await setup(a, "two@example.com", 3);
    const served = (await Promise.all([load(a, aliases, 150), load(b, aliases, 150)])).reduce((x, y) => x + y, 0);
    expect(served).toBe(300);
    const got = await waitFor(
      async () => {
        const r = await received(consumer, ids);
        return r.ids.size >= 300 ? r : null;
      },
      { timeoutMs: 30_000 },
    );
    await new Promise((r) => setTimeout(r, 500));
    const after = await received(consumer, ids);
    expect(after.ids.size).toBe(300);
    expect(after.all.length).toBe(300);
    expect(got.all.length).toBe(300);
    const both = (a.ctx.streamPublisher.stats.get("env:redis")?.published ?? 0) + (b.ctx.streamPublisher.stats.get("env:redis")?.published ?? 0);
    expect(both).toBe(300);
  }, 60_000);
});
