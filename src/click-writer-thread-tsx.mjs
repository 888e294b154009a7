// Development and test entry of the click writer thread: runs its TypeScript source bundled (shared/dev-worker.mjs).
import { importBundled } from "./shared/dev-worker.mjs";

await importBundled(new URL("./click-writer-thread.ts", import.meta.url));
