// Start-up without the database (docs/operations.md, Start-up): snip waits for PostgreSQL with backoff for
// DATABASE_WAIT_S, says once which host and database it waits for (never the password), then exits with
// one clear line; a database that comes up meanwhile is used.
import { createServer, connect, type Server } from "node:net";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { snipAsync } from "../helpers/cli.js";
import { spawn } from "node:child_process";
import { waitFor } from "../helpers/wait.js";
import { freePort } from "../helpers/server.js";
import { createTestDatabase } from "../helpers/engines.js";

const dataDir = () => mkdtempSync(join(tmpdir(), "snip-wait-"));

describe("start-up waits for PostgreSQL", () => {
  it("nothing answers: one line says what it waits for, then snip exits 1 after DATABASE_WAIT_S with a clear line, the password nowhere", async () => {
    const port = await freePort();
    const started = Date.now();
    const r = await snipAsync(["serve"], {
      LOG_LEVEL: "info",
      DATA_DIR: dataDir(),
      DATABASE_URL: `postgres://snip:hunter2pw@127.0.0.1:${port}/snipdb`,
      DATABASE_WAIT_S: "2",
    });
    expect(r.code).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
    const waits = r.stdout.split("\n").filter((l) => l.includes("waiting for PostgreSQL"));
    expect(waits).toHaveLength(1);
    expect(JSON.parse(waits[0]!)).toMatchObject({
      level: 40,
      database: `127.0.0.1:${port}/snipdb`,
      msg: `waiting for PostgreSQL at 127.0.0.1:${port}/snipdb (up to 2 s, DATABASE_WAIT_S)`,
    });
    expect(r.stderr).toBe(`snip: PostgreSQL at 127.0.0.1:${port}/snipdb did not answer within 2 s (DATABASE_WAIT_S): connect ECONNREFUSED 127.0.0.1:${port}\n`);
    expect(r.stdout + r.stderr).not.toContain("hunter2pw");
  });

  it("a wrong DATABASE_WAIT_S is a configuration error", async () => {
    const r = await snipAsync(["serve"], { DATA_DIR: dataDir(), DATABASE_URL: "postgres://snip@127.0.0.1:1/snipdb", DATABASE_WAIT_S: "soon" });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('snip: configuration error: DATABASE_WAIT_S: must be a whole number, got "soon"\n');
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)("PostgreSQL coming up during the wait: snip starts and serves", async () => {
    const db = await createTestDatabase("postgres");
    const target = new URL(db.databaseUrl!);
    const [port, httpPort] = [await freePort(), await freePort()];
    const via = new URL(target);
    via.hostname = "127.0.0.1";
    via.port = String(port);
    const child = spawn(process.execPath, ["--import", "tsx", join(import.meta.dirname, "..", "..", "src", "cli.ts"), "serve"], {
      env: {
        PATH: process.env.PATH ?? "",
        LOG_LEVEL: "info",
        PORT: String(httpPort),
        BASE_URL: `http://127.0.0.1:${httpPort}`,
        DATA_DIR: dataDir(),
        DATABASE_URL: via.toString(),
        DATABASE_WAIT_S: "60",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    const exited = new Promise<number | null>((r) => child.once("exit", r));
    const seen = (text: string) => waitFor(async () => out.includes(text) || null, { timeoutMs: 60_000, what: text });
    // The database "comes up" once snip said it waits: a proxy to the real one starts listening.
    await seen("waiting for PostgreSQL");
    const proxy: Server = createServer((socket) => {
      const upstream = connect(Number(target.port || 5432), target.hostname);
      socket.pipe(upstream).pipe(socket);
      socket.on("error", () => upstream.destroy());
      upstream.on("error", () => socket.destroy());
    }).listen(port, "127.0.0.1");
    try {
      await seen('"msg":"snip is listening"');
      expect(out.split("\n").filter((l) => l.includes("waiting for PostgreSQL"))).toHaveLength(1);
      expect((await fetch(`http://127.0.0.1:${httpPort}/healthz`)).status).toBe(200);
    } finally {
      child.kill("SIGTERM");
      await exited;
      await new Promise<void>((r) => proxy.close(() => r()));
      await db.drop();
    }
  });
});
