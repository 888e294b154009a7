// A page of an import is written in one transaction with its report and cursor (src/imports/import-page.ts),
// on every engine: refused lines among good ones keep their own fate (code and line number as one at a
// time), the plan's allowance goes to the first good lines in order, a taken alias that is retried with a
// generated one still takes its place in that order, and an API creation racing the page keeps the cap exact.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { signedInClient } from "../helpers/client.js";
import { importFile, report } from "../helpers/imports.js";

describe.each(ENGINES)("a page with refused lines among good ones on %s", (engine) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ engine });
  });
  afterAll(async () => {
    await server?.close();
  });

  async function ownerId(email: string): Promise<string> {
    return (await server.ctx.storage.db.selectFrom("users").select("id").where("email", "=", email).executeTakeFirstOrThrow()).id;
  }

  it("creates exactly the good lines; each refused one is reported with its line number and code", async () => {
    const other = await signedInClient(server, "page-other@example.com", "pro");
    expect((await other.post("/api/links", { url: "https://example.com/theirs", alias: "page-taken" })).status).toBe(201);
    const c = await signedInClient(server, "page-owner@example.com", "free");
    // The free plan's 100 links, 96 used: four of the good lines below find room, the fifth does not.
    await server.ctx.storage.db
      .updateTable("link_counts")
      .set({ links: 96 })
      .where("owner_id", "=", await ownerId("page-owner@example.com"))
      .execute();
    server.ctx.blocklist.setConsoleHosts(["blocked.example"]);
    const csv = [
      "url,alias",
      "https://example.com/1,page-one", // line 2: created
      "not-a-url,page-bad", // 3: invalid_request
      "https://blocked.example/x,page-blocked", // 4: destination_blocked
      "https://example.com/4,page-taken", // 5: alias_taken, skipped
      "https://example.com/5,page-five", // 6: created
      "https://example.com/6,ab", // 7: an alias too short: invalid_request
      "https://example.com/7,page-seven", // 8: created
      "https://example.com/8,page-eight", // 9: created (the 100th link)
      "https://example.com/9,page-nine", // 10: limit_reached
      "https://blocked.example/y,page-blocked-2", // 11: destination_blocked (refused before the count)
    ].join("\n");
    let job;
    try {
      job = await importFile(c, `${csv}\n`);
    } finally {
      server.ctx.blocklist.setConsoleHosts([]);
    }
    expect(job.state).toBe("done");
    expect(job.counts).toEqual({ read: 10, created: 4, skipped: 1, failed: 5, visits: 0 });
    const lines = await report(c, job.id);
    // The report's lines in the file's order; the source id names the file's line (the header is line 1).
    expect(lines.map((l) => [l.line, l.source_id, l.status, l.code])).toEqual([
      ["1", "line:2", "created", ""],
      ["2", "line:3", "failed", "invalid_request"],
      ["3", "line:4", "failed", "destination_blocked"],
      ["4", "line:5", "skipped", "alias_taken"],
      ["5", "line:6", "created", ""],
      ["6", "line:7", "failed", "invalid_request"],
      ["7", "line:8", "created", ""],
      ["8", "line:9", "created", ""],
      ["9", "line:10", "failed", "limit_reached"],
      ["10", "line:11", "failed", "destination_blocked"],
    ]);
    const mine = await server.ctx.storage.db
      .selectFrom("links")
      .select("alias")
      .where("owner_id", "=", await ownerId("page-owner@example.com"))
      .orderBy("alias")
      .execute();
    expect(mine.map((l) => l.alias)).toEqual(["page-eight", "page-five", "page-one", "page-seven"]);
    const counted = await server.ctx.storage.db
      .selectFrom("link_counts")
      .select("links")
      .where("owner_id", "=", await ownerId("page-owner@example.com"))
      .executeTakeFirstOrThrow();
    expect(Number(counted.links)).toBe(100);
    // The other account's link is untouched.
    expect((await other.get("/api/links?q=page-taken")).body.links.map((l: { url: string }) => l.url)).toEqual(["https://example.com/theirs"]);
  });

  it("a taken alias given a generated one keeps its place in the plan's order: the line after it is the one refused", async () => {
    const other = await signedInClient(server, "order-other@example.com", "pro");
    expect((await other.post("/api/links", { url: "https://example.com/theirs", alias: "order-taken" })).status).toBe(201);
    const c = await signedInClient(server, "order-owner@example.com", "free");
    await server.ctx.storage.db
      .updateTable("link_counts")
      .set({ links: 98 })
      .where("owner_id", "=", await ownerId("order-owner@example.com"))
      .execute();
    const job = await importFile(c, "url,alias\nhttps://example.com/a,order-taken\nhttps://example.com/b,order-b\nhttps://example.com/c,order-c\n", "generate");
    expect(job.counts).toEqual({ read: 3, created: 2, skipped: 0, failed: 1, visits: 0 });
    const lines = await report(c, job.id);
    expect(lines.map((l) => [l.line, l.source_id, l.status, l.code])).toEqual([
      ["1", "line:2", "created", ""],
      ["2", "line:3", "created", ""],
      ["3", "line:4", "failed", "limit_reached"],
    ]);
    expect(lines[0]!.notes).toMatch(/^alias "order-taken" taken: given "[A-Za-z0-9]+"$/);
    expect(lines[1]!.alias).toBe("order-b");
  });

  it("API creations racing a page: the plan's cap holds exactly (the page and the API share the owner's lock)", async () => {
    const c = await signedInClient(server, "race-owner@example.com", "free");
    const id = await ownerId("race-owner@example.com");
    await server.ctx.storage.db.updateTable("link_counts").set({ links: 60 }).where("owner_id", "=", id).execute();
    const csv = ["url", ...Array.from({ length: 30 }, (_, i) => `https://example.com/file-${i}`)].join("\n");
    const started = await c.post("/api/imports", { source: "csv", file: `${csv}\n`, on_taken: "skip" });
    expect(started.status).toBe(201);
    const api = await Promise.all(Array.from({ length: 30 }, (_, i) => c.post("/api/links", { url: `https://example.com/api-${i}` })));
    const { finished } = await import("../helpers/imports.js");
    const job = await finished(c, started.body.import.id);
    const apiMade = api.filter((r) => r.status === 201).length;
    expect(
      api.every((r) => r.status === 201 || (r.status === 403 && r.body.code === "limit_reached")),
      JSON.stringify(api.map((r) => r.status)),
    ).toBe(true);
    // 40 places for 60 asked: every place taken, none twice.
    expect(apiMade + job.counts.created).toBe(40);
    expect(job.counts.failed).toBe(30 - job.counts.created);
    const stored = await server.ctx.storage.db
      .selectFrom("links")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("owner_id", "=", id)
      .executeTakeFirstOrThrow();
    expect(Number(stored.n)).toBe(40);
    const counted = await server.ctx.storage.db.selectFrom("link_counts").select("links").where("owner_id", "=", id).executeTakeFirstOrThrow();
    expect(Number(counted.links)).toBe(100);
  });
});
