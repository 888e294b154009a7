// Worker thread that writes clicks on connections of its own (SQLite or PostgreSQL), so describing,
// batching and writing never take time from the event loop that answers redirects. Messages are
// handled one at a time, in order, except click-limit counts, reads of held-back groups and roll-ups (see below).
// The thread's entry (src/click-writer-thread.ts) calls runIngestWorker with the writers' "stored"
// listeners, which a thread cannot be sent.
import { parentPort, workerData } from "node:worker_threads";
import maxmind, { type CountryResponse } from "maxmind";
import { openPostgresDb, openSqliteFile } from "../storage/db.js";
import { isDatabaseUnavailable } from "../storage/unavailable.js";
import { CountryResolver } from "./describe.js";
import { receivedBatch } from "./click-buffer.js";
import type { ClickWriter } from "./click-writer.js";
import { PostgresClickWriter } from "./pg-writer.js";
import { SqliteClickWriter } from "./sqlite-writer.js";
import type { IngestReply, IngestRequest, IngestSetup } from "./worker-writer.js";
import type { HeldBack } from "./click-writer.js";
import type { StoredListener } from "./stored.js";

/** Serves the main thread's WorkerClickWriter with writers given `stored`. */
export function runIngestWorker(stored: readonly StoredListener[]): void {
  const setup = workerData as IngestSetup;
  const port = parentPort;
  if (!port) throw new Error("ingest-worker must run as a worker thread");
  const db = setup.database;
  const sqlite = db.kind === "sqlite" ? openSqliteFile(db.file) : null;
  const pg = db.kind === "postgres" ? openPostgresDb(db.url, 2) : null;
  const ready = (async (): Promise<ClickWriter> => {
    const countries = new CountryResolver(setup.geoipDb ? await maxmind.open<CountryResponse>(setup.geoipDb) : null);
    if (sqlite) return new SqliteClickWriter(async (fn) => fn(), sqlite, countries, stored);
    return new PostgresClickWriter(pg!, countries, stored);
  })();
  const reply = (r: IngestReply) => port.postMessage(r);
  const close = async () => {
    sqlite?.close();
    await pg?.destroy();
  };
  let queue: Promise<unknown> = Promise.resolve();
  port.on("message", (msg: IngestRequest) => {
    const run = () => handle(msg, ready, close).then(reply);
    // A click-limit count is one UPDATE that a visitor waits for: it runs at once, between two of a
    // roll-up's transactions if one is being written, never behind the whole roll-up.
    // A read of held-back groups likewise (a dashboard reader waits for it), and a roll-up runs beside
    // the batches, not in front of them: a batch held up for a whole roll-up would show its clicks late.
    // The writers order what must be ordered (a roll-up takes the groups committed before it).
    if (msg.op === "countLimited" || msg.op === "heldBack" || msg.op === "flushRollups") void run();
    else queue = queue.then(run);
  });
}

async function handle(msg: IngestRequest, ready: Promise<ClickWriter>, close: () => Promise<void>): Promise<IngestReply> {
  let reply: IngestReply;
  try {
    const writer = await ready;
    let value: boolean[] | HeldBack | undefined;
    if (msg.op === "write") {
      const batches = msg.batches.map(receivedBatch);
      if (batches.length === 1) await writer.write(batches[0]!);
      else if (writer.writeMany) await writer.writeMany(batches);
      else throw new Error("this click writer takes one batch at a time");
    } else if (msg.op === "countLimited") {
      if (!writer.countLimited) throw new Error("countLimited runs on the main pool for PostgreSQL");
      value = await writer.countLimited(msg.counts);
    } else if (msg.op === "heldBack") {
      if (!writer.heldBack) throw new Error("roll-ups are not held back in this writer");
      value = await writer.heldBack(msg.linkNums);
    } else if (msg.op === "flushRollups") await writer.flushRollups();
    else if (msg.op === "recover") await writer.recover();
    else if (msg.op === "close") {
      await writer.flushRollups();
      await close();
    }
    reply = { id: msg.id, ok: true, value };
  } catch (err) {
    reply = { id: msg.id, ok: false, error: err instanceof Error ? err.message : String(err), unavailable: isDatabaseUnavailable(err) };
  }
  return reply;
}
