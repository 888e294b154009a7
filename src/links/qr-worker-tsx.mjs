// Development and test entry of the QR worker: loads its TypeScript source through tsx.
import { tsImport } from "tsx/esm/api";

await tsImport("./qr-worker.ts", import.meta.url);
