// The click writer thread's entry (CLICK_WRITER=worker): the ingest worker served with the same "stored"
// listeners as the main thread's writers (click-listeners.ts), which a thread is not sent but imports.
import { runIngestWorker } from "./clicks/ingest-worker.js";
import { STORED_LISTENERS } from "./click-listeners.js";

runIngestWorker(STORED_LISTENERS);
