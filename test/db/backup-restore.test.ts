// `snip backup` while a real `snip serve` answers redirects, `snip restore` into a fresh data directory,
// and the checks around them: every link and every stored click in the copy, a running service or a
// newer schema refused, PostgreSQL pointed at pg_dump; `snip migrate --dry-run` and the newer-schema guard.
import { mkdtempSync, rmSync, writeFileSync, existsSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { spawnServe } from "../helpers/serve.js";
import { snip, snipAsync } from "../helpers/cli.js";
import { ApiClient } from "../helpers/client.js";
import { loops } from "../helpers/load.js";
import { waitFor } from "../helpers/wait.js";
import { knownMigrations } from "../../src/storage/migrate.js";

const SECRET = "backup-test-secret-0123456789abcdef";
const LINKS = 40;

function rows(file: string, query: string): number {
  const db = new SQLite(file, { readonly: true });
  try {
    return Number((db.prepare(query).get() as { n: number }).n);
  } finally {
    db.close();
  }
}

describe("backup and restore (SQLite)", { timeout: 300_000 }, () => {
  const dirs: string[] = [];
  const tmp = (prefix: string) => {
    const d = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(d);
    return d;
  };
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it("a backup under redirect load holds every link and every click stored before it began; restored into a fresh data dir, it serves them", async () => {
    const dataDir = tmp("snip-backup-");
    const env = { DATA_DIR: dataDir, SESSION_SECRET: SECRET };
    expect(snip(["user", "create", "--email", "b@example.com", "--password", "correct horse 1", "--plan", "pro", "--verified"], env).code).toBe(0);
    const s = await spawnServe({ ...env, CLICK_FLUSH_MS: "50", CLICK_ROLLUP_MS: "200" });
    const out = tmp("snip-backup-out-");
    try {
      const c = new ApiClient(s.url);
      expect((await c.login("b@example.com")).status).toBe(200);
      for (let i = 0; i < LINKS; i++) expect((await c.post("/api/links", { url: `https://example.com/${i}`, alias: `bk-${i}` })).status).toBe(201);
      // Clicks before the backup, all stored (the link's count reads the database).
      for (let i = 0; i < LINKS; i++) expect((await fetch(`${s.url}/bk-${i}`, { redirect: "manual" })).status).toBe(302);
      // Until they are in the database file (written by the service's click writer), not only in its journal.
      await waitFor(() => rows(join(dataDir, "snip.db"), "select (select count(*) from clicks) + (select count(*) from click_staging) as n") >= LINKS, {
        what: "the clicks written to the file",
      });

      // Redirects keep coming while the backup runs.
      let served = 0;
      const load = loops(4, async (loop, i) => {
        const r = await fetch(`${s.url}/bk-${(loop * 7 + i) % LINKS}`, { redirect: "manual" });
        if (r.status === 302) served++;
      });
      const backup = await snipAsync(["backup", join(out, "snip-backup.db")], env);
      await load.stop();
      expect(backup.stderr).toBe("");
      expect(backup.code).toBe(0);
      expect(backup.stdout).toMatch(
        new RegExp(
          `^${join(out, "snip-backup.db").replace(/[.]/g, "\\.")}: ${LINKS} links, \\d+ clicks, [\\d.]+ MB, schema ${knownMigrations("sqlite").at(-1)}\\n$`,
        ),
      );
      expect(served).toBeGreaterThan(0);
      const file = join(out, "snip-backup.db");
      expect(readdirSync(out)).toEqual(["snip-backup.db"]); // one self-contained file, no -wal or -shm beside it
      expect(rows(file, "select count(*) as n from links")).toBe(LINKS);
      expect(rows(file, "select (select count(*) from clicks) + (select count(*) from click_staging) as n")).toBeGreaterThanOrEqual(LINKS);

      // A second backup to the same name is refused; restoring over the running service too.
      const twice = snip(["backup", file], env);
      expect([twice.code, twice.stderr]).toEqual([1, `snip: ${file} already exists: name a new file\n`]);
      const busy = snip(["restore", file], env);
      expect(busy.code).toBe(1);
      expect(busy.stderr).toBe(`snip: the service is running on ${join(dataDir, "snip.db")}: stop every snip process using it, then restore\n`);
    } finally {
      s.child.kill("SIGTERM");
      await s.exited;
    }

    // Restored into a fresh data directory, a new server serves every link with its clicks.
    const fresh = tmp("snip-restored-");
    const freshEnv = { DATA_DIR: fresh, SESSION_SECRET: SECRET };
    const restored = snip(["restore", join(out, "snip-backup.db")], freshEnv);
    expect(restored.stderr).toBe("");
    expect(restored.stdout).toMatch(/^restored .*snip\.db: 40 links, \d+ clicks/);
    const t = await spawnServe(freshEnv);
    try {
      const c = new ApiClient(t.url);
      expect((await c.login("b@example.com")).status).toBe(200);
      const page = await c.get("/api/links?limit=100");
      expect(page.body.links).toHaveLength(LINKS);
      expect(page.body.links.every((l: { click_count: number }) => l.click_count >= 1)).toBe(true);
      for (let i = 0; i < LINKS; i += 13)
        expect((await fetch(`${t.url}/bk-${i}`, { redirect: "manual" })).headers.get("location")).toBe(`https://example.com/${i}`);
    } finally {
      t.child.kill("SIGTERM");
      await t.exited;
    }

    // Restoring again over the (stopped) restored database keeps the one it replaces beside it.
    const second = snip(["restore", join(out, "snip-backup.db")], freshEnv);
    expect(second.code).toBe(0);
    const kept = /the database it replaced: (.*)\n/.exec(second.stdout)?.[1];
    expect(kept && existsSync(kept)).toBe(true);
  });

  it("refuses what it cannot restore: a missing file, a file that is no snip database, a backup of a newer snip", () => {
    const dir = tmp("snip-restore-bad-");
    const env = { DATA_DIR: join(dir, "data"), SESSION_SECRET: SECRET };
    expect(snip(["restore", join(dir, "nothing.db")], env).stderr).toBe(`snip: no backup at ${join(dir, "nothing.db")}\n`);
    writeFileSync(join(dir, "text.db"), "not a database at all, just text");
    const text = snip(["restore", join(dir, "text.db")], env);
    expect(text.code).toBe(1);
    expect(text.stderr).toMatch(/^snip: file is not a database\n$|fails SQLite's integrity check/);
    const other = new SQLite(join(dir, "other.db"));
    other.exec("create table notes (x text)");
    other.close();
    expect(snip(["restore", join(dir, "other.db")], env).stderr).toBe(`snip: ${join(dir, "other.db")} is not a snip database (it has no migrations table)\n`);

    // A backup whose schema is newer than this code: made here by a migration row this version does not know.
    expect(snip(["migrate"], env).code).toBe(0);
    expect(snip(["backup", join(dir, "newer.db")], env).code).toBe(0);
    const newer = new SQLite(join(dir, "newer.db"));
    newer.prepare("insert into kysely_migration (name, timestamp) values (?, ?)").run("999-from-the-future", new Date().toISOString());
    newer.close();
    const r = snip(["restore", join(dir, "newer.db")], { ...env, DATA_DIR: join(dir, "data2") });
    expect(r.stderr).toBe(`snip: ${join(dir, "newer.db")} was made by a newer snip (migration 999-from-the-future): restore it with that version\n`);
    expect(existsSync(join(dir, "data2", "snip.db"))).toBe(false);
  });

  it("migrate --dry-run lists what would run and runs none; a newer schema stops migrate and serve with one line", () => {
    const dir = tmp("snip-migrate-");
    const env = { DATA_DIR: dir, SESSION_SECRET: SECRET };
    const all = knownMigrations("sqlite");
    expect(snip(["migrate", "--dry-run"], env).stdout).toBe(`would apply: ${all.join(", ")}\n`);
    expect(snip(["migrate", "--dry-run"], env).stdout).toBe(`would apply: ${all.join(", ")}\n`);
    expect(snip(["migrate"], env).stdout).toBe(`applied: ${all.join(", ")}\n`);
    expect(snip(["migrate", "--dry-run"], env).stdout).toBe("schema is up to date\n");

    const db = new SQLite(join(dir, "snip.db"));
    db.prepare("insert into kysely_migration (name, timestamp) values (?, ?)").run("999-from-the-future", new Date().toISOString());
    db.close();
    const line =
      "snip: the database schema is newer than this snip (it has migration 999-from-the-future, unknown here): run the snip version that migrated it, or restore a backup made before that upgrade\n";
    for (const args of [["migrate"], ["migrate", "--dry-run"], ["serve"]]) {
      const r = snip(args, { ...env, PORT: "0" });
      expect([args.join(" "), r.code, r.stderr]).toEqual([args.join(" "), 1, line]);
    }
  });

  it("PostgreSQL: backup and restore point at pg_dump and pg_restore", () => {
    const env = { DATABASE_URL: "postgres://postgres@127.0.0.1:1/none", SESSION_SECRET: SECRET };
    expect(snip(["backup", "/tmp/x.db"], env).stderr).toBe("snip: the database is PostgreSQL: use pg_dump (docs/postgresql.md, Backups)\n");
    expect(snip(["restore", "/tmp/x.db"], env).stderr).toBe("snip: the database is PostgreSQL: use pg_restore (docs/postgresql.md, Backups)\n");
  });
});
