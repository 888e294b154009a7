// Imports as the service builds them: the jobs (routes, CLI) and the runner that works through them,
// with each source opened over the checked HTTP side (source-http.ts) or the file given.
import type { Logger } from "pino";
import type { Db } from "../storage/db.js";
import type { SealedBox } from "../shared/secret-box.js";
import type { LinkService } from "../links/links.js";
import type { ClickRecorder } from "../clicks/recorder.js";
import { ImportJobs } from "./import-jobs.js";
import { ImportRunner } from "./import-runner.js";
import { type SourceAddressCheck, createSourceFetch } from "./source-http.js";
import { API_SOURCES } from "./sources/index.js";
import { fileSource } from "./sources/file.js";
import { firebaseSource } from "./sources/firebase.js";
import type { ImportSource, ImportSourceName, SourceSettings } from "./source.js";

export interface ImportsDeps {
  db: Db;
  now: () => number;
  box: SealedBox;
  origin: string;
  mainHost: string;
  links: LinkService;
  clicks: Pick<ClickRecorder, "record" | "pending" | "flush" | "writeBuffered">;
  log: Logger;
  check: SourceAddressCheck;
  /** IMPORT_ALLOW_PRIVATE */
  allowPrivate: boolean;
  /** Tests: shorter waits before a failed page is tried again. */
  retryDelaysMs?: number[];
  /** The engine: on SQLite the click writer and the import share one write lock (ImportRunnerDeps.sharedWriteLock). */
  dialect: "sqlite" | "postgres";
}

export interface Imports {
  jobs: ImportJobs;
  runner: ImportRunner;
  /** Finishes the page in hand and drops the sources' connections. */
  close(): Promise<void>;
}

export function createImports(deps: ImportsDeps): Imports {
  const http = createSourceFetch({ check: deps.check, allowPrivate: deps.allowPrivate, now: deps.now });
  const open = (source: ImportSourceName, settings: SourceSettings): ImportSource =>
    source === "csv" ? fileSource(settings) : source === "firebase" ? firebaseSource(settings) : API_SOURCES[source](settings, http);
  // The jobs wake the runner (called only once both exist).
  const jobs = new ImportJobs({
    db: deps.db,
    now: deps.now,
    box: deps.box,
    origin: deps.origin,
    mainHost: deps.mainHost,
    links: deps.links,
    open,
    wake: () => runner.wake(),
  });
  const runner = new ImportRunner({
    db: deps.db,
    links: deps.links,
    clicks: deps.clicks,
    now: deps.now,
    box: deps.box,
    jobs,
    open,
    log: deps.log,
    retryDelaysMs: deps.retryDelaysMs,
    sharedWriteLock: deps.dialect === "sqlite",
  });
  return {
    jobs,
    runner,
    async close() {
      await runner.stop();
      await http.close();
    },
  };
}
