// Custom domains with two instances on one database: a re-check is done by one instance only (the claim
// on next_check_at), on SQLite and PostgreSQL; and on PostgreSQL, a domain deleted or sent back to
// pending on A answers 404 on B within a second, though B had its links cached (LISTEN/NOTIFY).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { type ApiClient, signedInClient } from "../helpers/client.js";
import { ENGINES } from "../helpers/engines.js";
import { TestDns } from "../helpers/dns.js";
import { hit } from "../helpers/host.js";
import { within } from "../helpers/wait.js";

const TARGET = "cname.snip.example";
const SHARED = { SESSION_SECRET: "domains-two-instances-".padEnd(48, "x"), CNAME_TARGET: TARGET };

describe.each(ENGINES)("custom domains, two instances on one %s database", (engine) => {
  let dns: TestDns;
  let a: TestServer;
  let b: TestServer;
  let owner: ApiClient;

  beforeAll(async () => {
    dns = await TestDns.start();
    const env = { ...SHARED, DNS_SERVERS: dns.address };
    a = await startTestServer({ engine, env });
    // SQLite: the same file (the same data dir); PostgreSQL: the same database.
    b = engine === "sqlite" ? await startTestServer({ dataDir: a.dataDir, env }) : await startTestServer({ databaseUrl: a.databaseUrl, env });
    owner = await signedInClient(a, "two-domains@example.com", "business");
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await dns?.close();
  });

  const verified = async (hostname: string) => {
    const d = (await owner.post("/api/domains", { hostname })).body.domain;
    dns.serve(d);
    const r = await owner.post(`/api/domains/${d.id}/verify`);
    expect(r.body.domain.status, r.text).toBe("verified");
    return d;
  };

  it("each due re-check runs on one instance only, though both run their jobs at once", async () => {
    const names = ["claim-1.example", "claim-2.example", "claim-3.example", "claim-4.example", "claim-5.example", "claim-6.example"];
    const domains = [];
    for (const n of names) domains.push(await verified(n));
    const before = new Map(domains.map((d) => [d.hostname, dns.queriesFor(d.records[1].name, "TXT")]));
    await a.ctx.storage.db
      .updateTable("domains")
      .set({ next_check_at: Date.now() - 1 })
      .where("hostname", "in", names)
      .execute();
    const [ranA, ranB] = await Promise.all([a.ctx.domains.recheckDue(), b.ctx.domains.recheckDue()]);
    expect(ranA + ranB).toBe(names.length);
    for (const d of domains) expect(dns.queriesFor(d.records[1].name, "TXT") - (before.get(d.hostname) ?? 0), d.hostname).toBe(1);
    // Done: nothing is due on either.
    expect(await Promise.all([a.ctx.domains.recheckDue(), b.ctx.domains.recheckDue()])).toEqual([0, 0]);
  });

  it.skipIf(engine !== "postgres")("a domain deleted on A answers 404 on B within a second", async () => {
    const d = await verified("two-delete.example");
    await owner.post("/api/links", { url: "https://example.com/two", alias: "two-d", domain: d.hostname });
    for (let i = 0; i < 2; i++) expect((await hit(b.url, "/two-d", d.hostname)).status).toBe(302);
    expect(b.ctx.redirects.cache.peek(d.hostname, "two-d")).toBeTruthy();
    const started = Date.now();
    expect((await owner.delete(`/api/domains/${d.id}`)).status).toBe(200);
    const seen = await within(
      1000,
      () => hit(b.url, "/two-d", d.hostname),
      (r) => r.status === 404,
    );
    expect(seen.status).toBe(404);
    expect(Date.now() - started).toBeLessThan(1200);
  });

  it.skipIf(engine !== "postgres")("a domain sent back to pending by A's re-check answers 404 on B within a second", async () => {
    const d = await verified("two-lost.example");
    await owner.post("/api/links", { url: "https://example.com/lost", alias: "two-l", domain: d.hostname });
    for (let i = 0; i < 2; i++) expect((await hit(b.url, "/two-l", d.hostname)).status).toBe(302);
    dns.txt(d.records[1].name, null);
    await a.ctx.storage.db
      .updateTable("domains")
      .set({ next_check_at: Date.now() - 1 })
      .where("id", "=", d.id)
      .execute();
    const started = Date.now();
    expect(await a.ctx.domains.recheckDue()).toBe(1);
    const seen = await within(
      1000,
      () => hit(b.url, "/two-l", d.hostname),
      (r) => r.status === 404,
    );
    expect(seen.status).toBe(404);
    expect(Date.now() - started).toBeLessThan(1200);
  });

  it.skipIf(engine !== "postgres")("a domain added on A stops being the main host on B within a second (404 while pending)", async () => {
    await owner.post("/api/links", { url: "https://example.com/main-two", alias: "two-main" });
    for (let i = 0; i < 2; i++) expect((await hit(b.url, "/two-main", "two-added.example")).status).toBe(302);
    const started = Date.now();
    expect((await owner.post("/api/domains", { hostname: "two-added.example" })).status).toBe(201);
    const seen = await within(
      1000,
      () => hit(b.url, "/two-main", "two-added.example"),
      (r) => r.status === 404,
    );
    expect(seen.status).toBe(404);
    expect(Date.now() - started).toBeLessThan(1200);
  });
});
