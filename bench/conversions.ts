// Conversions benchmark (issue 56): leads and sales recorded per second through the tracking API
// (`POST /api/track/lead`, `POST /api/track/sale` with an API key of scope conversions:write), over real HTTP
// against a snip server in a child process, on SQLite and (TEST_DATABASE_URL set) PostgreSQL. Then the same
// lead sent again by every client at once (idempotency under load), and the link's statistics checked exactly.
// `npm run bench:conversions [-- --smoke] [-- --customers N] [-- --concurrency N]`
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import { loadConfig } from "../src/config.js";
import { createContext } from "../src/context.js";
import { SESSION_COOKIE } from "../src/accounts/sessions.js";
import { newClickId, storeTrackedClicks, trackedRow } from "../src/conversions/index.js";
import { type BenchEngine, benchEngines, forEachEngine, withSnipServer } from "./lib/engines.js";

const { values: args } = parseArgs({
  options: { smoke: { type: "boolean" }, customers: { type: "string" }, concurrency: { type: "string" } },
});
const CUSTOMERS = Number(args.customers ?? (args.smoke ? 300 : 5_000));
const CONCURRENCY = Number(args.concurrency ?? 16);
const AMOUNT = 4_999; // minor units, every sale the same: the revenue to expect is CUSTOMERS x AMOUNT
const REPEATS = 20; // the same lead sent this many times at once, per round of the idempotency check

interface Seeded {
  linkId: string;
  clickIds: string[];
  secret: string;
  cookie: string;
}

/** A Business account, one tracked link, CUSTOMERS tracked clicks of it, an API key and a session. */
async function seed(env: Record<string, string>): Promise<Seeded> {
  const ctx = await createContext(loadConfig(env));
  try {
    const user = await ctx.accounts.create({ email: "bench-conversions@example.com", password: "correct horse 1", plan: "business", verified: true });
    const link = await ctx.links.create(user, { url: "https://shop.example.com/spring", track_conversions: true });
    const now = Date.now();
    const clickIds = Array.from({ length: CUSTOMERS }, () => newClickId());
    for (let i = 0; i < clickIds.length; i += 500) {
      const rows = clickIds.slice(i, i + 500).map((id) =>
        trackedRow({
          id,
          ownerId: user.id,
          linkId: link.id,
          destination: null,
          country: "DE",
          userAgent: "Mozilla/5.0 (X11; Linux x86_64)",
          referer: "",
          at: now,
        }),
      );
      await storeTrackedClicks(ctx.storage, rows);
    }
    const { secret } = await ctx.apiKeys.create(user, { name: "bench", scopes: ["conversions:write"] });
    const cookie = `${SESSION_COOKIE}=${await ctx.sessions.create(user.id)}`;
    return { linkId: link.id, clickIds, secret, cookie };
  } finally {
    await ctx.close();
  }
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

/** Sends `bodies` to `path` from CONCURRENCY clients; every answer must be one of `ok`. Rate and latency. */
async function send(
  url: string,
  secret: string,
  bodies: unknown[],
  ok: number[],
): Promise<{ perSecond: number; p50: number; p99: number; statuses: Map<number, number> }> {
  const times: number[] = [];
  const statuses = new Map<number, number>();
  let next = 0;
  const client = async () => {
    while (next < bodies.length) {
      const body = bodies[next++];
      const t = performance.now();
      const res = await fetch(url, {
        method: "POST",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      times.push(performance.now() - t);
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (!ok.includes(res.status)) throw new Error(`${url} answered ${res.status}: ${text.slice(0, 200)}`);
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, client));
  const seconds = (performance.now() - t0) / 1000;
  times.sort((a, b) => a - b);
  return { perSecond: bodies.length / seconds, p50: pct(times, 50), p99: pct(times, 99), statuses };
}

async function run(engine: BenchEngine, env: Record<string, string>): Promise<boolean> {
  const t0 = performance.now();
  const s = await seed(env);
  console.log(
    `[${engine}] seeded ${CUSTOMERS.toLocaleString("en")} tracked clicks in ${((performance.now() - t0) / 1000).toFixed(1)} s; ${CONCURRENCY} clients`,
  );
  return withSnipServer(env, async (server) => {
    const line = (what: string, r: Awaited<ReturnType<typeof send>>) =>
      console.log(
        `[${engine}]   ${what.padEnd(34)} ${Math.round(r.perSecond).toLocaleString("en").padStart(6)}/s   p50 ${r.p50.toFixed(1)} ms   p99 ${r.p99.toFixed(1)} ms`,
      );
    const leads = s.clickIds.map((click_id, i) => ({ click_id, customer_external_id: `c-${i}`, event_name: "Sign up" }));
    line("leads (201 each)", await send(`${server.url}/api/track/lead`, s.secret, leads, [201]));
    const sales = s.clickIds.map((_, i) => ({ customer_external_id: `c-${i}`, amount: AMOUNT, currency: "EUR", invoice_id: `inv-${i}` }));
    line("sales (201 each)", await send(`${server.url}/api/track/sale`, s.secret, sales, [201]));
    // Idempotency under load: every lead again, REPEATS times at once for each; all 200, nothing doubled.
    const repeats = leads.slice(0, Math.max(1, Math.floor(CUSTOMERS / 10))).flatMap((l) => Array.from({ length: REPEATS }, () => l));
    line(`repeated leads (200 each, x${REPEATS})`, await send(`${server.url}/api/track/lead`, s.secret, repeats, [200]));
    const repeatedSales = sales.slice(0, Math.max(1, Math.floor(CUSTOMERS / 10))).flatMap((b) => Array.from({ length: REPEATS }, () => b));
    line(`repeated sales (200 each, x${REPEATS})`, await send(`${server.url}/api/track/sale`, s.secret, repeatedSales, [200]));

    const res = await fetch(`${server.url}/api/links/${s.linkId}/stats`, { headers: { cookie: s.cookie, accept: "application/json" } });
    const stats = (await res.json()) as { leads?: number; sales?: number; revenue?: Record<string, number> };
    const exact = stats.leads === CUSTOMERS && stats.sales === CUSTOMERS && stats.revenue?.EUR === CUSTOMERS * AMOUNT;
    console.log(
      `[${engine}]   link statistics: ${stats.leads} leads, ${stats.sales} sales, EUR ${stats.revenue?.EUR} ` +
        `(expected ${CUSTOMERS}, ${CUSTOMERS}, ${CUSTOMERS * AMOUNT}): ${exact ? "exact" : "WRONG"}`,
    );
    return exact;
  });
}

process.exitCode = (await forEachEngine("conversions", benchEngines(), run)) ? 0 : 1;
