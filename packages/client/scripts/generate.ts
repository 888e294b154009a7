// Writes packages/client/src/schema.ts from the server's route schemas (`npm run client:generate`).
import { writeFileSync } from "node:fs";
import { SCHEMA_FILE, schemaSource } from "./openapi-schema.js";

writeFileSync(SCHEMA_FILE, await schemaSource());
