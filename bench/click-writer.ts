// The click writer alone, without HTTP: CPU time per stored click for the `hot` and `zipf` request
// streams of bench/redirect, fed as the service feeds it (a batch per CLICK_FLUSH_MS at a given rate,
// roll-ups every CLICK_ROLLUP_MS). The ratio zipf/hot is what decides whether a skewed load can
// keep up with one hot link; the split shows where the writer's time goes.
// Usage: npm run bench:clicks [-- --clicks N --rate R --links N]
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { openSqliteFile } from "../src/storage/db.js";
import { SqliteClickWriter } from "../src/clicks/sqlite-writer.js";
import { CountryResolver } from "../src/clicks/describe.js";
import { type ClickInput, MAX_BATCH } from "../src/clicks/recorder.js";
import { batchOf } from "../src/clicks/click-buffer.js";
import { buildScenario, type ScenarioName } from "./lib/dataset.js";
import { sqliteSeed } from "./lib/db.js";

const { values } = parseArgs({
  options: {
    clicks: { type: "string", default: "300000" },
    rate: { type: "string", default: "10000" },
    links: { type: "string", default: "1000000" },
    "flush-ms": { type: "string", default: "250" },
    "rollup-ms": { type: "string", default: "5000" },
  },
});
const clicks = Number(values.clicks);
const rate = Number(values.rate);
const linkCount = Number(values.links);
// As the recorder batches: what one flush interval brings, at most MAX_BATCH.
const perBatch = Math.min(MAX_BATCH, Math.max(1, Math.round((rate * Number(values["flush-ms"])) / 1000)));
const batchesPerRollup = Math.max(1, Math.round(Number(values["rollup-ms"]) / Number(values["flush-ms"])));
const UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";
const log = (s: string) => console.error(`[bench] ${s}`);

/** CPU time of this process (user + system), in ms: waiting for the disk is not the writer's work. */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

interface Result {
  name: ScenarioName;
  rawMs: number;
  rollupMs: number;
  distinct: number;
}

async function run(name: ScenarioName, seed: string, dir: string): Promise<Result> {
  const file = join(dir, `${name}.db`);
  copyFileSync(seed, file);
  const handle = openSqliteFile(file);
  const writer = new SqliteClickWriter(async (fn) => fn(), handle, new CountryResolver(null));
  const paths = buildScenario(name, linkCount).paths;
  const ids = paths.map((p) => "bench_" + p.slice(1));
  // Each path's link number, read once per distinct link.
  const numOf = handle.prepare<[string], number>("SELECT num FROM links WHERE id = ?").pluck();
  const known = new Map<string, number>();
  for (const id of ids) if (!known.has(id)) known.set(id, numOf.get(id) as number);
  const nums = ids.map((id) => known.get(id) as number);
  let at = Date.UTC(2026, 10, 21, 12);
  let rawMs = 0;
  let rollupMs = 0;
  const seen = new Set<string>();
  for (let sent = 0, batch = 0; sent < clicks; batch++) {
    const inputs: ClickInput[] = [];
    for (let i = 0; i < perBatch && sent < clicks; i++, sent++) {
      const linkId = ids[sent % ids.length] as string;
      seen.add(linkId);
      inputs.push({ linkId, linkNum: nums[sent % ids.length] as number, at: at++, userAgent: UA, referer: "", ip: "127.0.0.1", country: null, counted: false });
    }
    let t = cpuMs();
    await writer.write(batchOf(inputs));
    rawMs += cpuMs() - t;
    if ((batch + 1) % batchesPerRollup === 0) {
      t = cpuMs();
      await writer.flushRollups();
      rollupMs += cpuMs() - t;
    }
  }
  const t = cpuMs();
  await writer.flushRollups();
  rollupMs += cpuMs() - t;
  const stored = Number(handle.prepare("SELECT count(*) FROM clicks").pluck().get());
  if (stored !== clicks) throw new Error(`${name}: ${stored} clicks stored, ${clicks} written`);
  handle.close();
  return { name, rawMs, rollupMs, distinct: seen.size };
}

const seed = await sqliteSeed(linkCount, log);
const dir = mkdtempSync(join(tmpdir(), "snip-clickbench-"));
try {
  log(`${clicks.toLocaleString("en")} clicks per scenario, ${perBatch} per batch, roll-ups every ${batchesPerRollup} batches`);
  const results: Result[] = [];
  // hot, zipf, hot, zipf: the median of two is their mean; alternating evens out a busy machine.
  for (let round = 0; round < 2; round++) for (const name of ["hot", "zipf"] as const) results.push(await run(name, seed, dir));
  const us = (ms: number) => ((ms * 1000) / clicks).toFixed(2);
  console.log(`\nclick writer (SQLite, in-process), ${clicks.toLocaleString("en")} clicks, batches of ${perBatch}, roll-ups every ${batchesPerRollup} batches`);
  console.log("scenario  distinct links  raw µs/click  roll-up µs/click  total µs/click");
  const total: Record<string, number> = {};
  for (const name of ["hot", "zipf"] as const) {
    const rs = results.filter((r) => r.name === name);
    const raw = rs.reduce((a, r) => a + r.rawMs, 0) / rs.length;
    const roll = rs.reduce((a, r) => a + r.rollupMs, 0) / rs.length;
    total[name] = raw + roll;
    console.log(`${name.padEnd(8)}  ${String(rs[0]!.distinct).padStart(14)}  ${us(raw).padStart(12)}  ${us(roll).padStart(16)}  ${us(raw + roll).padStart(14)}`);
  }
  console.log(`zipf / hot cost per click: ${(total.zipf! / total.hot!).toFixed(2)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
