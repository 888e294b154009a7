// A plan change, suspension or deletion stops webhook deliveries at once on every instance: two instances
// on one PostgreSQL database, the change made on A (operator console, the account itself, or the CLI), a
// click served by B right after delivers nothing to a real HTTPS receiver. And on SQLite, the CLI (another
// process, which no in-process notification reaches) stops them too.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ApiClient, signedInClient } from "../helpers/client.js";
import { operator } from "../helpers/operator.js";
import { snipAsync } from "../helpers/cli.js";
import { UA, visit } from "../helpers/visit.js";
import { within } from "../helpers/wait.js";
import { type Receiver, type TestCa, makeTestCa, startReceiver } from "../helpers/webhook-receivers.js";

const SHARED = { SESSION_SECRET: "webhook-owner-changes-".padEnd(48, "x"), WEBHOOK_ALLOW_PRIVATE: "true" };

let ca: TestCa;
let rx: Receiver;
beforeAll(async () => {
  ca = makeTestCa();
  rx = await startReceiver(ca);
});
afterAll(async () => rx?.close());

const arrivedAt = (path: string) => rx.requests.filter((r) => r.url === path).length;

interface Owner {
  client: ApiClient;
  email: string;
  id: string;
  alias: string;
  path: string;
}

let n = 0;

/** A Business account with one webhook and one link; a click on `clicks` is delivered (proves the setup), and caches the link there. */
async function ownerWithWebhook(home: TestServer, clicks: TestServer): Promise<Owner> {
  const email = `hooked${++n}@example.com`;
  const client = await signedInClient(home, email, "business");
  const path = `/owner-${n}`;
  const hook = await client.post("/api/webhooks", { name: "H", url: rx.url(path) });
  expect(hook.status, hook.text).toBe(201);
  const alias = `hooked-${n}`;
  expect((await client.post("/api/links", { url: "https://example.com/hooked", alias })).status).toBe(201);
  const id = (await home.ctx.accounts.requireByEmail(email)).id;
  await within(5_000, async () => clicks.ctx.clickDeliveries.owners.has(id), Boolean);
  expect(await visit(clicks.url, `/${alias}`, { "user-agent": UA.windows })).toBe(302);
  await rx.waitFor(rx.requests.length + 1);
  expect(arrivedAt(path)).toBe(1);
  return { client, email, id, alias, path };
}

/** Clicks the link on `server` right away and waits until that instance has nothing queued or in flight. */
async function clickDeliversNothing(server: TestServer, o: Owner, expectStatus: number[]): Promise<void> {
  const status = await visit(server.url, `/${o.alias}`, { "user-agent": UA.windows });
  expect(expectStatus).toContain(status);
  const drained = await within(
    5_000,
    async () => server.ctx.clickDeliveries.queueState().queued,
    (q) => q === 0,
  );
  expect(drained).toBe(0);
  expect(arrivedAt(o.path)).toBe(1);
}

describe.skipIf(!process.env.TEST_DATABASE_URL)("webhook deliveries after an owner change, two PostgreSQL instances", () => {
  let a: TestServer;
  let b: TestServer;
  let op: Awaited<ReturnType<typeof operator>>;
  const cliEnv = () => ({ DATABASE_URL: a.databaseUrl as string, DATA_DIR: a.dataDir, ...SHARED });

  beforeAll(async () => {
    a = await startTestServer({ engine: "postgres", env: SHARED, webhooks: { ca: ca.trust } });
    b = await startTestServer({ databaseUrl: a.databaseUrl, env: SHARED, webhooks: { ca: ca.trust } });
    op = await operator(a, "ops@example.com");
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  // The redirect answers: a suspended or downgraded owner's links still redirect (302); a deleted one's
  // answer 404, or 302 while B's cache has not had the link's own notification yet.
  const CASES: Array<[string, (o: Owner) => Promise<void>, number[]]> = [
    [
      "operator console: plan to Free",
      async (o) => void expect((await op.client.patch(`/api/admin/accounts/${o.id}`, { plan: "free" })).status).toBe(200),
      [302],
    ],
    [
      "operator console: suspension",
      async (o) => void expect((await op.client.patch(`/api/admin/accounts/${o.id}`, { status: "suspended" })).status).toBe(200),
      [302],
    ],
    [
      "operator console: deletion",
      async (o) => void expect((await op.client.request("DELETE", `/api/admin/accounts/${o.id}`, { confirm_email: o.email })).status).toBe(200),
      [302, 404],
    ],
    [
      "the account deletes itself",
      async (o) => void expect((await o.client.request("DELETE", "/api/account", { password: "correct horse 1" })).status).toBe(200),
      [302, 404],
    ],
    ["the account cancels its subscription", async (o) => void expect((await o.client.post("/api/subscription/cancel")).status).toBe(200), [302]],
    ["CLI: snip user plan", async (o) => void expect((await snipAsync(["user", "plan", o.email, "pro"], cliEnv())).code).toBe(0), [302]],
    ["CLI: snip user suspend", async (o) => void expect((await snipAsync(["user", "suspend", o.email], cliEnv())).code).toBe(0), [302]],
  ];

  it.each(CASES)("%s on A: a click on B right after delivers nothing, and B's directory forgets the owner", async (_name, change, statuses) => {
    const o = await ownerWithWebhook(a, b);
    await change(o);
    await clickDeliversNothing(b, o, statuses);
    // The notification reaches B too: the redirect path stops even queueing the owner's clicks.
    expect(
      await within(
        5_000,
        async () => b.ctx.clickDeliveries.owners.has(o.id),
        (has) => !has,
      ),
    ).toBe(false);
    // A's own directory followed before the change answered.
    expect(a.ctx.clickDeliveries.owners.has(o.id)).toBe(false);
  });
});

describe("webhook deliveries after the CLI changes an account on SQLite (another process)", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: SHARED, webhooks: { ca: ca.trust } });
  });
  afterAll(async () => server?.close());

  it.each([
    ["snip user suspend", (email: string) => ["user", "suspend", email]],
    ["snip user plan free", (email: string) => ["user", "plan", email, "free"]],
  ])("%s: the next click delivers nothing, though no notification reached the server", async (_name, args) => {
    const o = await ownerWithWebhook(server, server);
    const r = await snipAsync(args(o.email), { DATA_DIR: server.dataDir, ...SHARED });
    expect(r.code, r.stderr).toBe(0);
    // Still listed in memory (the minute's full reload has not run): the delivery is refused by the database check.
    expect(server.ctx.clickDeliveries.owners.has(o.id)).toBe(true);
    await clickDeliversNothing(server, o, [302]);
  });
});
