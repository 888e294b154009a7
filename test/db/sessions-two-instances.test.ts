// Two instances on one PostgreSQL database: a session signed out from the session list on A is refused on
// B within a second (B looks every session up in the database; nothing is cached), and so are all of them
// after "sign out everywhere else".
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ApiClient, signedInClient } from "../helpers/client.js";

const SHARED = { SESSION_SECRET: "sessions-two-instances-".padEnd(48, "x") };

function on(server: TestServer, c: ApiClient): ApiClient {
  const copy = new ApiClient(server.url);
  copy.cookie = c.cookie;
  copy.csrf = c.csrf;
  return copy;
}

describe.skipIf(!process.env.TEST_DATABASE_URL)("session revocation across two instances on PostgreSQL", () => {
  let a: TestServer;
  let b: TestServer;

  beforeAll(async () => {
    a = await startTestServer({ engine: "postgres", env: SHARED });
    b = await startTestServer({ databaseUrl: a.databaseUrl, env: SHARED });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it("a session revoked on A is refused on B within a second", async () => {
    const laptop = await signedInClient(a, "two-sessions@example.com");
    const phone = new ApiClient(a.url);
    expect((await phone.login("two-sessions@example.com")).status).toBe(200);
    const phoneOnB = on(b, phone);
    expect((await phoneOnB.get("/api/links")).status).toBe(200);
    const list = await laptop.get("/api/auth/sessions");
    const target = list.body.sessions.find((s: { current: boolean }) => !s.current);
    const started = performance.now();
    expect((await laptop.delete(`/api/auth/sessions/${target.id}`)).status).toBe(200);
    let status = 0;
    while (performance.now() - started < 1000) {
      status = (await phoneOnB.get("/api/links")).status;
      if (status === 401) break;
    }
    expect(status).toBe(401);
    expect(performance.now() - started).toBeLessThan(1000);
    // The laptop's own session goes on, on both.
    expect((await on(b, laptop).get("/api/links")).status).toBe(200);
  });

  it("sign out everywhere else on B ends A's other sessions at once", async () => {
    const one = await signedInClient(a, "everywhere@example.com");
    const two = new ApiClient(a.url);
    await two.login("everywhere@example.com");
    const three = new ApiClient(b.url);
    await three.login("everywhere@example.com");
    expect((await three.post("/api/auth/sessions/revoke-others")).body.revoked).toBe(2);
    expect((await one.get("/api/links")).status).toBe(401);
    expect((await on(b, two).get("/api/links")).status).toBe(401);
    expect((await on(a, three).get("/api/links")).status).toBe(200);
  });
});
