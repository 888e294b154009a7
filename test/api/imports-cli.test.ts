// `snip import <source> <email>` as a real process (docs/import.md, Command line), on every engine: a
// Shlink import with its visits and a progress line, a CSV file with its report, a refused token.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { snipAsync } from "../helpers/cli.js";
import { type RunningFakeSource, startFakeSource } from "../helpers/fake-sources.js";

describe.each(ENGINES)("snip import on %s", (engine) => {
  let server: TestServer;
  let shlink: RunningFakeSource;
  let env: Record<string, string>;
  const dir = mkdtempSync(join(tmpdir(), "snip-import-cli-"));
  beforeAll(async () => {
    server = await startTestServer({ engine });
    shlink = await startFakeSource("shlink", { links: 120, visitsPerLink: (i) => (i % 2) * 3 });
    env = {
      DATA_DIR: server.dataDir,
      ...(server.databaseUrl ? { DATABASE_URL: server.databaseUrl } : {}),
      BASE_URL: server.config.origin,
      IMPORT_ALLOW_PRIVATE: "true",
    };
    await server.ctx.accounts.create({ email: "cli-import@example.com", password: "correct horse 1", plan: "business", verified: true });
  });
  afterAll(async () => {
    await server?.close();
    await shlink?.close();
  });

  it("imports from Shlink with the token from the environment; the counts on stdout, progress on stderr", async () => {
    const r = await snipAsync(["import", "shlink", "cli-import@example.com", "--base-url", shlink.baseUrl, "--on-taken", "generate"], {
      ...env,
      SNIP_IMPORT_TOKEN: shlink.token,
    });
    expect(r.stderr).toMatch(/read: \d+ created/);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^import [A-Za-z0-9]+ done: 120 read, 120 created, 0 skipped, 0 failed, 180 visits\n$/);
    const n = await server.ctx.storage.db
      .selectFrom("links")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    expect(Number(n.n)).toBe(120);
  });

  it("prints each failed line with its code and words after the counts", async () => {
    const file = join(dir, "failing.csv");
    writeFileSync(file, 'url,alias\nhttps://example.com/cli-f1,cli-f-one\nnot-a-url,cli-f-two\nhttps://example.com/cli-f3,"never closed\n');
    const r = await snipAsync(["import", "csv", "cli-import@example.com", "--file", file], env);
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout.split("\n");
    expect(out[0]).toMatch(/ done: 3 read, 1 created, 0 skipped, 2 failed, 0 visits$/);
    expect(out[1]).toMatch(/^failed line 2 \(line:3\): invalid_request: url: \S/);
    expect(out.slice(2)).toEqual(["failed line 3 (line:4): invalid_request: unreadable CSV line (a quote opened here is never closed)", ""]);
  });

  it("imports a CSV file and writes its report; a file that is not UTF-8 and a wrong token exit non-zero", async () => {
    const file = join(dir, "links.csv");
    writeFileSync(file, "url,alias\nhttps://example.com/cli-1,cli-one\nhttps://example.com/cli-2,cli-one\n");
    const report = join(dir, "report.csv");
    const r = await snipAsync(["import", "csv", "cli-import@example.com", "--file", file, "--report", report], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/ done: 2 read, 1 created, 1 skipped, 0 failed, 0 visits\n$/);
    const lines = readFileSync(report, "utf8")
      .replace(/^\uFEFF/, "")
      .trim()
      .split("\r\n");
    expect(lines[0]).toBe("line,source_id,url,alias,short_url,status,code,notes");
    expect(lines[2]).toMatch(/^2,line:3,https:\/\/example.com\/cli-2,cli-one,,skipped,alias_taken,/);

    const latin = join(dir, "latin.csv");
    writeFileSync(latin, Buffer.from("url,title\nhttps://example.com/x,caf\xe9\n", "latin1"));
    const bad = await snipAsync(["import", "csv", "cli-import@example.com", "--file", latin], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe(`snip: ${latin} is not UTF-8 text (save it as CSV UTF-8)\n`);

    const wrong = await snipAsync(["import", "shlink", "cli-import@example.com", "--base-url", shlink.baseUrl, "--token", "nope"], env);
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toMatch(/ failed: 0 read/);
    expect(wrong.stdout).toMatch(/\nerror: the source refused the token.*\n$/);
    expect(wrong.stdout + wrong.stderr).not.toContain("nope");
  });
});
