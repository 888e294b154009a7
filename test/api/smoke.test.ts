import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { ApiClient } from "../helpers/client.js";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const { version } = JSON.parse(readFileSync(join(import.meta.dirname, "..", "..", "package.json"), "utf8")) as { version: string };

describe.each(ENGINES)("smoke on %s", (engine) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ engine });
  });
  afterAll(async () => server?.close());

  it("answers healthz with the engine name and the version running", async () => {
    const res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "success", database: engine, version });
  });

  it("signs up and reads the session back", async () => {
    const c = new ApiClient(server.url);
    const r = await c.signup("smoke@example.com");
    expect(r.status).toBe(201);
    expect(r.body.user).toMatchObject({ email: "smoke@example.com", email_verified: false, plan: "free", status: "active" });
    const s = await c.get("/api/auth/session");
    expect(s.body.user.email).toBe("smoke@example.com");
  });
});
