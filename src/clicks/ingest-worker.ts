// Worker thread that writes clicks to SQLite on a connection of its own, so the batches and roll-ups
// never block the event loop that answers redirects. Messages are handled one at a time, in order.
import { parentPort, workerData } from "node:worker_threads";
import maxmind, { type CountryResponse } from "maxmind";
import { openSqliteFile } from "../storage/db.js";
import { CountryResolver } from "./describe.js";
import { SqliteClickWriter } from "./click-writers.js";
import type { IngestReply, IngestRequest, IngestSetup } from "./worker-writer.js";

const setup = workerData as IngestSetup;
const port = parentPort;
if (!port) throw new Error("ingest-worker must run as a worker thread");

const handle = openSqliteFile(setup.file);
const ready = (async () => {
  const geoip = setup.geoipDb ? await maxmind.open<CountryResponse>(setup.geoipDb) : null;
  return new SqliteClickWriter(async (fn) => fn(), handle, new CountryResolver(geoip));
})();

let queue: Promise<unknown> = Promise.resolve();
port.on("message", (msg: IngestRequest) => {
  queue = queue.then(async () => {
    let reply: IngestReply;
    try {
      const writer = await ready;
      let value: boolean | undefined;
      if (msg.op === "write") await writer.write(msg.inputs);
      else if (msg.op === "countLimited") value = await writer.countLimited(msg.linkId, msg.maxClicks);
      else if (msg.op === "flushRollups") await writer.flushRollups();
      else if (msg.op === "recover") await writer.recover();
      else if (msg.op === "close") {
        await writer.flushRollups();
        handle.close();
      }
      reply = { id: msg.id, ok: true, value };
    } catch (err) {
      reply = { id: msg.id, ok: false, error: err instanceof Error ? err.message : String(err) };
    }
    port.postMessage(reply);
  });
});
