// WORKERS=N: one HTTP worker, a whole server (fast redirect path included) on the port the cluster shares.
// On SQLite its change feed and click writer are the primary's (cluster-feed.ts, remote-writer.ts); its
// clicks are journaled here, before each 302, so that a kill of this process or of the primary loses none.
import type { Config } from "../config.js";
import { serveForever } from "../main.js";
import { ClusterFeed } from "./cluster-feed.js";
import { RemoteClickWriter } from "./remote-writer.js";

export async function runWorker(config: Readonly<Config>): Promise<void> {
  const send = (msg: unknown): boolean => {
    if (!process.connected || !process.send) return false;
    // A failed send (the primary gone) is seen by the caller as false, or as a call never answered.
    return process.send(msg, undefined, undefined, () => undefined);
  };
  let cluster;
  if (config.database.kind === "sqlite") {
    const feed = new ClusterFeed(send);
    const clickWriter = new RemoteClickWriter(send);
    process.on("message", (msg: unknown) => {
      feed.hear(msg);
      clickWriter.hear(msg);
    });
    cluster = { feed, clickWriter };
  }
  // A SIGTERM during the start (a primary stopping while this worker replays a dead one's journal) is
  // taken once the server runs, so that it drains like the others instead of dying half started.
  let stopAsked: NodeJS.Signals | null = null;
  const early = (signal: NodeJS.Signals) => (stopAsked = signal);
  process.on("SIGTERM", early).on("SIGINT", early);
  await serveForever(config, { cluster }, (server) => {
    server.ctx.log.debug({ listening: server.url, pid: process.pid }, "worker listening");
    send({ snip: "listening", url: server.url });
  });
  process.off("SIGTERM", early).off("SIGINT", early);
  if (stopAsked) process.kill(process.pid, stopAsked);
}
