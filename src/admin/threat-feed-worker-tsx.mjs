// Development and test entry of the threat feed parser thread: runs its TypeScript source bundled (shared/dev-worker.mjs).
import { importBundled } from "../shared/dev-worker.mjs";

await importBundled(new URL("./threat-feed-worker.ts", import.meta.url));
