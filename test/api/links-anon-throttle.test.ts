// Signed-out creation is open to anyone, so it is bounded per address: SIGNED_OUT_LINKS_PER_HOUR (30 by default) an hour, sliding.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/shared/clock.js";
import { DEFAULT_SIGNED_OUT_PER_HOUR } from "../../src/links/create-link.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ApiClient, signedInClient } from "../helpers/client.js";

let server: TestServer;
const clock = new ManualClock();
beforeAll(async () => {
  server = await startTestServer({ clock });
});
afterAll(async () => server?.close());

it("refuses the 31st signed-out creation from one address within an hour with 429, then frees up", async () => {
  expect(DEFAULT_SIGNED_OUT_PER_HOUR).toBe(30);
  const anon = await new ApiClient(server.url).init();
  // Refused creations do not count.
  expect((await anon.post("/api/links", { url: "javascript:alert(1)" })).status).toBe(400);
  for (let i = 0; i < 30; i++) {
    const r = await anon.post("/api/links", { url: `https://example.com/${i}` });
    expect(r.status).toBe(201);
    clock.advance(1000);
  }
  const limited = await anon.post("/api/links", { url: "https://example.com/31" });
  expect(limited.status).toBe(429);
  expect(limited.body.code).toBe("rate_limited");
  expect(Number(limited.headers.get("retry-after"))).toBe(3600 - 30);
  // A fresh session from the same address is the same visitor.
  const other = await new ApiClient(server.url).init();
  expect((await other.post("/api/links", { url: "https://example.com/x" })).status).toBe(429);
  // Signed-in creation is not affected.
  const user = await signedInClient(server, "anon-throttle@example.com");
  expect((await user.post("/api/links", { url: "https://example.com/signed-in" })).status).toBe(201);
  // The window slides: the first creation leaves it an hour later.
  clock.advance(3600 * 1000 - 30 * 1000 + 1);
  expect((await anon.post("/api/links", { url: "https://example.com/later" })).status).toBe(201);
  expect((await anon.post("/api/links", { url: "https://example.com/later-2" })).status).toBe(429);
});

describe("SIGNED_OUT_LINKS_PER_HOUR", () => {
  let small: TestServer;
  const smallClock = new ManualClock();
  beforeAll(async () => {
    small = await startTestServer({ clock: smallClock, env: { SIGNED_OUT_LINKS_PER_HOUR: "3" } });
  });
  afterAll(async () => small?.close());

  it("sets the number of signed-out creations per address and hour", async () => {
    const anon = await new ApiClient(small.url).init();
    for (let i = 0; i < 3; i++) expect((await anon.post("/api/links", { url: `https://example.com/s${i}` })).status).toBe(201);
    smallClock.advance(60_000);
    const limited = await anon.post("/api/links", { url: "https://example.com/s3" });
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe("rate_limited");
    expect(Number(limited.headers.get("retry-after"))).toBe(3600 - 60);
    smallClock.advance(3600 * 1000 - 60_000);
    expect((await anon.post("/api/links", { url: "https://example.com/s4" })).status).toBe(201);
  });
});
