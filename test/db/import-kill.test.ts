// PostgreSQL: `snip serve` killed (SIGKILL) in the middle of an import page's transaction. A page's lines,
// its report and the job's cursor commit together (src/imports/import-page.ts): after the kill the
// database holds whole pages only (links = the job's created count = its re-run records), and the next
// start, once the dead instance's lease is over, finishes the job without creating any line twice.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../helpers/engines.js";
import { startTestServer } from "../helpers/server.js";
import { spawnServe } from "../helpers/serve.js";
import { ApiClient, signedInClient } from "../helpers/client.js";
import { type RunningFakeSource, startFakeSource } from "../helpers/fake-sources.js";
import { waitFor } from "../helpers/wait.js";
import { openStorage } from "../../src/storage/db.js";

const LINKS = 1_500;
const EMAIL = "kill@example.com";
const ENV = { IMPORT_ALLOW_PRIVATE: "true", SESSION_SECRET: "import-kill-secret-0123456789abcdef0123" };

describe.runIf(process.env.TEST_DATABASE_URL)("PostgreSQL: an import killed in the middle of a page", () => {
  let db: TestDatabase;
  let src: RunningFakeSource;
  afterAll(async () => {
    await src?.close();
    await db?.drop();
  });

  // Two `snip serve` starts through tsx: minutes on a machine busy with parallel work.
  it("holds whole pages only after the kill; the resumed job creates every line exactly once", { timeout: 600_000 }, async () => {
    db = await createTestDatabase("postgres");
    src = await startFakeSource("shlink", { links: LINKS, visitsPerLink: () => 0 });
    const dataDir = mkdtempSync(join(tmpdir(), "snip-import-kill-"));
    const setup = await startTestServer({ dataDir, databaseUrl: db.databaseUrl, env: ENV });
    await signedInClient(setup, EMAIL, "business");
    await setup.close();

    const peek = await openStorage({ kind: "postgres", url: db.databaseUrl as string });
    const one = async (q: string) => Number((await sql<{ n: number }>`${sql.raw(q)}`.execute(peek.db)).rows[0]!.n);
    try {
      const first = await spawnServe({ DATA_DIR: dataDir, DATABASE_URL: db.databaseUrl as string, ...ENV });
      const c = new ApiClient(first.url);
      expect((await c.login(EMAIL)).status).toBe(200);
      const r = await c.post("/api/imports", { source: "shlink", base_url: src.baseUrl, token: src.token, on_taken: "generate" });
      expect(r.status, r.text).toBe(201);
      const id = r.body.import.id as string;
      // Killed while one of its connections is inside a page's transaction, after that page inserted links
      // (and after at least one page was committed, so the kill does not land before the first).
      await waitFor(
        async () =>
          (await one(`SELECT count(*) AS n FROM import_jobs WHERE id = '${id}' AND read_count > 0`)) > 0 &&
          (await one(
            `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND xact_start IS NOT NULL AND state IN ('active', 'idle in transaction') AND query ~* '^(insert into "(links|imported_links|import_items)"|select "domain", "alias", "owner_id" from "alias_reservations"|update "import_jobs" set "cursor")'`,
          )) > 0,
        { timeoutMs: 120_000, what: "a page's transaction with links inserted" },
      );
      first.child.kill("SIGKILL");
      await first.exited;
      // The dead instance's transactions rolled back (its backends read the closed socket).
      await waitFor(
        async () =>
          (await one(
            "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND xact_start IS NOT NULL",
          )) === 0
            ? true
            : null,
        {
          timeoutMs: 30_000,
          what: "the killed server's connections to close",
        },
      );
      const job = await peek.db.selectFrom("import_jobs").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
      expect(job.state).toBe("running");
      const links = await one("SELECT count(*) AS n FROM links");
      expect(links).toBeGreaterThan(0);
      expect(links).toBeLessThan(LINKS);
      // Whole pages: every committed link is counted by the job, recorded for re-runs and reported.
      expect(Number(job.created_count)).toBe(links);
      expect(Number(job.read_count)).toBe(links);
      expect(await one("SELECT count(*) AS n FROM imported_links")).toBe(links);
      expect(await one(`SELECT count(*) AS n FROM import_items WHERE job_id = '${id}'`)).toBe(links);
      expect(Number(job.lines)).toBe(links);

      // The lease of the dead instance over (it would be after a minute), the next start claims the job.
      await peek.db.updateTable("import_jobs").set({ lease_until: 0 }).where("id", "=", id).execute();
      const second = await spawnServe({ DATA_DIR: dataDir, DATABASE_URL: db.databaseUrl as string, ...ENV });
      try {
        const d = new ApiClient(second.url);
        expect((await d.login(EMAIL)).status).toBe(200);
        const done = await waitFor(
          async () => {
            const j = (await d.get(`/api/imports/${id}`)).body.import;
            return ["done", "failed", "cancelled"].includes(j.state) ? j : null;
          },
          { timeoutMs: 300_000, what: "the resumed import to end" },
        );
        expect(done).toMatchObject({ state: "done", counts: { read: LINKS, created: LINKS, skipped: 0, failed: 0 } });
      } finally {
        second.child.kill("SIGTERM");
        await second.exited;
      }
      expect(await one("SELECT count(*) AS n FROM links")).toBe(LINKS);
      expect(await one("SELECT count(DISTINCT url) AS n FROM links")).toBe(LINKS);
      expect(await one("SELECT count(*) AS n FROM imported_links")).toBe(LINKS);
      expect(await one("SELECT count(DISTINCT source_id) AS n FROM imported_links")).toBe(LINKS);
      expect(await one(`SELECT count(*) AS n FROM import_items WHERE job_id = '${id}'`)).toBe(LINKS);
      expect(await one("SELECT links AS n FROM link_counts")).toBe(LINKS);
    } finally {
      await peek.close();
    }
  });
});
