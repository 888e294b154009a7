// Slow clients (a slowloris): sockets that trickle their headers or body, or idle after an answer, are
// closed by the server's timeouts (HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS), and
// one address holding CONNECTIONS_PER_ADDRESS connections has more closed as they arrive, while other
// clients' redirects (the fast path) and Fastify's routes are answered meanwhile.
import { Agent, request } from "node:http";
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { storedClicks } from "../helpers/links.js";
import { within } from "../helpers/wait.js";
import { addressKey } from "../../src/http/connection-cap.js";

const UA = "Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0";
const TIMED_OUT = '{"status":"error","code":"invalid_request","message":"The request was not received in time"}';

interface Ended {
  /** Everything the server sent before the socket closed. */
  data: string;
  /** From the connect call to the close, in ms. */
  ms: number;
}

interface Slow {
  socket: Socket;
  ended: Promise<Ended>;
}

/**
 * A socket from `localAddress` that sends `head` once connected, then `drip()` every 100 ms until the
 * server closes it (a slowloris: the request never completes).
 */
function slowSocket(port: number, localAddress: string, head: string, drip: (() => string) | null): Slow {
  const t0 = performance.now();
  const socket = connect({ port, host: "127.0.0.1", localAddress });
  let data = "";
  let timer: NodeJS.Timeout | undefined;
  socket.setEncoding("utf8");
  socket.on("data", (d: string) => (data += d));
  // A refused socket may be reset while the client writes: that is its close.
  socket.on("error", () => {});
  socket.once("connect", () => {
    socket.write(head);
    if (drip) timer = setInterval(() => socket.writable && socket.write(drip()), 100);
  });
  const ended = new Promise<Ended>((resolve) =>
    socket.once("close", () => {
      clearInterval(timer);
      resolve({ data, ms: performance.now() - t0 });
    }),
  );
  return { socket, ended };
}

const trickleHeaders = (port: number, from: string, alias: string) => {
  let n = 0;
  return slowSocket(port, from, `GET /${alias} HTTP/1.1\r\nHost: 127.0.0.1\r\n`, () => `X-Slow-${n++}: a\r\n`);
};

/** Resolves once `count` of the sockets have closed, with those closes in the order they came. */
function firstCloses(sockets: Slow[], count: number): Promise<Ended[]> {
  const seen: Ended[] = [];
  return new Promise((resolve) => {
    for (const s of sockets) {
      void s.ended.then((e) => {
        seen.push(e);
        if (seen.length === count) resolve([...seen]);
      });
    }
  });
}

/** `n` GETs of `path` on keep-alive connections from 127.0.0.1; the statuses. */
async function requests(url: string, path: string, n: number): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const one = () =>
    new Promise<number>((resolve, reject) => {
      const req = request(url + path, { agent, headers: { "user-agent": UA } }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      });
      req.on("error", reject);
      req.end();
    });
  try {
    return await Promise.all(Array.from({ length: n }, one));
  } finally {
    agent.destroy();
  }
}

/** One complete request from `localAddress` on a socket of its own; what came back (the socket is then closed by us). */
function answerFrom(port: number, localAddress: string, path: string): Promise<string> {
  return new Promise((resolve) => {
    const s = slowSocket(port, localAddress, `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: ${UA}\r\n\r\n`, null);
    s.socket.on("data", (d: string) => {
      if (d.includes("\r\n\r\n")) s.socket.destroy();
    });
    void s.ended.then((e) => resolve(e.data));
  });
}

async function serverWithLink(env: Record<string, string>): Promise<{ server: TestServer; alias: string; port: number; id: string }> {
  const server = await startTestServer({ env });
  const user = await server.ctx.accounts.create({ email: "slow@example.com", password: "correct horse 1", plan: "pro", verified: true });
  const link = await server.ctx.links.create(user, { url: "https://example.com/slow", alias: "slowlink" });
  // The first visit caches the link: the rest are the fast path's.
  expect(await requests(server.url, "/slowlink", 1)).toEqual([302]);
  return { server, alias: link.alias, port: Number(new URL(server.url).port), id: link.id };
}

