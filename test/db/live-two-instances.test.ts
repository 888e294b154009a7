// The live feed across two instances on one PostgreSQL database: a click served by one instance reaches a
// stream open on the other within a second (LISTEN/NOTIFY), both ways, including for an instance started
// after the stream opened (it asks who watches what); another owner's clicks never travel to it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { testAccount, type TestAccount } from "../helpers/team.js";
import { createLink } from "../helpers/links.js";
import { openSse, type SseStream } from "../helpers/sse.js";
import { UA, visit } from "../helpers/visit.js";
import { waitFor } from "../helpers/wait.js";

const SHARED = { SESSION_SECRET: "live-two-instances-secret-".padEnd(48, "x") };
const LIVE = "/api/analytics/live";

describe.skipIf(!process.env.TEST_DATABASE_URL)("live feed across two instances on one PostgreSQL database", () => {
  let a: TestServer;
  let b: TestServer | undefined;
  let owner: TestAccount;
  const streams: SseStream[] = [];

  beforeAll(async () => {
    a = await startTestServer({ engine: "postgres", env: SHARED });
    owner = await testAccount(a, "live-two@example.com", "business");
  });
  afterAll(async () => {
    for (const s of streams) s.close();
    await b?.close();
    await a?.close();
  });

  it("a click on B, started after the stream opened on A, appears on A within a second; and back", async () => {
    const link = await createLink(owner.client, { url: "https://example.com/two", alias: "live-two" });
    const other = await testAccount(a, "live-two-other@example.com", "business");
    await createLink(other.client, { url: "https://example.com/two-other", alias: "live-two-other" });
    const onA = await openSse(a.url, LIVE, owner.client.cookie);
    streams.push(onA);
    await waitFor(() => onA.raw().includes("retry:"));
    b = await startTestServer({ databaseUrl: a.databaseUrl, env: SHARED });
    // B learns at its start that A watches this owner: its first click travels.
    await waitFor(() => b!.ctx.live.watches(owner.id), { timeoutMs: 1_000, what: "B to know that A watches the owner" });
    expect(b.ctx.live.watches(other.id)).toBe(false);
    expect(await visit(b.url, "/live-two-other", { "user-agent": UA.windows })).toBe(302);
    const started = Date.now();
    expect(await visit(b.url, "/live-two?qr=1", { "user-agent": UA.android, referer: "https://b.example/x" })).toBe(302);
    const [click] = await onA.next("click", 1, 1_000);
    expect(click!.at - started).toBeLessThan(1_000);
    expect(click!.data).toEqual({
      at: click!.data.at,
      link_id: link.id,
      alias: "live-two",
      domain: new URL(b.url).host,
      country: "",
      device: "mobile",
      browser: "Chrome",
      os: "Android",
      referrer: "b.example",
      source: "qr",
      destination: "default",
      bot: false,
    });

    const onB = await openSse(b.url, LIVE, owner.client.cookie);
    streams.push(onB);
    await waitFor(() => onB.raw().includes("retry:"));
    await waitFor(() => a.ctx.live.watches(owner.id), { timeoutMs: 1_000 });
    const n = onB.events.length;
    const again = Date.now();
    expect(await visit(a.url, "/live-two", { "user-agent": UA.iphone })).toBe(302);
    await waitFor(() => onB.events.slice(n).find((e) => e.event === "click" && e.data.device === "mobile" && e.data.os === "iOS"), {
      timeoutMs: 1_000,
      what: "A's click on B",
    });
    expect(Date.now() - again).toBeLessThan(1_000);
    // One more click on B: A's stream gets it after A's own click and after anything sent before it, so
    // once it is in, A's stream is complete (instead of watching a quiet window).
    expect(await visit(b.url, "/live-two", { "user-agent": UA.windows })).toBe(302);
    const onAClicks = () => onA.events.filter((e) => e.event === "click");
    await waitFor(() => onAClicks().length >= 3, { what: "the third click on A's stream" });
    expect(onAClicks().map((e) => e.data.alias)).toEqual(["live-two", "live-two", "live-two"]);
    expect(onA.raw()).not.toContain("live-two-other");
  });
});
