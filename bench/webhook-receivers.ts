// Webhook receivers for bench/webhooks.ts, in a child process of their own (the load generator's event
// loop stays free): N HTTPS servers on loopback, answering at once ("fast"), after 3 s ("slow") or after
// 1 to 3 s ("varied", bench:soak).
// Args: <key file> <cert file> <count>. IPC: reports {type:"ready", ports}; answers {type:"count"} with
// the requests received so far; {type:"mode", mode} switches fast/slow/varied.
import { readFileSync } from "node:fs";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";

const [keyFile, certFile, countArg] = process.argv.slice(2);
const key = readFileSync(keyFile as string);
const cert = readFileSync(certFile as string);
type Mode = "fast" | "slow" | "varied";
let mode: Mode = "slow";
let received = 0;

const servers = await Promise.all(
  Array.from({ length: Number(countArg ?? 5) }, async () => {
    const server = createServer({ key, cert }, (req, res) => {
      req.resume();
      req.on("end", () => {
        received++;
        if (mode === "fast") res.writeHead(204).end();
        else setTimeout(() => res.writeHead(204).end(), mode === "slow" ? 3_000 : 1_000 + Math.random() * 2_000).unref();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return server;
  }),
);

process.on("message", (msg: { type?: string; mode?: Mode }) => {
  if (msg.type === "count") process.send?.({ type: "count", received });
  if (msg.type === "mode" && msg.mode) {
    mode = msg.mode;
    process.send?.({ type: "mode", mode });
  }
});
process.send?.({ type: "ready", url: "receivers", ports: servers.map((s) => (s.address() as AddressInfo).port) });
process.once("SIGTERM", () => process.exit(0));
process.once("disconnect", () => process.exit(0));
