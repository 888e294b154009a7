// Development and test entry of the QR worker: runs its TypeScript source bundled (shared/dev-worker.mjs).
import { importBundled } from "../shared/dev-worker.mjs";

await importBundled(new URL("./qr-worker.ts", import.meta.url));
