// `snip serve` with WORKERS=N (N > 1): the primary forks the workers; each worker runs a server.
import cluster from "node:cluster";
import type { Config } from "../config.js";
import { runPrimary } from "./primary.js";
import { runWorker } from "./worker.js";

export function runCluster(config: Readonly<Config>): Promise<void> {
  return cluster.isPrimary ? runPrimary(config) : runWorker(config);
}
