// The operators' report queue counts each page's reports per link in a fixed number of statements,
// whatever the number of reports or of deleted links on the page, on SQLite and PostgreSQL.
import type { KyselyPlugin } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/shared/clock.js";
import { ReportQueue } from "../../src/admin/report-queue.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { type ApiClient, signedInClient } from "../helpers/client.js";
import { createLink } from "../helpers/links.js";

describe.each(ENGINES)("report queue on %s", (engine) => {
  let server: TestServer;
  const clock = new ManualClock();
  let owner: ApiClient;
  let address = 0;

  beforeAll(async () => {
    server = await startTestServer({ engine, clock, env: { TRUST_PROXY: "127.0.0.1" } });
    owner = await signedInClient(server, "owner@example.com", "business");
  });
  afterAll(async () => server?.close());

  /** Files a report of `alias` from an address of its own. */
  const fileReport = async (alias: string) => {
    const res = await fetch(`${server.url}/report`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: server.url, "x-forwarded-for": `203.0.113.${++address}` },
      body: new URLSearchParams({ link: `${server.url}/${alias}`, reason: "spam" }).toString(),
    });
    expect(res.status).toBe(200);
    clock.advance(1000);
  };

  /** A queue on the server's database that counts the statements it runs. */
  const countingQueue = () => {
    const counter = { statements: 0 };
    const plugin: KyselyPlugin = {
      transformQuery: (args) => {
        counter.statements++;
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    const { ctx } = server;
    const queue = new ReportQueue({
      db: ctx.storage.db.withPlugin(plugin),
      clock,
      audit: ctx.audit,
      links: ctx.links,
      ownHost: "localhost",
      linksChanged: async () => {},
    });
    return { queue, counter };
  };

  it("counts reports per live link and per deleted link's short URL, in four statements per page", async () => {
    const live = await createLink(owner, { url: "https://example.com/live", alias: "q-live" });
    const goneA = await createLink(owner, { url: "https://example.com/a", alias: "q-gone-a" });
    const goneB = await createLink(owner, { url: "https://example.com/b", alias: "q-gone-b" });
    for (const alias of ["q-live", "q-gone-a", "q-gone-b", "q-gone-a", "q-live"]) await fileReport(alias);
    expect((await owner.delete(`/api/links/${goneA.id}`)).status).toBe(200);
    expect((await owner.delete(`/api/links/${goneB.id}`)).status).toBe(200);

    const { queue, counter } = countingQueue();
    const page = await queue.list({ limit: 50 });
    expect(page.reports.map((r) => [r.alias, r.link?.id ?? null, r.reports_for_link])).toEqual([
      ["q-live", live.id, 2],
      ["q-gone-a", null, 2],
      ["q-gone-b", null, 1],
      ["q-gone-a", null, 2],
      ["q-live", live.id, 2],
    ]);
    // The page, its links, the live links' counts, the deleted links' counts.
    expect(counter.statements).toBe(4);

    // Three more deleted links on the page: still four statements.
    for (const alias of ["q-gone-c", "q-gone-d", "q-gone-e"]) {
      const l = await createLink(owner, { url: `https://example.com/${alias}`, alias });
      await fileReport(alias);
      expect((await owner.delete(`/api/links/${l.id}`)).status).toBe(200);
    }
    counter.statements = 0;
    const bigger = await queue.list({ limit: 50 });
    expect(bigger.reports.map((r) => [r.alias, r.reports_for_link])).toEqual([
      ["q-gone-e", 1],
      ["q-gone-d", 1],
      ["q-gone-c", 1],
      ["q-live", 2],
      ["q-gone-a", 2],
      ["q-gone-b", 1],
      ["q-gone-a", 2],
      ["q-live", 2],
    ]);
    expect(counter.statements).toBe(4);
  });
});
