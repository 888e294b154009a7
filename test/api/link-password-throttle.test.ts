// A link's password holds against guesses from many addresses: a per-link bound across every address
// (30 wrong in 5 minutes, then 429), exact under concurrent guesses, short, and not for addresses that
// already gave the right password. Addresses come from X-Forwarded-For (TRUST_PROXY = loopback).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/shared/clock.js";
import { LINK_PASSWORD_FAILURES, LINK_PASSWORD_WINDOW_MS, PASSWORD_FAILURES } from "../../src/redirect/resolve-link.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { signedInClient } from "../helpers/client.js";
import { createLink } from "../helpers/links.js";

const RIGHT = "open sesame";

describe.each(ENGINES)("link password guesses from many addresses on %s", (engine) => {
  let server: TestServer;
  const clock = new ManualClock(Date.now());
  let n = 0;
  const address = () => `10.${(++n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
  const guess = (alias: string, password: string, ip: string) =>
    fetch(`${server.url}/${alias}`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": ip, accept: "application/json" },
      body: new URLSearchParams({ password }).toString(),
    }).then(async (r) => ({ status: r.status, retryAfter: r.headers.get("retry-after"), location: r.headers.get("location"), text: await r.text() }));
  let link: (alias: string) => Promise<unknown>;

  beforeAll(async () => {
    server = await startTestServer({ engine, clock, env: { TRUST_PROXY: "127.0.0.1" } });
    const owner = await signedInClient(server, "pw-owner@example.com", "pro");
    link = (alias) => createLink(owner, { url: `https://example.com/${alias}`, alias, password: RIGHT });
  });
  afterAll(async () => server?.close());

  it("30 wrong guesses from 30 addresses, then 429 for a new address (right password too) until the 5-minute window frees a slot", async () => {
    expect([LINK_PASSWORD_FAILURES, LINK_PASSWORD_WINDOW_MS, PASSWORD_FAILURES]).toEqual([30, 300_000, 10]);
    await link("spread");
    for (let i = 0; i < 30; i++) {
      expect((await guess("spread", `guess-${i}`, address())).status).toBe(401);
      clock.advance(1000);
    }
    const locked = await guess("spread", RIGHT, address());
    expect(locked.status).toBe(429);
    expect(JSON.parse(locked.text)).toMatchObject({ status: "error", code: "rate_limited" });
    expect(Number(locked.retryAfter)).toBe(300 - 30);
    // Refused guesses are not checked and take no slot: the lock does not grow while it holds.
    for (let i = 0; i < 5; i++) expect((await guess("spread", `more-${i}`, address())).status).toBe(429);
    // Another link is not affected.
    await link("spread-other");
    expect((await guess("spread-other", RIGHT, address())).status).toBe(302);
    // When the first failure leaves the window, one slot frees: the right password gets through.
    clock.advance(300_000 - 30_000 + 1);
    const open = await guess("spread", RIGHT, address());
    expect(open.status).toBe(302);
    expect(open.location).toBe("https://example.com/spread");
    expect((await guess("spread", "wrong-again", address())).status).toBe(401);
    expect((await guess("spread", "wrong-again", address())).status).toBe(429);
  });

  it("an address that gave the right password in the last day is not locked out; its own limit still applies", async () => {
    await link("known");
    const regular = address();
    expect((await guess("known", RIGHT, regular)).status).toBe(302);
    for (let i = 0; i < 30; i++) expect((await guess("known", `guess-${i}`, address())).status).toBe(401);
    expect((await guess("known", RIGHT, address())).status).toBe(429);
    expect((await guess("known", RIGHT, regular)).status).toBe(302);
    for (let i = 0; i < 10; i++) expect((await guess("known", "typo", regular)).status).toBe(401);
    expect((await guess("known", RIGHT, regular)).status).toBe(429);
  });

  it("concurrent guesses: never more than 30 checked from many addresses, nor 10 from one; the windows count exactly the failures", async () => {
    // A slot is taken before the check and counted after it: of guesses racing for the last slots some may
    // all be refused, never all let through.
    await link("burst");
    const many = await Promise.all(Array.from({ length: 60 }, (_, i) => guess("burst", `burst-${i}`, address())));
    const checked = many.filter((r) => r.status === 401).length;
    expect(many.filter((r) => r.status === 429)).toHaveLength(60 - checked);
    expect(checked).toBeLessThanOrEqual(30);
    for (let i = checked; i < 30; i++) expect((await guess("burst", `after-${i}`, address())).status).toBe(401);
    expect((await guess("burst", RIGHT, address())).status).toBe(429);

    await link("burst-one");
    const one = address();
    const same = await Promise.all(Array.from({ length: 25 }, (_, i) => guess("burst-one", `burst-${i}`, one)));
    const fromOne = same.filter((r) => r.status === 401).length;
    expect(same.filter((r) => r.status === 429)).toHaveLength(25 - fromOne);
    expect(fromOne).toBeLessThanOrEqual(10);
    for (let i = fromOne; i < 10; i++) expect((await guess("burst-one", `after-${i}`, one)).status).toBe(401);
    expect((await guess("burst-one", RIGHT, one)).status).toBe(429);
    // The right password from elsewhere still works: one address used 10 of the link's 30.
    expect((await guess("burst-one", RIGHT, address())).status).toBe(302);
  });
});
