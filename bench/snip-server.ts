// The real service for the benchmark: startServer(loadConfig(env)) from src/, as `snip serve` runs it,
// in a child process of bench/redirect.ts. Env: DATA_DIR, DATABASE_URL, PORT, LOG_LEVEL, BASE_URL.
// Reports {type:"ready", url} over IPC; answers {type:"stats"} and {type:"probe"} (a freshness probe's session and link); SIGTERM stops it the way serveForever
// does (drain, flush buffered clicks, close the database) and exits 0.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { SESSION_COOKIE } from "../src/accounts/sessions.js";
import { loadConfig } from "../src/config.js";
import { startServer } from "../src/main.js";

function vmHwmBytes(): number | null {
  try {
    const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync("/proc/self/status", "utf8"));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

const server = await startServer(loadConfig(process.env));
// The monotonic clock of V8's profiles, so --profile can leave start-up out of the summary.
process.send?.({ type: "ready", url: server.url, readyAtUs: Number(process.hrtime.bigint() / 1000n) });

process.on("message", (msg: { type?: string }) => {
  if (msg.type === "probe") {
    void freshnessProbe().then((probe) => process.send?.({ type: "probe", ...probe }));
    return;
  }
  if (msg.type !== "stats") return;
  const mem = process.memoryUsage();
  process.send?.({
    type: "stats",
    rss: mem.rss,
    heapUsed: mem.heapUsed,
    vmHwm: vmHwmBytes(),
    cachedLinks: server.ctx.redirects.cache.size,
    pendingClicks: server.ctx.clicks.pending,
  });
});

/** A user, a session and a link of theirs, for the harness's freshness probe (bench/lib/freshness.ts). */
async function freshnessProbe(): Promise<{ cookie: string; linkId: string; path: string }> {
  const ctx = server.ctx;
  const tag = randomBytes(6).toString("hex");
  const user = await ctx.accounts.create({ email: `probe-${tag}@bench.example`, password: `probe password ${tag}`, plan: "pro", verified: true });
  const link = await ctx.links.create(user, { url: "https://example.com/freshness-probe", alias: `fresh-probe-${tag}` });
  return { cookie: `${SESSION_COOKIE}=${await ctx.sessions.create(user.id)}`, linkId: link.id, path: `/${link.alias}` };
}

let stopping = false;
const shutdown = () => {
  if (stopping) return;
  stopping = true;
  const timer = setTimeout(() => process.exit(1), 15_000);
  timer.unref();
  server.stop().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error("snip-server: shutdown failed", err);
      process.exit(1);
    },
  );
};
process.once("SIGTERM", shutdown);
process.once("SIGINT", shutdown);
// The parent went away: stop too, rather than linger.
process.once("disconnect", shutdown);
