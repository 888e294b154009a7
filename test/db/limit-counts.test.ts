// Click-limit counts asked in one event-loop turn go to the writer together (src/clicks/limit-counts.ts):
// one transaction on SQLite, each count seeing the ones before it, so a limit holds exactly inside a turn;
// a failure refuses the whole turn's counts and counts none of them; the next turn starts afresh. On both
// engines, visits at once to a cached click-limited link get exactly its limit of 302s.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqliteClickWriter } from "../../src/clicks/sqlite-writer.js";
import { CountryResolver } from "../../src/clicks/describe.js";
import { countsPerTurn, type LimitCount } from "../../src/clicks/limit-counts.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";

describe("countsPerTurn", () => {
  it("sends a turn's counts together, in order, and answers each caller", async () => {
    const sent: string[][] = [];
    const one = countsPerTurn(async (counts) => {
      sent.push(counts.map((c) => c.linkId));
      return counts.map((c) => c.maxClicks > 1);
    });
    const first = await Promise.all([
      one({ linkId: "a", maxClicks: 5, at: 1 }),
      one({ linkId: "b", maxClicks: 1, at: 1 }),
      one({ linkId: "a", maxClicks: 5, at: 2 }),
    ]);
    expect(first).toEqual([true, false, true]);
    expect(await one({ linkId: "c", maxClicks: 2, at: 3 })).toBe(true);
    expect(sent).toEqual([["a", "b", "a"], ["c"]]);
  });

  it("a failed turn rejects each of its callers, and the next turn is sent again", async () => {
    let fail = true;
    const one = countsPerTurn(async (counts) => {
      if (fail) throw new Error("disk trouble");
      return counts.map(() => true);
    });
    const results = await Promise.allSettled([one({ linkId: "a", maxClicks: 5, at: 1 }), one({ linkId: "b", maxClicks: 5, at: 1 })]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    fail = false;
    expect(await one({ linkId: "a", maxClicks: 5, at: 2 })).toBe(true);
  });
});

describe.each(ENGINES)("click-limited visits on %s", (engine) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ engine, env: { CLICK_ROLLUP_MS: "600000" } });
  });
  afterAll(async () => server?.close());

  const clickCount = async (id: string) =>
    Number((await server.ctx.storage.db.selectFrom("links").select("click_count").where("id", "=", id).executeTakeFirstOrThrow()).click_count);

  it("visits at once: the limit answers exactly that many 302s, on the fast path once cached", async () => {
    const user = await server.ctx.accounts.create({ email: "limit-turn@example.com", password: "correct horse 1", plan: "pro", verified: true });
    const link = await server.ctx.links.create(user, { url: "https://example.com/ten", max_clicks: 10 });
    expect((await fetch(`${server.url}/${link.alias}`, { redirect: "manual" })).status).toBe(302);
    const codes = await Promise.all(Array.from({ length: 30 }, () => fetch(`${server.url}/${link.alias}`, { redirect: "manual" }).then((r) => r.status)));
    expect(codes.filter((c) => c === 302)).toHaveLength(9);
    expect(codes.filter((c) => c !== 302).every((c) => c === 403)).toBe(true);
    await server.ctx.clicks.flush();
    expect(await clickCount(link.id)).toBe(10);
  });

  it.runIf(engine === "sqlite")("SQLite: a turn's counts in one transaction hold each limit exactly, and a failure counts none of it", async () => {
    const user = await server.ctx.accounts.create({ email: "limit-counts@example.com", password: "correct horse 1", plan: "pro", verified: true });
    const three = await server.ctx.links.create(user, { url: "https://example.com/three", max_clicks: 3 });
    const two = await server.ctx.links.create(user, { url: "https://example.com/two", max_clicks: 2 });
    const handle = server.ctx.storage.sqlite!;
    const writer = new SqliteClickWriter(async (fn) => fn(), handle, new CountryResolver(null));
    const at = Date.UTC(2026, 10, 28, 12);
    const count = (id: string, max: number, i: number): LimitCount => ({ linkId: id, maxClicks: max, at: at + i });
    const stored = () => [three.id, two.id].map((id) => Number(handle.prepare("SELECT click_count FROM links WHERE id = ?").pluck().get(id)));

    const turn = [
      count(three.id, 3, 0),
      count(two.id, 2, 1),
      count(three.id, 3, 2),
      count(three.id, 3, 3),
      count(two.id, 2, 4),
      count(three.id, 3, 5),
      count(two.id, 2, 6),
    ];
    expect(await writer.countLimited(turn)).toEqual([true, true, true, true, true, false, false]);
    expect(stored()).toEqual([3, 2]);
    expect(Number(handle.prepare("SELECT last_click_at FROM links WHERE id = ?").pluck().get(three.id))).toBe(at + 3);

    // One of a turn's counts fails: the transaction rolls back, nothing of the turn is counted.
    const other = await server.ctx.links.create(user, { url: "https://example.com/other", max_clicks: 10 });
    handle.exec(
      `CREATE TEMP TRIGGER fail_count BEFORE UPDATE OF click_count ON links WHEN NEW.id = '${two.id}' BEGIN SELECT RAISE(ABORT, 'disk trouble'); END`,
    );
    await expect(writer.countLimited([count(other.id, 10, 7), count(two.id, 5, 8)])).rejects.toThrow("disk trouble");
    handle.exec("DROP TRIGGER fail_count");
    expect(Number(handle.prepare("SELECT click_count FROM links WHERE id = ?").pluck().get(other.id))).toBe(0);
  });
});