describe("a slowloris from one address meets CONNECTIONS_PER_ADDRESS", () => {
  let s: Awaited<ReturnType<typeof serverWithLink>>;
  // Headers may take a minute here: the held sockets stay until the test lets them go.
  beforeAll(async () => (s = await serverWithLink({ CONNECTIONS_PER_ADDRESS: "20", HEADERS_TIMEOUT_MS: "60000" })));
  afterAll(async () => s?.server.close());

  it("holds 20 sockets of 60, closes the other 40 unanswered as they arrive, and answers other clients meanwhile", async () => {
    const slow = Array.from({ length: 60 }, () => trickleHeaders(s.port, "127.0.0.2", s.alias));
    const refused = await firstCloses(slow, 40);
    expect(refused.map((e) => e.data)).toEqual(Array(40).fill(""));

    // The 20 held ones are still trickling: another address is served, by the fast path and by Fastify.
    const statuses = await requests(s.server.url, `/${s.alias}`, 200);
    expect(statuses).toEqual(Array(200).fill(302));
    expect(await requests(s.server.url, "/healthz", 5)).toEqual(Array(5).fill(200));
    expect(await storedClicks(s.server, s.id)).toBe(201);
    // A 61st socket from the slow address, even one with a whole request, is refused while they are held.
    expect(await answerFrom(s.port, "127.0.0.2", `/${s.alias}`)).toBe("");
    expect(slow.filter((x) => !x.socket.destroyed)).toHaveLength(20);

    // Once the slow sockets are gone, the address is served again (the server sees their closes).
    for (const x of slow) x.socket.destroy();
    const after = await within(
      10_000,
      () => answerFrom(s.port, "127.0.0.2", `/${s.alias}`),
      (a) => a !== "",
    );
    expect(after).toMatch(/^HTTP\/1\.1 302 Found\r\n/);
    expect(after).toContain("location: https://example.com/slow\r\n");
  });

  it("groups IPv6 clients by /64 and IPv4-mapped addresses as IPv4", () => {
    expect(addressKey("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:0db8:0001:0002:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:db8::5")).toBe("2001:db8:0:0::/64");
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
    expect(addressKey("::ffff:192.0.2.7")).toBe("192.0.2.7");
    expect(addressKey("192.0.2.7")).toBe("192.0.2.7");
  });
});

describe("slow clients meet the timeouts", () => {
  let s: Awaited<ReturnType<typeof serverWithLink>>;
  const HEADERS_MS = 500;
  const REQUEST_MS = 1_000;
  const KEEP_ALIVE_MS = 500;
  beforeAll(
    async () =>
      (s = await serverWithLink({
        HEADERS_TIMEOUT_MS: String(HEADERS_MS),
        REQUEST_TIMEOUT_MS: String(REQUEST_MS),
        KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_MS),
      })),
  );
  afterAll(async () => s?.server.close());

  it("closes sockets that trickle headers or send nothing at HEADERS_TIMEOUT_MS, with the contract's 400, while redirects are answered", async () => {
    const trickling = Array.from({ length: 100 }, () => trickleHeaders(s.port, "127.0.0.3", s.alias));
    const silent = Array.from({ length: 10 }, () => slowSocket(s.port, "127.0.0.3", "", null));
    const statuses = await requests(s.server.url, `/${s.alias}`, 200);
    expect(statuses).toEqual(Array(200).fill(302));
    for (const e of await Promise.all([...trickling, ...silent].map((x) => x.ended))) {
      expect(e.data).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(e.data.endsWith(`\r\n\r\n${TIMED_OUT}`)).toBe(true);
      expect(e.ms).toBeGreaterThanOrEqual(HEADERS_MS);
    }
    expect(await storedClicks(s.server, s.id)).toBe(201);
  });

  it("closes a socket that trickles its body at REQUEST_TIMEOUT_MS (a Fastify route)", async () => {
    const body = slowSocket(
      s.port,
      "127.0.0.4",
      "POST /report HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\nlink=",
      () => "a",
    );
    const e = await body.ended;
    expect(e.data).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(e.data.endsWith(TIMED_OUT)).toBe(true);
    expect(e.ms).toBeGreaterThanOrEqual(REQUEST_MS);
  });

  it("closes a keep-alive connection idle for KEEP_ALIVE_TIMEOUT_MS after its answer, on the fast path and Fastify's", async () => {
    for (const path of [`/${s.alias}`, "/healthz"]) {
      let answeredAt = 0;
      const idle = slowSocket(s.port, "127.0.0.5", `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: ${UA}\r\n\r\n`, null);
      idle.socket.once("data", () => (answeredAt = performance.now()));
      const e = await idle.ended;
      expect(e.data).toMatch(path === "/healthz" ? /^HTTP\/1\.1 200 OK\r\n/ : /^HTTP\/1\.1 302 Found\r\n/);
      expect(e.data).toContain("keep-alive");
      expect(performance.now() - answeredAt).toBeGreaterThanOrEqual(KEEP_ALIVE_MS);
    }
  });
});

describe("behind a trusted proxy", () => {
  let s: Awaited<ReturnType<typeof serverWithLink>>;
  beforeAll(async () => (s = await serverWithLink({ CONNECTIONS_PER_ADDRESS: "5", TRUST_PROXY: "127.0.0.6", HEADERS_TIMEOUT_MS: "60000" })));
  afterAll(async () => s?.server.close());

  it("does not cap the proxy's own connections (every client shares its address)", async () => {
    const held = Array.from({ length: 12 }, () => trickleHeaders(s.port, "127.0.0.6", s.alias));
    // Each of the 12 sends a whole request once the others are open: all answered, none refused.
    const answers = await Promise.all(Array.from({ length: 12 }, () => answerFrom(s.port, "127.0.0.6", `/${s.alias}`)));
    for (const a of answers) expect(a).toMatch(/^HTTP\/1\.1 302 Found\r\n/);
    expect(held.filter((x) => x.socket.destroyed)).toHaveLength(0);
    for (const x of held) x.socket.destroy();
  });
});
