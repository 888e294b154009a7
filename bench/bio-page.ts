// Bio page speed (docs/bio-pages.md): a bio page answered from the fast path's cache against a short link's 302,
// each also against a bare node:http server in this process that sends the same status, headers and body (so the
// page's larger body is not counted against snip). Same run, same server (SQLite, in this process), rounds
// alternating the four targets, autocannon with 10 connections. Prints requests per second (median of the
// rounds), each snip answer's ratio to its bare twin, and the page's ratio over the redirect's: 1.00 means the
// page costs snip what a redirect does beyond the bytes it sends (goal: at least 0.95).
// `npm run bench:bio-page [-- --smoke]`.
import { type IncomingMessage, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { startTestServer } from "../test/helpers/server.js";
import { testAccount } from "../test/helpers/team.js";
import { autocannonRun } from "./lib/load.js";

const SMOKE = process.argv.includes("--smoke");
const AMOUNT = SMOKE ? 5_000 : 100_000;
const ROUNDS = SMOKE ? 1 : 3;

/** A recorded answer: status, node:http's raw header list, body. */
interface Answer {
  status: number;
  headers: string[];
  body: Buffer;
}

async function record(url: string): Promise<Answer> {
  const res = await fetch(url, { redirect: "manual", headers: { "user-agent": "Mozilla/5.0 (X11; Linux x86_64) bench" } });
  const headers: string[] = [];
  // fetch adds none of its own; date and connection are the server's per answer, as node:http writes them.
  res.headers.forEach((value, name) => {
    if (name !== "date" && name !== "connection" && name !== "keep-alive" && name !== "transfer-encoding") headers.push(name, value);
  });
  return { status: res.status, headers, body: Buffer.from(await res.arrayBuffer()) };
}

/** A bare server answering each path with its recorded answer, written as snip's fast path writes one. */
async function bareServer(answers: Record<string, Answer>): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const a = answers[req.url ?? ""];
    if (!a) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(a.status, a.headers);
    res.end(a.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const server = await startTestServer({ engine: "sqlite" });
let bare: Awaited<ReturnType<typeof bareServer>> | null = null;
try {
  const owner = await testAccount(server, "bench-bio@example.com", "pro");
  const links = [];
  for (let i = 0; i < 5; i++) {
    const r = await owner.client.post("/api/links", { url: `https://example.com/landing/${i}` });
    links.push(r.body.link as { id: string; alias: string });
  }
  const made = await owner.client.post("/api/bio-pages", {
    slug: "bench-bio",
    title: "A bench page",
    description: "Five buttons, a heading and two social profiles.",
    blocks: [
      { type: "heading", text: "Links" },
      ...links.map((l, i) => ({ type: "link", link_id: l.id, label: `Button ${i + 1}` })),
      { type: "social", network: "github", url: "https://github.com/example" },
      { type: "social", network: "x", url: "https://x.com/example" },
    ],
  });
  if (made.status !== 201) throw new Error(`bio page: ${made.status} ${made.text}`);
  const redirectPath = `/${links[0]!.alias}`;
  const pagePath = "/bench-bio";
  const redirect = await record(server.url + redirectPath);
  const page = await record(server.url + pagePath);
  if (redirect.status !== 302 || page.status !== 200) throw new Error(`unexpected answers: ${redirect.status} ${page.status}`);
  bare = await bareServer({ [redirectPath]: redirect, [pagePath]: page });

  const targets = [
    { name: "snip redirect (302)", url: server.url, path: redirectPath, status: 302 },
    { name: "bare redirect (302)", url: bare.url, path: redirectPath, status: 302 },
    { name: "snip bio page (200)", url: server.url, path: pagePath, status: 200 },
    { name: "bare bio page (200)", url: bare.url, path: pagePath, status: 200 },
  ];
  const rates = new Map<string, number[]>(targets.map((t) => [t.name, []]));
  const run = (t: (typeof targets)[number]) => autocannonRun({ url: t.url, paths: [t.path], connections: 10, amount: AMOUNT, maxSeconds: 120 });
  for (const t of targets) await run(t); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    for (const t of targets) {
      const r = await run(t);
      if (r.statuses[t.status] !== r.completed || r.socketErrors > 0) throw new Error(`${t.name}: ${JSON.stringify(r.statuses)}`);
      rates.get(t.name)!.push(r.rps);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  const rate = (name: string) => median(rates.get(name)!);
  console.log(`bio page bench: ${AMOUNT.toLocaleString("en")} requests per run, ${ROUNDS} round(s), 10 connections; page body ${page.body.length} bytes`);
  for (const t of targets)
    console.log(
      `  ${t.name.padEnd(20)} ${Math.round(rate(t.name)).toLocaleString("en").padStart(7)} req/s  (rounds ${rates
        .get(t.name)!
        .map((x) => Math.round(x))
        .join(" / ")})`,
    );
  const redirectRatio = rate("snip redirect (302)") / rate("bare redirect (302)");
  const pageRatio = rate("snip bio page (200)") / rate("bare bio page (200)");
  console.log(`  redirect: snip / bare ${redirectRatio.toFixed(2)}`);
  console.log(`  bio page: snip / bare ${pageRatio.toFixed(2)}`);
  const verdict = pageRatio / redirectRatio;
  console.log(`  bio page at redirect speed: ${verdict.toFixed(3)} of the redirect's ratio (goal >= 0.95) ${verdict >= 0.95 ? "PASS" : "BELOW GOAL"}`);
} finally {
  await bare?.close();
  await server.close();
}
