// Clicks as the service builds them: the recorder (buffer, writer, journal, roll-ups), the reads that add
// what the writer holds back, statistics, and the country resolver (GEOIP_DB) every click's reader shares.
import { join } from "node:path";
import maxmind, { type CountryResponse } from "maxmind";
import type { Logger } from "pino";
import type { Config } from "../config.js";
import type { Storage } from "../storage/db.js";
import type { Clock } from "../shared/clock.js";
import { ClickRecorder } from "./recorder.js";
import type { ClickWriter } from "./click-writer.js";
import { ClickJournal } from "./click-journal.js";
import { CountryResolver } from "./describe.js";
import { ClickReads } from "./click-reads.js";
import { StatsService } from "./stats.js";
import type { StoredListeners } from "./stored.js";

export interface ClicksDeps {
  settings: Pick<Config, "database" | "dataDir" | "clickWriter" | "geoipDb" | "clickFlushMs" | "clickRollupMs" | "clickRetentionDays" | "clickMemoryMax">;
  storage: Storage;
  clock: Clock;
  log: Logger;
  /** Journal buffered clicks under DATA_DIR and replay what a killed server left (servers; CLI commands record no clicks). */
  journal: boolean;
  /** WORKERS=N on SQLite: the primary's writer, reached over IPC (src/cluster/remote-writer.ts). */
  writer?: ClickWriter;
  /** The writers' "stored" listeners (src/click-listeners.ts). */
  stored: StoredListeners;
}

export interface Clicks {
  clicks: ClickRecorder;
  reads: ClickReads;
  stats: StatsService;
  countries: CountryResolver;
}

export async function createClicks(deps: ClicksDeps): Promise<Clicks> {
  const { settings, storage, clock, log } = deps;
  const geoip = settings.geoipDb ? await maxmind.open<CountryResponse>(settings.geoipDb) : null;
  const countries = new CountryResolver(geoip);
  // An in-memory SQLite database cannot be opened twice (a worker) and dies with the process (nothing to replay into).
  const onDisk = settings.database.kind === "postgres" || Boolean(storage.sqliteFile);
  const clicks = new ClickRecorder({
    db: storage.db,
    dialect: storage.dialect,
    sqlite: storage.sqlite,
    workerDatabase: settings.clickWriter === "worker" && onDisk ? settings.database : null,
    geoipDb: settings.geoipDb,
    clock,
    log,
    countries,
    flushMs: settings.clickFlushMs,
    rollupMs: settings.clickRollupMs,
    retentionDays: settings.clickRetentionDays,
    memoryMax: settings.clickMemoryMax,
    writer: deps.writer,
    stored: deps.stored,
    journal: deps.journal && onDisk ? new ClickJournal(join(settings.dataDir, "click-journal"), log) : null,
  });
  // Every read of clicks adds what the roll-ups hold back, or what is not committed yet (click-reads.ts).
  const reads = new ClickReads({ db: storage.db, heldBack: (nums) => clicks.heldBack(nums), uncommitted: (links) => clicks.uncommitted(links) });
  const stats = new StatsService({ db: storage.db, dialect: storage.dialect, clock, reads });
  return { clicks, reads, stats, countries };
}
