// What a tracked click's row costs the SQLite click writer (issue 56): the "tracked clicks" stored listener writing
// rows of one link in transactions of 2,500 (a batch), CPU per row, with newClickId's time-prefixed ids against fully
// random 22-character ids (the form before), and the ids and rows alone without a write. Two rounds, alternating.
//
//   npx tsx bench/tracked-rows.ts [batches per case, default 80]
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStorage } from "../src/storage/db.js";
import { migrateToLatest } from "../src/storage/migrate.js";
import { newClickId, trackedClicksListener } from "../src/conversions/tracked-clicks.js";
import { type ClickRow, describeBatch } from "../src/clicks/click-groups.js";
import { batchOf } from "../src/clicks/click-buffer.js";
import type { CountryResolver } from "../src/clicks/describe.js";

const dir = mkdtempSync(join(tmpdir(), "tc-"));
const storage = await openStorage({ kind: "sqlite", file: join(dir, "db.sqlite") });
await migrateToLatest(storage);
const h = storage.sqlite!;
h.pragma("foreign_keys = OFF");
h.prepare("INSERT INTO links (id, alias, domain, url, owner_id, created_at, updated_at, num) VALUES ('L1','a','','https://x/','u1',0,0,1)").run();
const step = trackedClicksListener.sqlite(h);
// One click as the writer describes it (a desktop browser, no referrer), then stamped with each row's time and id.
const described = describeBatch(
  batchOf([
    {
      linkId: "L1",
      linkNum: 1,
      at: 0,
      userAgent: "Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0",
      referer: "",
      ip: "127.0.0.1",
      country: null,
      counted: false,
      destination: null,
    },
  ]),
  { place: () => ({ country: "unknown", region: null, city: null }) } as unknown as CountryResolver,
);
const template = described.rows[0] as ClickRow;
const row = (id: string, at: number): ClickRow => ({ ...template, at, click_id: id });
const BATCH = 2500;
async function run(label: string, mk: (at: number) => string, batches: number) {
  let at = Date.now();
  const t0 = process.cpuUsage();
  for (let b = 0; b < batches; b++) {
    const rows: ClickRow[] = [];
    for (let i = 0; i < BATCH; i++) {
      at += 0.05;
      rows.push(row(mk(Math.floor(at)), Math.floor(at)));
    }
    if (!label.startsWith("no write")) h.transaction(() => step({ rows, first: 0, prefix: "p" }))();
  }
  const u = process.cpuUsage(t0);
  console.log(`${label}: ${((u.user + u.system) / (batches * BATCH)).toFixed(2)} µs CPU per tracked row (${batches * BATCH} rows)`);
}
const n = Number(process.argv[2] ?? 80);
for (let r = 0; r < 2; r++) {
  await run("no write (ids and rows only)", (at) => newClickId(at), n);
  await run("time-prefixed ids", (at) => newClickId(at), n);
  let pool = Buffer.alloc(0);
  let k = 0;
  const rnd = () => {
    if (k >= pool.length) {
      pool = randomBytes(16 * 4096);
      k = 0;
    }
    k += 16;
    return pool.toString("base64url", k - 16, k);
  };
  await run("random ids (22 chars, pooled)", rnd, n);
}
await storage.close?.();
