// SQLite holds roll-ups and click counts back for CLICK_ROLLUP_MS; a crash in between loses nothing:
// the raw clicks past the watermark are folded into them at the next start, and a roll-up that a crash
// cut short between two of its transactions is finished without counting any link twice.
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import { afterAll, expect, it } from "vitest";
import { freePort, startTestServer, type TestServer } from "../helpers/server.js";
import { healthy, waitFor } from "../helpers/wait.js";
import { cliArgv } from "../helpers/built.js";

const root = join(import.meta.dirname, "..", "..");
const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

it("recovers roll-ups of clicks written before a crash (SIGKILL)", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "snip-crash-"));
  const setup = await startTestServer({ dataDir });
  const user = await setup.ctx.accounts.create({ email: "crash@example.com", password: "correct horse 1", plan: "pro", verified: true });
  const link = await setup.ctx.links.create(user, { url: "https://example.com/crash", alias: "crash-me" });
  await setup.close();

  const port = await freePort();
  const child = spawn(process.execPath, cliArgv(["serve"]), {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? "",
      DATA_DIR: dataDir,
      PORT: String(port),
      BASE_URL: `http://127.0.0.1:${port}`,
      LOG_LEVEL: "silent",
      CLICK_FLUSH_MS: "10",
      CLICK_ROLLUP_MS: "600000",
    },
    stdio: "ignore",
  });
  const exited = new Promise((resolve) => child.on("exit", resolve));
  await healthy(port);
  for (let i = 0; i < 25; i++) {
    const r = await fetch(`http://127.0.0.1:${port}/crash-me`, {
      redirect: "manual",
      headers: { "user-agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)" },
    });
    expect(r.status).toBe(302);
  }
  const peek = new SQLite(join(dataDir, "snip.db"), { readonly: true });
  const count = (q: string) => Number(peek.prepare(q).pluck().get(link.id));
  // Raw clicks in clicks or still staged (a link's few clicks per flush wait there for the roll-up).
  const rawClicks = "(SELECT count(*) FROM clicks WHERE link_num = l.num) + (SELECT count(*) FROM click_staging WHERE link_num = l.num)";
  await waitFor(() => count(`SELECT ${rawClicks} FROM links l WHERE id = ?`) === 25, { what: "raw clicks" });
  // Held back: nothing rolled up or counted yet.
  expect(count("SELECT click_count FROM links WHERE id = ?")).toBe(0);
  expect(count("SELECT coalesce(sum(clicks), 0) FROM click_daily WHERE link_id = ?")).toBe(0);
  child.kill("SIGKILL");
  await exited;
  peek.close();
  // Raw clicks of a link deleted after they were taken and before their roll-up (the writer appends
  // without the foreign-key check): recovery deletes them instead of rolling them up.
  const raw = new SQLite(join(dataDir, "snip.db"));
  raw.pragma("foreign_keys = OFF");
  for (const table of ["clicks", "click_staging"]) {
    const orphan = raw.prepare(
      `INSERT INTO ${table} (link_num, at, country, device, os, browser, referrer, is_bot) VALUES (9999, ?, 'NL', 'mobile', 'iOS', 'Mobile Safari', 'direct', 0)`,
    );
    for (let i = 0; i < 3; i++) orphan.run(Date.now() + i);
  }
  raw.close();

  const after = await startTestServer({ dataDir });
  servers.push(after);
  const db = after.ctx.storage.db;
  const daily = await db.selectFrom("click_daily").select(["clicks"]).where("link_id", "=", link.id).execute();
  expect(daily.map((d) => Number(d.clicks))).toEqual([25]);
  const devices = await db.selectFrom("click_breakdown").select(["value", "clicks"]).where("link_id", "=", link.id).where("dimension", "=", "device").execute();
  expect(devices.map((d) => [d.value, Number(d.clicks)])).toEqual([["mobile", 25]]);
  const os = await db
    .selectFrom("click_breakdown")
    .select((eb) => eb.fn.sum<number>("clicks").as("n"))
    .where("link_id", "=", link.id)
    .where("dimension", "=", "os")
    .executeTakeFirstOrThrow();
  expect(Number(os.n)).toBe(25);
  const row = await db.selectFrom("links").select("click_count").where("id", "=", link.id).executeTakeFirstOrThrow();
  expect(Number(row.click_count)).toBe(25);
  expect(await db.selectFrom("clicks").select("id").where("link_num", "=", 9999).execute()).toEqual([]);
  expect(await db.selectFrom("click_staging").select("id").execute()).toEqual([]);
  expect(
    Number(
      (
        await db
          .selectFrom("clicks")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    ),
  ).toBe(25);

  // A second start does not fold them in twice.
  await after.stop();
  const again = await startTestServer({ dataDir });
  servers.push(again);
  const daily2 = await again.ctx.storage.db.selectFrom("click_daily").select(["clicks"]).where("link_id", "=", link.id).execute();
  expect(daily2.map((d) => Number(d.clicks))).toEqual([25]);
});
