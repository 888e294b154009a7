// The plan's link count under concurrency: 20 simultaneous creations by an account 5 links below
// its limit give exactly 5 links, on one instance and split across two on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINES } from "../helpers/engines.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ApiClient, signedInClient } from "../helpers/client.js";
import { planLimits } from "../../src/accounts/plans.js";

const FREE_MAX = planLimits("free").maxLinks;

async function fillTo(server: TestServer, email: string, n: number): Promise<void> {
  const user = await server.ctx.accounts.requireByEmail(email);
  for (let i = 0; i < n; i++) await server.ctx.links.create(user, { url: `https://example.com/fill/${i}` });
}

async function race(clients: ApiClient[], n: number): Promise<number[]> {
  return Promise.all(
    Array.from({ length: n }, (_, i) => clients[i % clients.length]!.post("/api/links", { url: `https://example.com/race/${i}` }).then((r) => r.status)),
  );
}

async function owned(server: TestServer, email: string): Promise<number> {
  const user = await server.ctx.accounts.requireByEmail(email);
  const r = await server.ctx.storage.db
    .selectFrom("links")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("owner_id", "=", user.id)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

describe.each(ENGINES)("plan link limit under concurrency on %s", (engine) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ engine });
  });
  afterAll(async () => server?.close());

  it("the count the limit reads (link_counts) follows creations, deletions and bulk deletions; an account deleted with its links goes cleanly", async () => {
    const email = `count-${engine}@example.com`;
    const client = await signedInClient(server, email, "pro");
    const stored = async () => {
      const user = await server.ctx.accounts.requireByEmail(email);
      return Number((await server.ctx.storage.db.selectFrom("link_counts").select("links").where("owner_id", "=", user.id).executeTakeFirstOrThrow()).links);
    };
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await client.post("/api/links", { url: `https://example.com/count/${i}` })).body.link.id);
    expect(await stored()).toBe(6);
    expect((await client.delete(`/api/links/${ids[0]}`)).status).toBe(200);
    expect((await client.post("/api/links/bulk/delete", { ids: ids.slice(1, 4) })).status).toBe(200);
    expect(await stored()).toBe(2);
    expect(await stored()).toBe(await owned(server, email));
    const user = await server.ctx.accounts.requireByEmail(email);
    await server.ctx.storage.db.deleteFrom("users").where("id", "=", user.id).execute();
    expect((await server.ctx.storage.db.selectFrom("links").select("id").where("id", "in", ids).execute()).length).toBe(0);
    expect(await server.ctx.storage.db.selectFrom("link_counts").select("links").where("owner_id", "=", user.id).execute()).toEqual([]);
  });

  it("20 simultaneous creations 5 below the limit: exactly 5 x 201 and 15 x 403", async () => {
    const client = await signedInClient(server, `race-${engine}@example.com`, "free");
    await fillTo(server, `race-${engine}@example.com`, FREE_MAX - 5);
    const statuses = await race([client], 20);
    expect(statuses.filter((s) => s === 201)).toHaveLength(5);
    expect(statuses.filter((s) => s === 403)).toHaveLength(15);
    expect(await owned(server, `race-${engine}@example.com`)).toBe(FREE_MAX);
  });
});

describe.runIf(ENGINES.includes("postgres"))("plan link limit across two instances", () => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    a = await startTestServer({ engine: "postgres" });
    b = await startTestServer({ databaseUrl: a.databaseUrl });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it("20 creations split between the instances, 5 below the limit: exactly 5 created", async () => {
    const onA = await signedInClient(a, "race-two@example.com", "free");
    const onB = new ApiClient(b.url);
    expect((await onB.login("race-two@example.com")).status).toBe(200);
    await fillTo(a, "race-two@example.com", FREE_MAX - 5);
    const statuses = await race([onA, onB], 20);
    expect(statuses.filter((s) => s === 201)).toHaveLength(5);
    expect(await owned(a, "race-two@example.com")).toBe(FREE_MAX);
  });
});
