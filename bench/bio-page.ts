// Bio page speed (docs/bio-pages.md): a bio page answered from the fast path's cache against a short link's 302,
// in the same run on the same server (SQLite, in this process): each measured twice, alternating, with autocannon;
// prints the requests per second of each and the ratio of the page's to the redirect's.
// `npm run bench:bio-page [-- --smoke]`.
import { startTestServer } from "../test/helpers/server.js";
import { testAccount } from "../test/helpers/team.js";
import { autocannonRun } from "./lib/load.js";

const SMOKE = process.argv.includes("--smoke");
const AMOUNT = SMOKE ? 5_000 : 100_000;

const server = await startTestServer({ engine: "sqlite" });
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
  const run = (path: string) => autocannonRun({ url: server.url, paths: [path], connections: 10, amount: AMOUNT, maxSeconds: 120 });
  // Warm both caches.
  await run(`/${links[0]!.alias}`);
  await run("/bench-bio");
  const rates = { redirect: [] as number[], bio: [] as number[] };
  for (let round = 0; round < 2; round++) {
    const r = await run(`/${links[0]!.alias}`);
    const b = await run("/bench-bio");
    if (!r.statuses[302] || !b.statuses[200]) throw new Error(`unexpected answers: ${JSON.stringify(r.statuses)} ${JSON.stringify(b.statuses)}`);
    rates.redirect.push(r.rps);
    rates.bio.push(b.rps);
  }
  const best = (xs: number[]) => Math.max(...xs);
  const ratio = best(rates.bio) / best(rates.redirect);
  console.log(`redirect (302):   ${Math.round(best(rates.redirect))} req/s`);
  console.log(`bio page (200):   ${Math.round(best(rates.bio))} req/s`);
  console.log(`bio page / redirect: ${ratio.toFixed(2)}`);
} finally {
  await server.close();
}
