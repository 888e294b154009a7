// /api/streams (docs/api.md, Click streams) on both engines: the plan gate, the URL checks (scheme per kind,
// the address guard, oversized and hostile input), the sealed password, the limit, an account's own clicks
// reaching its own Redis (and no one else's), the delivery status, deactivation and removal.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINES } from "../helpers/engines.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { signedInClient } from "../helpers/client.js";
import { createLink } from "../helpers/links.js";
import { visit } from "../helpers/visit.js";
import { waitFor } from "../helpers/wait.js";
import { brokersUp, redisConsumer } from "../helpers/broker-consumers.js";

const up = await brokersUp();
import { MAX_STREAMS } from "../../src/streams/streams.js";

describe.each(ENGINES)("/api/streams on %s", (engine) => {
  let server: TestServer;
  let guarded: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ engine, env: { WEBHOOK_ALLOW_PRIVATE: "true", STREAM_POLL_MS: "50", CLICK_FLUSH_MS: "50", STREAM_TIMEOUT_MS: "1000" } });
    guarded = await startTestServer({ engine, env: { DNS_SERVERS: "127.0.0.1:9" } });
  });
  afterAll(async () => {
    await server?.close();
    await guarded?.close();
  });

  it("free and Pro get plan_required; Business creates, the password never comes back; a sixth is limit_reached", async () => {
    for (const plan of ["free", "pro"]) {
      const c = await signedInClient(server, `gate-${plan}-${engine}@example.com`, plan);
      const r = await c.post("/api/streams", { name: "S", kind: "redis", url: "redis://127.0.0.1:6379" });
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ code: "plan_required", required_plan: "business" });
      expect((await c.get("/api/streams")).status).toBe(403);
    }
    const c = await signedInClient(server, `owner-${engine}@example.com`, "business");
    const r = await c.post("/api/streams", { name: "Mine", kind: "amqp", url: "amqp://snip:s3cret-pw@127.0.0.1:5672/vh" });
    expect(r.status, r.text).toBe(201);
    expect(r.body.stream).toMatchObject({ name: "Mine", kind: "amqp", url: "amqp://snip:***@127.0.0.1:5672/vh", active: true });
    expect(r.body.stream.status).toEqual({ delivered: 0, failed: 0, backlog: 0, full: false, last_ok_at: null, last_error: null, last_error_at: null });
    expect(r.text).not.toContain("s3cret-pw");
    const row = await server.ctx.storage.db.selectFrom("stream_sinks").selectAll().where("id", "=", r.body.stream.id).executeTakeFirstOrThrow();
    expect(row.url).not.toContain("s3cret-pw");
    expect(row.url_enc).not.toContain("s3cret-pw");
    expect((await c.get("/api/streams")).body.streams.map((s: { id: string }) => s.id)).toEqual([r.body.stream.id]);
    // ClickHouse's credentials are the URL's too: sealed, the password shown as ***.
    const ch = await c.post("/api/streams", { name: "S1", kind: "clickhouse", url: "https://snip:s3cret-ch@127.0.0.1:8443/analytics" });
    expect([ch.status, ch.body.stream?.url, ch.text.includes("s3cret-ch")]).toEqual([201, "https://snip:***@127.0.0.1:8443/analytics", false]);
    for (let i = 2; i < MAX_STREAMS; i++)
      expect((await c.post("/api/streams", { name: `S${i}`, kind: "mqtt", url: "mqtt://127.0.0.1:1883" })).status).toBe(201);
    const sixth = await c.post("/api/streams", { name: "S6", kind: "mqtt", url: "mqtt://127.0.0.1:1883" });
    expect(sixth.status).toBe(403);
    expect(sixth.body.code).toBe("limit_reached");
  });

  it("refuses wrong schemes, private addresses (without WEBHOOK_ALLOW_PRIVATE), oversized and hostile input with 400", async () => {
    const c = await signedInClient(guarded, `checks-${engine}@example.com`, "business");
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: "x", kind: "redis", url: "amqp://93.184.216.34" }, "url: must start with redis:// or rediss:// for redis"],
      [{ name: "x", kind: "nats", url: "http://93.184.216.34" }, "url: must start with nats:// or tls:// for nats"],
      [{ name: "x", kind: "clickhouse", url: "redis://93.184.216.34" }, "url: must start with http:// or https:// for clickhouse"],
      [
        { name: "x", kind: "clickhouse", url: "https://93.184.216.34/snip/clicks" },
        "url: must have a database name as its path (letters, digits and _, e.g. /snip) or none",
      ],
      [
        { name: "x", kind: "clickhouse", url: "http://127.0.0.1:8123/snip" },
        "url: is a loopback address; the server's operator can accept brokers on loopback and private networks with WEBHOOK_ALLOW_PRIVATE=true",
      ],
      [
        { name: "x", kind: "mqtt", url: "mqtt://127.0.0.1:1883" },
        "url: is a loopback address; the server's operator can accept brokers on loopback and private networks with WEBHOOK_ALLOW_PRIVATE=true",
      ],
      [
        { name: "x", kind: "amqp", url: "amqp://10.1.2.3" },
        "url: is a private address; the server's operator can accept brokers on loopback and private networks with WEBHOOK_ALLOW_PRIVATE=true",
      ],
      // Cloud metadata's range: WEBHOOK_ALLOW_PRIVATE does not open it, so the refusal does not name it.
      [{ name: "x", kind: "redis", url: "redis://169.254.169.254" }, "url: is a link-local address (cloud metadata lives there)"],
      [{ name: "x", kind: "redis", url: "redis://93.184.216.34/a b" }, "url: must not contain spaces or control characters"],
      [{ name: "x", kind: "redis", url: "not a url" }, "url: must not contain spaces or control characters"],
      [{ name: "x", kind: "redis", url: "redis:" }, "url: must name a host"],
      [{ name: " ", kind: "redis", url: "redis://93.184.216.34" }, "name: must not be empty"],
    ];
    for (const [body, message] of cases) {
      const r = await c.post("/api/streams", body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.code).toBe("invalid_request");
      expect(r.body.message, JSON.stringify(body)).toBe(message);
    }
    for (const body of [
      { name: "x", kind: "kafka", url: "kafka://h" },
      { name: "x", kind: "redis", url: `redis://${"a".repeat(5000)}` },
      { name: "x", kind: "redis" },
      { name: "x", kind: "redis", url: "redis://93.184.216.34", extra: 1 },
    ]) {
      const r = await c.post("/api/streams", body);
      expect(r.status, JSON.stringify(body)).toBe(400);
    }
    const long = await c.post("/api/streams", { name: "x", kind: "redis", url: `redis://93.184.216.34/${"a".repeat(2100)}` });
    expect(long.body.message).toBe("url: must be at most 2048 characters");
  });

  it.skipIf(!up.redis)("the account's clicks reach its own broker, another account's do not; status, deactivation and removal", async () => {
    const consumer = await redisConsumer();
    const c = await signedInClient(server, `mine-${engine}@example.com`, "business");
    const other = await signedInClient(server, `theirs-${engine}@example.com`, "business");
    const mine = await createLink(c, { url: "https://example.com/mine" });
    const theirs = await createLink(other, { url: "https://example.com/theirs" });
    const s = (await c.post("/api/streams", { name: "R", kind: "redis", url: "redis://127.0.0.1:6379" })).body.stream;
    for (let i = 0; i < 12; i++) {
      expect(await visit(server.url, `/${mine.alias}`)).toBe(302);
      expect(await visit(server.url, `/${theirs.alias}`)).toBe(302);
    }
    const got = await waitFor(async () => {
      const e = (await consumer.events()).filter((x) => x.link.id === mine.id || x.link.id === theirs.id);
      return e.length >= 12 ? e : null;
    });
    expect(new Set(got.map((e) => e.link.id))).toEqual(new Set([mine.id]));
    expect(new Set(got.map((e) => e.id)).size).toBe(12);
    const status = await waitFor(async () => {
      const st = (await c.get("/api/streams")).body.streams[0].status;
      return st.delivered === 12 ? st : null;
    });
    expect(status).toMatchObject({ delivered: 12, failed: 0, backlog: 0, full: false, last_error: null });
    expect(typeof status.last_ok_at).toBe("string");

    const off = await c.patch(`/api/streams/${s.id}`, { active: false });
    expect(off.status).toBe(200);
    expect(off.body.stream.active).toBe(false);
    expect(await visit(server.url, `/${mine.alias}`)).toBe(302);
    await server.ctx.clicks.flush();
    const queued = await server.ctx.storage.db.selectFrom("stream_outbox").select("id").where("sink_id", "=", s.id).execute();
    expect(queued).toEqual([]);
    // Another account cannot see, change or remove it.
    expect((await other.patch(`/api/streams/${s.id}`, { active: true })).status).toBe(404);
    expect((await other.delete(`/api/streams/${s.id}`)).status).toBe(404);
    expect((await c.delete(`/api/streams/${s.id}`)).status).toBe(200);
    expect((await c.delete(`/api/streams/${s.id}`)).status).toBe(404);
  });
});
