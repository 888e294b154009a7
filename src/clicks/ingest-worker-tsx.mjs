// Development and test entry of the ingest worker: loads its TypeScript source through tsx.
import { tsImport } from "tsx/esm/api";

await tsImport("./ingest-worker.ts", import.meta.url);
