// packages/client/src/schema.ts is what the route schemas say now: the typed client (and the dashboard through
// it) cannot drift from the server. `npm run client:generate` writes it again.
import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { SCHEMA_FILE, schemaSource } from "../../packages/client/scripts/openapi-schema.js";

it("the client's generated types match the server's route schemas", async () => {
  expect(readFileSync(SCHEMA_FILE, "utf8") === (await schemaSource()), "packages/client/src/schema.ts is stale: run `npm run client:generate`").toBe(true);
});
