// The HTTP side of the import sources against real loopback servers: addresses checked like webhook
// receivers (a private address or a name resolving to one refused unless allowed, and then connected to as
// checked), Retry-After in seconds and as a date, bounded waits and retries, no redirects, time and size bounds.
import { type IncomingMessage, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSourceFetch } from "../../src/imports/source-http.js";
import { SourceError } from "../../src/imports/source.js";
import { API_SOURCES } from "../../src/imports/sources/index.js";
import { ReceiverCheck } from "../../src/webhooks/receiver-check.js";
import { type RunningFakeSource, startFakeSource } from "../helpers/fake-sources.js";
import { type TestDns, startDns } from "../helpers/webhook-receivers.js";

const check = new ReceiverCheck({ dnsServers: [], allowPrivate: false });

async function failure(p: Promise<unknown>): Promise<SourceError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(SourceError);
  return e as SourceError;
}

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; hits: () => number; close(): Promise<void> }> {
  let hits = 0;
  const server = createServer((req, res) => {
    hits++;
    handler(req, res);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits: () => hits,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

describe("addresses", () => {
  let fake: RunningFakeSource;
  let dns: TestDns;
  beforeAll(async () => {
    fake = await startFakeSource("kutt", { links: 10 });
    dns = await startDns((name) => (name === "private.test" ? ["127.0.0.1"] : []));
  });
  afterAll(async () => {
    await fake.close();
    await dns.close();
  });

  it("a loopback address is refused unless private sources are allowed; nothing reaches it", async () => {
    const http = createSourceFetch({ check, allowPrivate: false });
    const e = await failure(API_SOURCES.kutt({ base_url: fake.baseUrl, token: fake.token }, http).page(null));
    expect(e.transient).toBe(false);
    expect(e.message).toBe(`the source address ${fake.baseUrl}/api/v2/links is refused: is a loopback address`);
    expect(fake.requests.length).toBe(0);
  });

  it("a name resolving to loopback is refused too; allowed, the request goes to the checked address", async () => {
    const named = new ReceiverCheck({ dnsServers: [dns.server], allowPrivate: false });
    const base = `http://private.test:${fake.port}`;
    const refused = await failure(API_SOURCES.kutt({ base_url: base, token: fake.token }, createSourceFetch({ check: named, allowPrivate: false })).page(null));
    expect(refused.message).toBe(`the source address ${base}/api/v2/links is refused: private.test resolves to a loopback address (127.0.0.1)`);
    expect(fake.requests.length).toBe(0);
    // The system resolver does not know private.test: the answer can only come through the pinned lookup.
    const http = createSourceFetch({ check: named, allowPrivate: true });
    const page = await API_SOURCES.kutt({ base_url: base, token: fake.token }, http).page(null);
    expect(page.links.length).toBe(10);
    expect(fake.requests[0]?.headers.host).toBe(`private.test:${fake.port}`);
    await http.close();
  });

  it("user names, passwords and other schemes are refused; webhooks still take https only", async () => {
    const http = createSourceFetch({ check, allowPrivate: true });
    const withUser = await failure(http.json(`http://user:secret@127.0.0.1:${fake.port}/api/v2/links`));
    expect(withUser.message).toBe(`the source address http://127.0.0.1:${fake.port}/api/v2/links is refused: must not contain a user name or password`);
    expect((await failure(http.json("ftp://127.0.0.1/x"))).message).toContain("must use http:// or https://");
    await expect(check.check(`http://127.0.0.1:${fake.port}/`, "custom")).rejects.toThrow("must use https://");
    await expect(check.check("https://127.0.0.1/", "custom", { allowPrivate: true })).resolves.toMatchObject({ address: "127.0.0.1" });
  });
});

describe("rate limits", () => {
  let fake: RunningFakeSource;
  beforeAll(async () => {
    fake = await startFakeSource("shlink", { links: 300 });
  });
  afterAll(() => fake.close());
  const src = (sleep?: (ms: number) => Promise<void>, now?: () => number) =>
    API_SOURCES.shlink(
      { base_url: fake.baseUrl, token: fake.token },
      createSourceFetch({ check, allowPrivate: true, ...(sleep ? { sleep } : {}), ...(now ? { now } : {}) }),
    );
  const cursor = JSON.stringify({ p: 2 });

  it("Retry-After as an HTTP date, on a 503, is waited for until that time", async () => {
    const now = Date.UTC(2025, 5, 1, 12, 0, 0);
    fake.rateLimitOnce(2, new Date(now + 3_000).toUTCString(), 503);
    const waits: number[] = [];
    const page = await src(
      async (ms) => void waits.push(ms),
      () => now,
    ).page(cursor);
    expect(waits).toEqual([3_000]);
    expect(page.links[0]?.alias).toBe("s100");
  });

  it("a wait longer than maxRetryWaitMs ends the read as transient, without waiting", async () => {
    fake.rateLimitOnce(2, "3600");
    const waits: number[] = [];
    const e = await failure(src(async (ms) => void waits.push(ms)).page(cursor));
    expect(e).toMatchObject({
      transient: true,
      message: `${fake.baseUrl}/rest/v3/short-urls asks to wait 3600 s before the next request (rate limited); try again later`,
    });
    expect(waits).toEqual([]);
  });

  it("at most 5 retries; a 429 without Retry-After backs off 1, 2, 4 ... s", async () => {
    fake.requests.length = 0;
    fake.rateLimitOnce(2, "2");
    const waits: number[] = [];
    const e = await failure(
      src(async (ms) => {
        waits.push(ms);
        fake.rateLimitOnce(2, "2");
      }).page(cursor),
    );
    expect(e.message).toBe(`${fake.baseUrl}/rest/v3/short-urls still answered 429 (busy or rate limited) after 5 retries; try again later`);
    expect(waits).toEqual([2000, 2000, 2000, 2000, 2000]);
    expect(fake.requestsOf("links").length).toBe(6);
    fake.rateLimitOnce(2, "");
    const backoff: number[] = [];
    await src(async (ms) => {
      backoff.push(ms);
      if (backoff.length < 3) fake.rateLimitOnce(2, "soon");
    }).page(cursor);
    expect(backoff).toEqual([1000, 2000, 4000]);
  });
});

describe("answers", () => {
  it("a redirect is not followed", async () => {
    const target = await serve((_req, res) => res.end("{}"));
    const s = await serve((_req, res) => res.writeHead(302, { location: `${target.url}/elsewhere?signature=abc` }).end());
    try {
      const e = await failure(createSourceFetch({ check, allowPrivate: true }).json(`${s.url}/yourls-api.php?signature=abc`));
      expect(e).toMatchObject({
        transient: false,
        message: `${s.url}/yourls-api.php answered 302 (a redirect to ${target.url}, not followed): check the base address`,
      });
      expect(target.hits()).toBe(0);
    } finally {
      await s.close();
      await target.close();
    }
  });

  it("an answer larger than maxBytes is refused", async () => {
    const s = await serve((_req, res) => res.end(JSON.stringify({ data: "x".repeat(5000) })));
    try {
      const e = await failure(createSourceFetch({ check, allowPrivate: true, maxBytes: 4096 }).json(`${s.url}/big`));
      expect(e).toMatchObject({ transient: false, message: `${s.url}/big answered more than 4096 bytes; the answer was not read` });
      expect(await createSourceFetch({ check, allowPrivate: true, maxBytes: 6000 }).json(`${s.url}/big`)).toMatchObject({ data: expect.any(String) });
    } finally {
      await s.close();
    }
  });

  it("a source that does not answer in time is a transient error", async () => {
    const s = await serve(() => undefined);
    try {
      const started = performance.now();
      const e = await failure(createSourceFetch({ check, allowPrivate: true, timeoutMs: 300 }).json(`${s.url}/slow?signature=abc`));
      expect(e).toMatchObject({ transient: true, message: `${s.url}/slow did not answer within 0.3 s` });
      expect(performance.now() - started).toBeLessThan(2_000);
    } finally {
      await s.close();
    }
  });

  it("other 4xx are final, 5xx and refused connections transient; no message quotes the query or the body", async () => {
    const s = await serve((req, res) => res.writeHead(Number(req.url?.slice(1, 4))).end('{"echo":"abc"}'));
    const http = createSourceFetch({ check, allowPrivate: true });
    try {
      expect(await failure(http.json(`${s.url}/404?signature=abc`))).toMatchObject({ transient: false, message: `${s.url}/404 answered 404` });
      expect(await failure(http.json(`${s.url}/502?signature=abc`))).toMatchObject({
        transient: true,
        message: `${s.url}/502 answered 502 (server error); try again later`,
      });
      expect(await failure(http.json(`${s.url}/403?signature=abc`))).toMatchObject({ transient: false });
    } finally {
      await s.close();
    }
    await http.close();
    const gone = await failure(createSourceFetch({ check, allowPrivate: true }).json(`${s.url}/x?signature=abc`));
    expect(gone).toMatchObject({ transient: true, message: `could not reach ${s.url}/x (connection refused)` });
  });
});
