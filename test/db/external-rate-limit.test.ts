// The external API's 100-per-hour limit is exact under concurrency, across instances, across restarts,
// and slides with the clock (SQLite and PostgreSQL).
import { afterEach, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { signedInClient } from "../helpers/client.js";
import { ManualClock } from "../../src/shared/clock.js";

const PATH = "/api/external-create.php";

async function create(server: TestServer, secret: string, i: number): Promise<{ status: number; remaining: number; code?: string }> {
  const res = await fetch(`${server.url}${PATH}`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body: JSON.stringify({ url: `https://example.com/burst/${i}` }),
  });
  const body = (await res.json()) as { code?: string };
  return { status: res.status, remaining: Number(res.headers.get("ratelimit-remaining")), code: body.code };
}

async function businessKey(server: TestServer, email: string): Promise<string> {
  const c = await signedInClient(server, email, "business");
  const r = await c.post("/api/keys", { name: "burst" });
  if (r.status !== 201) throw new Error(`key creation failed: ${r.status} ${r.text}`);
  return r.body.secret as string;
}

function tally(results: Array<{ status: number }>): Record<number, number> {
  const t: Record<number, number> = {};
  for (const r of results) t[r.status] = (t[r.status] ?? 0) + 1;
  return t;
}

describe.each(ENGINES)("external API rate limit on %s", (engine) => {
  const started: TestServer[] = [];
  afterEach(async () => {
    // Secondary instances first: the first one owns (and drops) the database.
    for (const s of started.reverse()) await s.close();
    started.length = 0;
  });

  it("150 simultaneous creations on one key: exactly 100 x 201 and 50 x 429", async () => {
    const server = await startTestServer({ engine });
    started.push(server);
    const secret = await businessKey(server, "burst@example.com");
    const results = await Promise.all(Array.from({ length: 150 }, (_, i) => create(server, secret, i)));
    expect(tally(results)).toEqual({ 201: 100, 429: 50 });
    expect(results.filter((r) => r.status === 429).every((r) => r.code === "rate_limited" && r.remaining === 0)).toBe(true);
    // Every remaining value 0..99 was handed out exactly once.
    expect(
      results
        .filter((r) => r.status === 201)
        .map((r) => r.remaining)
        .sort((a, b) => a - b),
    ).toEqual(Array.from({ length: 100 }, (_, i) => i));
    const rows = await server.ctx.storage.db
      .selectFrom("api_creations")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    expect(Number(rows.n)).toBe(100);
    const links = await server.ctx.storage.db
      .selectFrom("links")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    expect(Number(links.n)).toBe(100);
  });

  it.runIf(engine === "postgres")("150 simultaneous creations split across two instances sharing the database: exactly 100 x 201", async () => {
    const first = await startTestServer({ engine });
    started.push(first);
    const second = await startTestServer({ databaseUrl: first.databaseUrl });
    started.push(second);
    const secret = await businessKey(first, "split@example.com");
    const results = await Promise.all(Array.from({ length: 150 }, (_, i) => create(i % 2 === 0 ? first : second, secret, i)));
    expect(tally(results)).toEqual({ 201: 100, 429: 50 });
    const perInstance = [0, 1].map((m) => results.filter((r, i) => i % 2 === m && r.status === 201).length);
    expect(perInstance.every((k) => k > 0)).toBe(true);
  });

  it("after a restart the 101st creation is still refused within the hour, and allowed once the hour has passed", async () => {
    const clock = new ManualClock();
    const first = await startTestServer({ engine, clock });
    started.push(first);
    const secret = await businessKey(first, "restart@example.com");
    for (let i = 0; i < 100; i++) {
      const r = await create(first, secret, i);
      expect(r.status).toBe(201);
      clock.advance(1000); // the creations spread over 100 s
    }
    await first.stop();

    clock.advance(60_000);
    const again = await startTestServer({ engine, clock, dataDir: first.dataDir, databaseUrl: first.databaseUrl });
    started.push(again);
    const refused = await create(again, secret, 100);
    expect(refused).toMatchObject({ status: 429, code: "rate_limited", remaining: 0 });

    // The window slides: one hour after the first creation exactly one slot is free, not all 100.
    clock.advance(3_600_000 - 160_000 + 1);
    expect((await create(again, secret, 101)).status).toBe(201);
    expect((await create(again, secret, 102)).status).toBe(429);

    clock.advance(3_600_000);
    const later = await create(again, secret, 103);
    expect(later.status).toBe(201);
    expect(later.remaining).toBe(99);
  });
});
