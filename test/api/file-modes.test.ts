// What the service writes under DATA_DIR is for its own user only: the directory 0700, the SQLite file
// with its -wal and -shm, the secret and outbox mails (live reset tokens) 0600, whatever the umask;
// files an older version left readable are narrowed at start.
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ApiClient } from "../helpers/client.js";

const mode = (path: string) => statSync(path).mode & 0o777;
let root: string;
let oldUmask: number;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "snip-modes-"));
  // A permissive umask: the modes must not depend on the operator's.
  oldUmask = process.umask(0o000);
});
afterAll(() => {
  process.umask(oldUmask);
  rmSync(root, { recursive: true, force: true });
});

async function exercise(server: TestServer): Promise<void> {
  const c = new ApiClient(server.url);
  expect((await c.signup(`modes-${Date.now()}@example.com`)).status).toBe(201);
  expect((await c.post("/api/links", { url: "https://example.com/modes" })).status).toBe(201);
}

it("a new DATA_DIR is 0700; snip.db, -wal, -shm, secret and outbox mails are 0600, the outbox 0700", async () => {
  const dataDir = join(root, "fresh", "data");
  const server = await startTestServer({ dataDir });
  try {
    await exercise(server);
    expect(mode(dataDir)).toBe(0o700);
    for (const f of ["snip.db", "snip.db-wal", "snip.db-shm", "secret"]) expect([f, mode(join(dataDir, f))]).toEqual([f, 0o600]);
    expect(mode(server.outboxDir)).toBe(0o700);
    const mails = readdirSync(server.outboxDir);
    expect(mails.length).toBeGreaterThan(0);
    for (const m of mails) expect([m, mode(join(server.outboxDir, m))]).toEqual([m, 0o600]);
  } finally {
    await server.close();
  }
});

it("files an older version left 0644 are narrowed to 0600 at start; an existing DATA_DIR keeps its mode", async () => {
  const dataDir = join(root, "upgraded");
  const first = await startTestServer({ dataDir });
  await exercise(first);
  await first.close();
  chmodSync(dataDir, 0o755);
  chmodSync(join(dataDir, "outbox"), 0o755);
  for (const f of ["snip.db", "snip.db-wal", "snip.db-shm", "secret"]) {
    try {
      chmodSync(join(dataDir, f), 0o644);
    } catch {
      /* -wal and -shm are gone after a clean close */
    }
  }
  const second = await startTestServer({ dataDir });
  try {
    await exercise(second);
    for (const f of ["snip.db", "snip.db-wal", "snip.db-shm", "secret"]) expect([f, mode(join(dataDir, f))]).toEqual([f, 0o600]);
    expect(mode(second.outboxDir)).toBe(0o700);
    expect(mode(dataDir)).toBe(0o755);
  } finally {
    await second.close();
  }
});

it("DATABASE_URL=sqlite:<file> elsewhere: its new folder 0700, the file and its -wal 0600", async () => {
  const file = join(root, "elsewhere", "db", "other.db");
  const server = await startTestServer({ dataDir: join(root, "dd"), env: { DATABASE_URL: `sqlite:${file}` } });
  try {
    await exercise(server);
    expect(mode(join(root, "elsewhere", "db"))).toBe(0o700);
    expect(mode(file)).toBe(0o600);
    expect(mode(`${file}-wal`)).toBe(0o600);
  } finally {
    await server.close();
  }
});
