// Every per-account cap under 50 concurrent adds through the real HTTP server: exactly the cap is reached,
// every other answer is 403 limit_reached, never a 5xx; on SQLite, PostgreSQL, and two PostgreSQL instances.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINES } from "../helpers/engines.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ApiClient, signedInClient } from "../helpers/client.js";
import { planLimits } from "../../src/accounts/plans.js";
import { MAX_DOMAINS_PER_ACCOUNT } from "../../src/domains/domains.js";
import { MAX_WEBHOOKS } from "../../src/webhooks/webhooks.js";
import { MAX_LIVE_KEYS } from "../../src/accounts/api-keys.js";
import { MAX_COLLABORATORS } from "../../src/teams/deps.js";

const CONCURRENT = 50;

interface CapCase {
  name: string;
  plan: string;
  limit: number;
  /** Rows added through the services before the race (so the race starts this far below the limit). */
  prefill: number;
  fill: (server: TestServer, userId: string, i: number) => Promise<unknown>;
  request: (c: ApiClient, i: number, tag: string) => Promise<{ status: number; body: any }>;
  held: (server: TestServer, userId: string) => Promise<number>;
}

async function count(server: TestServer, table: "links" | "domains" | "webhooks", userId: string): Promise<number> {
  const r = await server.ctx.storage.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("owner_id", "=", userId)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

const CASES: CapCase[] = [
  {
    name: "links (Free plan)",
    plan: "free",
    limit: planLimits("free").maxLinks,
    prefill: planLimits("free").maxLinks - 10,
    fill: async (s, id, i) => s.ctx.links.create((await s.ctx.accounts.byId(id))!, { url: `https://example.com/fill/${i}` }),
    request: (c, i, tag) => c.post("/api/links", { url: `https://example.com/${tag}/${i}` }),
    held: (s, id) => count(s, "links", id),
  },
  {
    name: "custom domains",
    plan: "business",
    limit: MAX_DOMAINS_PER_ACCOUNT,
    prefill: MAX_DOMAINS_PER_ACCOUNT - 10,
    fill: async (s, id, i) => s.ctx.domains.add((await s.ctx.accounts.byId(id))!, `fill${i}-${id.slice(0, 8).toLowerCase()}.example`),
    request: (c, i, tag) => c.post("/api/domains", { hostname: `race${i}-${tag}.example` }),
    held: (s, id) => count(s, "domains", id),
  },
  {
    name: "webhooks",
    plan: "business",
    limit: MAX_WEBHOOKS,
    prefill: 0,
    fill: async () => undefined,
    request: (c, i) => c.post("/api/webhooks", { name: `hook ${i}`, url: `https://127.0.0.1:9/hook/${i}` }),
    held: (s, id) => count(s, "webhooks", id),
  },
  {
    name: "API keys",
    plan: "free",
    limit: MAX_LIVE_KEYS,
    prefill: MAX_LIVE_KEYS - 10,
    fill: async (s, id, i) => s.ctx.apiKeys.create((await s.ctx.accounts.byId(id))!, { name: `fill ${i}` }),
    request: (c, i) => c.post("/api/keys", { name: `race ${i}` }),
    held: async (s, id) =>
      Number(
        (
          await s.ctx.storage.db
            .selectFrom("api_keys")
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .where("user_id", "=", id)
            .where("revoked_at", "is", null)
            .executeTakeFirstOrThrow()
        ).n,
      ),
  },
  {
    name: "team collaborators (members and pending invitations)",
    plan: "business",
    limit: MAX_COLLABORATORS,
    prefill: 0,
    fill: async () => undefined,
    request: (c, i, tag) => c.post("/api/team/invitations", { email: `invitee${i}-${tag}@example.com` }),
    held: async (s, id) =>
      Number(
        (
          await s.ctx.storage.db
            .selectFrom("team_invitations")
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .where("owner_id", "=", id)
            .where("state", "=", "pending")
            .executeTakeFirstOrThrow()
        ).n,
      ),
  },
];

let accounts = 0;

/** Fires CONCURRENT adds at once, spread over the clients (one per instance), and checks the outcome exactly. */
async function race(servers: TestServer[], cap: CapCase, label: string): Promise<void> {
  const [first] = servers as [TestServer];
  const email = `cap${++accounts}-${label}@example.com`;
  const clients = [await signedInClient(first, email, cap.plan)];
  for (const other of servers.slice(1)) {
    const c = new ApiClient(other.url);
    expect((await c.login(email)).status).toBe(200);
    clients.push(c);
  }
  const user = await first.ctx.accounts.requireByEmail(email);
  for (let i = 0; i < cap.prefill; i++) await cap.fill(first, user.id, i);
  expect(await cap.held(first, user.id)).toBe(cap.prefill);

  const tag = `${label}${accounts}`;
  const answers = await Promise.all(Array.from({ length: CONCURRENT }, (_, i) => cap.request(clients[i % clients.length]!, i, tag)));
  const room = cap.limit - cap.prefill;
  const statuses = answers.map((a) => a.status);
  expect(statuses.filter((s) => s >= 500)).toEqual([]);
  expect(statuses.filter((s) => s === 201)).toHaveLength(room);
  const refused = answers.filter((a) => a.status !== 201);
  expect(refused.map((a) => `${a.status} ${a.body?.code}`)).toEqual(Array(CONCURRENT - room).fill("403 limit_reached"));
  expect(await cap.held(first, user.id)).toBe(cap.limit);
}

describe.each(ENGINES)("per-account caps under %i concurrent adds on %s".replace("%i", String(CONCURRENT)), (engine) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ engine, env: { WEBHOOK_ALLOW_PRIVATE: "true" } });
  });
  afterAll(async () => server?.close());

  it.each(CASES.map((c) => [c.name, c] as const))("%s: exactly the cap, the rest 403 limit_reached", async (_name, cap) => {
    await race([server], cap, engine);
  });
});

describe.runIf(ENGINES.includes("postgres"))("per-account caps under concurrent adds split across two PostgreSQL instances", () => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    a = await startTestServer({ engine: "postgres", env: { WEBHOOK_ALLOW_PRIVATE: "true" } });
    b = await startTestServer({ databaseUrl: a.databaseUrl, env: { WEBHOOK_ALLOW_PRIVATE: "true" } });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it.each(CASES.map((c) => [c.name, c] as const))("%s: exactly the cap across both instances", async (_name, cap) => {
    await race([a, b], cap, "two");
  });
});
