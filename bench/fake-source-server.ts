// The fake Shlink (test/helpers/fake-sources.ts) in a child process of bench/import.ts, so that generating
// 1,000,000 visits as JSON does not share the event loop that times the redirects sent during the import.
// Args: <links> <visits per link>. Reports {type:"ready", url} over IPC; {type:"stats"} answers the
// requests served by kind; SIGTERM (or the parent going away) closes it.
import { startFakeSource } from "../test/helpers/fake-sources.js";

const links = Number(process.argv[2]);
const perLink = Number(process.argv[3]);
if (!Number.isInteger(links) || links < 1 || !Number.isInteger(perLink) || perLink < 0)
  throw new Error("usage: fake-source-server.ts <links> <visits per link>");

const fake = await startFakeSource("shlink", { links, visitsPerLink: () => perLink, record: false });
const served = { links: 0, visits: 0, other: 0 };
// Counted here rather than recorded by the fake (record: false keeps its memory flat).
const handle = fake.handle.bind(fake);
fake.handle = (req, res) => {
  const path = req.url ?? "";
  if (path.startsWith("/rest/v3/short-urls?")) served.links++;
  else if (path.includes("/visits")) served.visits++;
  else served.other++;
  handle(req, res);
};
process.send?.({ type: "ready", url: fake.baseUrl });
process.on("message", (msg: { type?: string }) => {
  if (msg.type === "stats") process.send?.({ type: "stats", rss: process.memoryUsage().rss, served });
});
const stop = () => void fake.close().then(() => process.exit(0));
process.once("SIGTERM", stop);
process.once("disconnect", stop);
