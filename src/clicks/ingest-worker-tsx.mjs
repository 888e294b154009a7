// Development and test entry of the ingest worker: runs its TypeScript source bundled (shared/dev-worker.mjs).
import { importBundled } from "../shared/dev-worker.mjs";

await importBundled(new URL("./ingest-worker.ts", import.meta.url));
