// Writes packages/client/src/schema.ts from the server's route schemas (`npm run client:generate`); with
// --check, writes nothing and fails when the file differs (`npm run typecheck` runs it so).
import { readFileSync, writeFileSync } from "node:fs";
import { SCHEMA_FILE, schemaSource } from "./openapi-schema.js";

const source = await schemaSource();
if (!process.argv.includes("--check")) writeFileSync(SCHEMA_FILE, source);
else if (readFileSync(SCHEMA_FILE, "utf8") !== source) {
  console.error("packages/client/src/schema.ts is stale: the route schemas changed. Run `npm run client:generate`, then `npm run typecheck` again.");
  process.exit(1);
}
