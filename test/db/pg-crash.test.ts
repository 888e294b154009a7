// PostgreSQL: `snip serve` killed (SIGKILL) under a long tail of clicks loses none that it stored, and
// the next starts add none twice (the roll-ups and counts are written with each batch, in its transaction).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../helpers/engines.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { spawnServe } from "../helpers/serve.js";
import { within } from "../helpers/wait.js";
import { UA, visit } from "../helpers/visit.js";
import { openStorage } from "../../src/storage/db.js";

const LINKS = 1_500;

describe.runIf(process.env.TEST_DATABASE_URL)("PostgreSQL: SIGKILL after a long tail of clicks", () => {
  let db: TestDatabase;
  const servers: TestServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
    await db?.drop();
  });

  // A `snip serve` start through tsx and three in-process starts: minutes on a machine busy with parallel work.
  it("every stored click is counted once after the crash", { timeout: 600_000 }, async () => {
    db = await createTestDatabase("postgres");
    const setup = await startTestServer({ databaseUrl: db.databaseUrl });
    await sql`INSERT INTO links (id, domain, alias, url, click_count, created_at, updated_at)
      SELECT 'crash_' || g, '', 'crash-' || g, 'https://example.com/', 0, 0, 0 FROM generate_series(1, ${LINKS}) g`.execute(setup.ctx.storage.db);
    await setup.close();

    // Awaited on its "listening" line: a start slowed by a busy machine is late, not failed.
    const serve = await spawnServe({
      DATA_DIR: mkdtempSync(join(tmpdir(), "snip-pgcrash-")),
      DATABASE_URL: db.databaseUrl as string,
      CLICK_ROLLUP_MS: "600000",
    });
    const base = serve.url;
    // Every link once, link 1 ten times (written with the batch), in 16 parallel streams.
    const paths = [...Array.from({ length: LINKS }, (_, i) => `/crash-${i + 1}`), ...Array.from({ length: 9 }, () => "/crash-1")];
    let next = 0;
    const statuses: number[] = [];
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < paths.length) {
          const path = paths[next++]!;
          const status = await visit(base, path, { "user-agent": UA.windows });
          statuses.push(status);
        }
      }),
    );
    expect(statuses.filter((s) => s !== 302)).toEqual([]);
    expect(statuses).toHaveLength(paths.length);
    const peek = await openStorage({ kind: "postgres", url: db.databaseUrl as string });
    const count = async (q: string) => Number((await sql<{ n: number }>`${sql.raw(q)}`.execute(peek.db)).rows[0]!.n);
    // Written within a flush interval or so; the bound is for a machine busy with parallel work.
    expect(
      await within(
        60_000,
        () => count("SELECT count(*) AS n FROM clicks"),
        (n) => n >= paths.length,
      ),
    ).toBe(paths.length);
    expect(await count("SELECT sum(click_count) AS n FROM links")).toBe(paths.length);
    serve.child.kill("SIGKILL");
    await serve.exited;
    await peek.close();

    // Two starts after the crash: every stored click counted once.
    for (let run = 0; run < 2; run++) {
      const next = await startTestServer({ databaseUrl: db.databaseUrl });
      servers.push(next);
      const n = async (q: string) => Number((await sql<{ n: number }>`${sql.raw(q)}`.execute(next.ctx.storage.db)).rows[0]!.n);
      expect(await n("SELECT count(*) AS n FROM clicks")).toBe(paths.length);
      expect(await n("SELECT sum(click_count) AS n FROM links")).toBe(paths.length);
      expect(await n("SELECT sum(clicks) AS n FROM click_daily")).toBe(paths.length);
      expect(await n("SELECT sum(clicks) AS n FROM click_breakdown WHERE dimension = 'browser'")).toBe(paths.length);
      expect(await n("SELECT click_count AS n FROM links WHERE id = 'crash_1'")).toBe(10);
      await next.stop();
    }
  });
});
