// The audit log's `audit` events on the real RabbitMQ, Redis, NATS JetStream and Mosquitto of 127.0.0.1 (docs/stream.md,
// Audit events), on both engines: every entry reaches the operator's broker of each kind with its stable id
// (audit:<entry id>) at least once, the body exactly the entry as the audit log lists it and no link; an account's
// own sink publishes its team's entries only. Brokers are never stopped here.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINES } from "../helpers/engines.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { testAccount } from "../helpers/team.js";
import { operator } from "../helpers/operator.js";
import { record, teamMember } from "../helpers/audit.js";
import { waitFor } from "../helpers/wait.js";
import { ALL_BROKERS_ENV, BROKER_URLS, CONSUMERS, type Consumer, type Kind, brokersUp } from "../helpers/broker-consumers.js";
import { STREAM_SCHEMA } from "../../src/streams/publisher.js";
import type { AuditEntry } from "../../src/contract/admin.js";

const KINDS: Kind[] = ["amqp", "redis", "nats", "mqtt"];
const ENV = { ...ALL_BROKERS_ENV, WEBHOOK_ALLOW_PRIVATE: "true" };

let n = 0;
const email = (what: string) => `audit-stream-${what}-${++n}-${Date.now().toString(36)}@example.com`;

interface Seen {
  id: string;
  type: string;
  owner_id: string | null;
  created_at: string;
  [key: string]: unknown;
}

const up = await brokersUp();

describe.skipIf(!Object.values(up).every(Boolean)).each(ENGINES)("audit events on the four brokers (%s)", (engine) => {
  let server: TestServer;
  const consumers = {} as Record<Kind, Consumer>;
  beforeAll(async () => {
    for (const k of KINDS) consumers[k] = await CONSUMERS[k]();
    server = await startTestServer({ engine, env: ENV });
  });
  afterAll(async () => {
    await server?.close();
    for (const c of Object.values(consumers)) await c.close();
  });

  it("each entry reaches every broker with its id and exact body; an account's sink publishes its own team's only", async () => {
    // Every test database numbers its entries from 1, and JetStream drops a message id it saw within its duplicate window
    // (2 minutes) from another run: entries of no team first, a random number of them, so that this run's ids are its own.
    const filler = 200 + Math.floor(Math.random() * 5_000);
    const t = Date.now();
    for (let i = 0; i < filler; i += 500)
      await server.ctx.storage.db
        .insertInto("admin_audit")
        .values(
          Array.from({ length: Math.min(500, filler - i) }, () => ({
            at: t,
            actor_id: null,
            actor_email: "filler",
            action: "test.filler",
            target_type: "account",
            target_id: "none",
            summary: "",
          })),
        )
        .execute();
    const ops = await operator(server, email("op"));
    const a = await testAccount(server, email("a"), "enterprise");
    const b = await testAccount(server, email("b"), "enterprise");
    // Each owner's own sink (Redis for one, MQTT for the other): it must publish that team's entries, and no other.
    const sinkA = (await a.client.post("/api/streams", { name: "A", kind: "redis", url: BROKER_URLS.redis })).body.stream.id as string;
    const sinkB = (await b.client.post("/api/streams", { name: "B", kind: "mqtt", url: BROKER_URLS.mqtt })).body.stream.id as string;
    expect(sinkA && sinkB).toBeTruthy();

    const ma = await teamMember(server, a, "member");
    const mb = await teamMember(server, b, "viewer");
    expect((await a.client.patch(`/api/team/members/${ma.id}`, { role: "viewer" })).status).toBe(200);
    expect((await b.client.patch(`/api/team/members/${mb.id}`, { role: "member" })).status).toBe(200);
    await record(server, ops, Date.now(), {
      action: "account.plan",
      targetId: a.id,
      summary: '=HYPERLINK("x")',
      before: { plan: "business" },
      after: { plan: "enterprise" },
    });

    const listed: AuditEntry[] = (await ops.client.get("/api/admin/audit?limit=20")).body.entries;
    const entries = [
      { entry: listed.find((e) => e.action === "team.role" && e.target_id === ma.id)!, owner: a.id },
      { entry: listed.find((e) => e.action === "team.role" && e.target_id === mb.id)!, owner: b.id },
      { entry: listed.find((e) => e.action === "account.plan" && e.target_id === a.id)!, owner: null },
    ];
    // An audit event's id is `audit:<entry id>:<random>`.
    const entryOf = (eventId: string) => /^audit:(\d+):[A-Za-z0-9_-]{10,}$/.exec(eventId)?.[1];
    const ids = new Set(entries.map((x) => x.entry.id));

    for (const k of KINDS) {
      const seen = await waitFor(
        async () => {
          const mine = ((await consumers[k].events()) as unknown as Seen[]).filter((e) => ids.has(entryOf(e.id) as string));
          return new Set(mine.map((e) => e.id)).size === ids.size ? mine : null;
        },
        { timeoutMs: 30_000, what: `the audit events on ${k}` },
      );
      for (const { entry, owner } of entries) {
        const copies = seen.filter((e) => entryOf(e.id) === entry.id);
        expect(copies.length, k).toBeGreaterThanOrEqual(1);
        for (const e of copies) {
          expect(Object.keys(e), k).toEqual(["schema", "id", "version", "type", "created_at", "test", "owner_id", "audit"]);
          expect(e, k).toEqual({
            schema: STREAM_SCHEMA,
            id: copies[0]!.id,
            version: 1,
            type: "audit",
            created_at: e.created_at,
            test: false,
            owner_id: owner,
            audit: entry,
          });
          expect(Number.isNaN(Date.parse(e.created_at))).toBe(false);
        }
      }
    }

    // The owners' sinks: each delivered exactly its own team's one entry, nothing is left to send.
    const delivered = await waitFor(
      async () => {
        const rows = await server.ctx.storage.db.selectFrom("stream_sinks").select(["id", "delivered"]).where("id", "in", [sinkA, sinkB]).execute();
        const left = await server.ctx.storage.db.selectFrom("stream_outbox").select("id").where("sink_id", "in", [sinkA, sinkB]).execute();
        return left.length === 0 && rows.every((r) => Number(r.delivered) >= 1) ? rows : null;
      },
      { timeoutMs: 30_000, what: "the owners' sinks to deliver" },
    );
    expect(Object.fromEntries(delivered.map((r) => [r.id, Number(r.delivered)]))).toEqual({ [sinkA]: 1, [sinkB]: 1 });
    // Redis has A's team entry twice (the operator's sink and A's), B's once; MQTT the other way round.
    const count = async (k: Kind, entryId: string) => ((await consumers[k].events()) as unknown as Seen[]).filter((e) => entryOf(e.id) === entryId).length;
    expect(await count("redis", entries[0]!.entry.id)).toBeGreaterThanOrEqual(2);
    expect(await count("mqtt", entries[1]!.entry.id)).toBeGreaterThanOrEqual(2);
  });
});
