// Property-based fuzzing of every route in app.routeList (routes added later included), on both engines:
// generated hostile path parameters, querystrings, bodies and content types, signed in (with CSRF) and
// signed out. Every answer must be inside the contract (no 5xx, docs/api.md's error body with a known code, the
// security headers), a refused request must leave every table's row count as it was, nothing accepted may
// store a control character or a lone surrogate, and nothing a client sends may be logged as a server error.
// Seeded: SNIP_FUZZ_SEED replays a run (the seed is printed); SNIP_FUZZ_RUNS sets the cases per route
// (default 24: about a minute for both engines; docs/testing.md shows a longer run).
import http from "node:http";
import pino from "pino";
import fc from "fast-check";
import { Value } from "typebox/value";
import type { TSchema } from "typebox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RouteInfo } from "../../src/http/app.js";
import { prefersJson } from "../../src/http/pages.js";
import { ENGINES } from "../helpers/engines.js";
import { signedInClient, ApiClient } from "../helpers/client.js";
import { createLink } from "../helpers/links.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { concretePath, contractViolation, paramNames, rowCounts, routesOf, storedControlText } from "../helpers/routes.js";

const SEED = process.env.SNIP_FUZZ_SEED ? Number(process.env.SNIP_FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
const RUNS = Number(process.env.SNIP_FUZZ_RUNS ?? 24);
const PASSWORD = "correct horse 1";

// ---- generators ------------------------------------------------------------------------------

/** Characters that break things: controls, C1, lone surrogates, separators, a pair, path and escape characters;
 * NUL (what PostgreSQL cannot store) one time in four. */
const nasty = fc.oneof({ weight: 1, arbitrary: fc.constant("\u0000") }, { weight: 3, arbitrary: nastyOther() });
function nastyOther() {
  return fc.constantFrom(
    "\u0000",
    "\u0001",
    "\t",
    "\n",
    "\r",
    "\u001b",
    "\u007f",
    "\u0085",
    "\u009f",
    "\ud800",
    "\udbff",
    "\udc00",
    "\udfff",
    "\u2028",
    "\ufeff",
    "\ufffe",
    "😀",
    "%",
    "/",
    ".",
    "\\",
    "'",
    '"',
    "<",
    "a",
    "Z",
    "0",
    "-",
    "_",
    " ",
    "é",
  );
}

const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: nasty, maxLength: 24 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 16 }),
  fc.constantFrom(
    "",
    " ",
    "a".repeat(300),
    "é".repeat(70_000),
    "\u0000".repeat(4096),
    "../../../../etc/passwd",
    "__proto__",
    "constructor",
    "prototype",
    "%00",
    "' OR '1'='1' --",
    "<script>alert(1)</script>",
    "javascript:alert(1)",
    "https://example.com/\u0000",
    "https://example.com/ok",
    "a@x.test",
    "a\u0000@x.test",
    "9999-12-31",
    "0000-00-00",
    "2026-02-30",
    "null",
  ),
);

const hostileNumber = fc.oneof(
  fc.constantFrom(
    0,
    -0,
    -1,
    0.5,
    1e21,
    1e308,
    -1e308,
    2 ** 31,
    2 ** 31 - 1,
    -(2 ** 31) - 1,
    2 ** 53,
    2 ** 53 + 2,
    2 ** 63,
    -(2 ** 63),
    Number.MIN_VALUE,
    127,
    128,
    2048,
    2049,
  ),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);

/** A JSON text nested `depth` levels deep (text, since stringifying it would overflow the test's own stack). */
const deepText = (depth: number): string => '[{"a":'.repeat(depth / 2) + '"x"' + "}]".repeat(depth / 2);

const hostileJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  { weight: 2, arbitrary: hostileNumber },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}) },
  { weight: 1, arbitrary: fc.dictionary(hostileString, hostileString, { maxKeys: 4 }) },
  { weight: 1, arbitrary: fc.array(hostileString, { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.constantFrom(34, 40).map((d) => JSON.parse(deepText(d)) as unknown) },
);

/** Raw JSON texts JSON.stringify cannot produce: prototype keys, huge literals, broken syntax, BOMs. */
const rawJsonText = fc.constantFrom(
  '{"__proto__":{"admin":true}}',
  '{"constructor":{"prototype":{"admin":true}}}',
  '{"url":"https://example.com/","__proto__":{"x":1}}',
  '{"max_clicks":1e400}',
  '{"max_clicks":123456789012345678901234567890}',
  '{"limit":-1e-400}',
  '{"name":"\\ud800"}',
  '{"email":"a\\u0000@x.test","password":"correct horse 1"}',
  "{",
  '{"a":1,}',
  "\ufeff{}",
  "[".repeat(100_000) + "]".repeat(100_000),
  deepText(200),
  deepText(5000),
  `{"url":"https://example.com/","alias":${deepText(3000)}}`,
  "",
  "null",
  "\u0000",
);

/** Path segments: raw bad percent-encoding, dot segments, or a hostile string percent-encoded (lone surrogates as CESU-8 bytes). */
function encodeSegment(s: string): string {
  let out = "";
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c >= 0xd800 && c <= 0xdfff) out += `%${(0xe0 | (c >> 12)).toString(16)}%${(0x80 | ((c >> 6) & 0x3f)).toString(16)}%${(0x80 | (c & 0x3f)).toString(16)}`;
    else out += encodeURIComponent(ch);
  }
  return out;
}
const rawSegment = fc.constantFrom(
  "%",
  "%%",
  "%c0",
  "%c0%af",
  "%zz",
  "%ED%A0%80",
  "%ff%fe",
  "%00",
  "a%",
  "..",
  "..%2f..%2f",
  "%2e%2e",
  "%2F",
  ".hidden",
  "x".repeat(250),
  "%E2%80%A8",
);
const hostileSegment = fc.oneof(hostileString.filter((s) => s.length > 0).map(encodeSegment), rawSegment);

/** A value the field would accept, by its name (fields of routes added later get a short word). */
function plausible(field: string, n: number): string {
  if (/email/.test(field)) return `fz${n}@example.com`;
  if (/password/.test(field)) return "correct horse 1";
  if (/url/.test(field)) return field === "urls" ? `https://example.com/${n}\nhttps://example.org/${n}` : `https://example.com/${n}`;
  if (/alias/.test(field)) return `fz${n}`;
  if (/host|domain/.test(field)) return `fz${n}.example.com`;
  if (/token/.test(field)) return "t".repeat(43);
  return `fz${n}`;
}

interface Case {
  route: RouteInfo;
  /** Mostly the route's own method; sometimes another one, or one no route has. */
  method: string;
  signedIn: boolean;
  params: Record<string, { fixture: boolean; raw: string }>;
  query: string;
  body: { type: string | null; text: string } | null;
  bearer: "none" | "valid" | "hostile";
  /** Headers that reach the code (and, for a click, storage), with hostile values Node lets through. */
  headers: Record<string, string>;
}

const sendable = (v: string): boolean => {
  try {
    http.validateHeaderValue("x", v);
    return true;
  } catch {
    return false;
  }
};
const hostileHeaders = fc.dictionary(
  fc.constantFrom(
    "user-agent",
    "referer",
    "host",
    "cookie",
    "x-csrf-token",
    "accept",
    "x-forwarded-for",
    "cf-ipcountry",
    "accept-language",
    "range",
    "if-none-match",
  ),
  fc
    .oneof(
      hostileString,
      fc.constantFrom(
        "snip_sid=" + "A".repeat(43),
        "bytes=999999999-",
        "bytes=5-1",
        "*/*",
        "text/html",
        "XX",
        "T1",
        "::1",
        "999.1.1.1",
        "http://[::1",
        "\u00ff\u00fe".repeat(10),
      ),
    )
    .filter(sendable),
  { maxKeys: 3 },
);

function caseFor(route: RouteInfo): fc.Arbitrary<Case> {
  const schema = (route.schema ?? {}) as { body?: TSchema; querystring?: { properties?: Record<string, unknown> } };
  const params = fc.record(
    Object.fromEntries(paramNames(route.url).map((p) => [p, fc.record({ fixture: fc.boolean(), raw: hostileSegment })])),
  ) as fc.Arbitrary<Case["params"]>;
  const knownKeys = Object.keys(schema.querystring?.properties ?? {});
  const queryKey = knownKeys.length ? fc.oneof(fc.constantFrom(...knownKeys), hostileString) : hostileString;
  const queryValue = fc.oneof(hostileString.map(encodeSegment), rawSegment, hostileNumber.map(String));
  const query = fc.oneof(
    fc.constant(""),
    fc.array(fc.tuple(queryKey, queryValue), { minLength: 1, maxLength: 4 }).map((kv) => "?" + kv.map(([k, v]) => `${encodeSegment(k)}=${v}`).join("&")),
    rawSegment.map((s) => `?${s}`),
  );
  const valid = schema.body ? (Value.Create(schema.body) as Record<string, unknown>) : {};
  const fields = Object.keys((schema.body as { properties?: object } | undefined)?.properties ?? {});
  const fieldKey = fields.length ? fc.oneof(fc.constantFrom(...fields), hostileString) : hostileString;
  // Fields replaced by hostile values: mostly refused by the schema or the feature.
  const mutated = fc.dictionary(fieldKey, hostileJson, { minKeys: 1, maxKeys: 3 }).map((m) => JSON.stringify({ ...valid, ...m }));
  // A plausible body with one nasty character slipped into one field: what gets past a schema and reaches storage.
  const slipped = fields.length
    ? fc.tuple(fc.nat(), fc.constantFrom(...fields), nasty, fc.nat()).map(([n, field, ch, at]) => {
        const body: Record<string, unknown> = { ...valid };
        for (const f of fields) if (typeof body[f] === "string" || body[f] === undefined) body[f] = plausible(f, n);
        const v = String(body[field]);
        body[field] = v.slice(0, at % (v.length + 1)) + ch + v.slice(at % (v.length + 1));
        return JSON.stringify(body);
      })
    : mutated;
  const jsonText = fc.oneof(
    { weight: 2, arbitrary: mutated },
    { weight: 2, arbitrary: slipped },
    { weight: 1, arbitrary: hostileJson.map((v) => JSON.stringify(v) ?? "null") },
    { weight: 1, arbitrary: rawJsonText },
  );
  const body = fc.oneof(
    { weight: 1, arbitrary: fc.constant(null) },
    { weight: 6, arbitrary: jsonText.map((text) => ({ type: "application/json", text })) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.constantFrom("text/plain", "application/x-www-form-urlencoded", "application/json; charset=latin1", "image/png", "multipart/form-data"),
          jsonText,
        )
        .map(([type, text]) => ({ type, text })),
    },
    { weight: 1, arbitrary: fc.constant({ type: "application/json", text: JSON.stringify({ ...valid, pad: "x".repeat(1024 * 1024 + 10) }) }) },
  );
  return fc.record({
    route: fc.constant(route),
    method: fc.oneof(
      { weight: 9, arbitrary: fc.constant(route.method) },
      { weight: 1, arbitrary: fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "PROPFIND") },
    ),
    signedIn: fc.boolean(),
    params,
    query,
    body: route.method === "GET" || route.method === "HEAD" ? fc.constant(null) : body,
    bearer: fc.constantFrom("none", "valid", "hostile"),
    headers: fc.oneof(fc.constant({}), hostileHeaders),
  });
}

// ---- the run ---------------------------------------------------------------------------------

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

function headersOf(res: http.IncomingMessage): Headers {
  const h = new Headers();
  for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h.set(k, [v].flat().join(", "));
  return h;
}

/** node:http, so the path goes out exactly as generated (fetch would normalise dot segments and escapes). */
function send(
  server: TestServer,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: string | null,
): Promise<{ status: number; headers: Headers; text: string }> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: { ...headers, ...(body !== null ? { "content-length": String(Buffer.byteLength(body)) } : {}) },
      },
      (res) => {
        // A live feed never ends by itself: its answer is its status and headers, and the stream is left at once.
        if (String(res.headers["content-type"]).startsWith("text/event-stream")) {
          resolve({ status: res.statusCode ?? 0, headers: headersOf(res), text: "" });
          req.destroy();
          return;
        }
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: headersOf(res), text: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body ?? undefined);
  });
}

describe.each(ENGINES)("fuzzing every route on %s", (engine) => {
  let server: TestServer;
  let a: ApiClient;
  let anon: ApiClient;
  let key: string;
  let keyId: string;
  let link: { id: string; alias: string };
  let addr = 0;
  const errorLines: string[] = [];

  const email = "fuzz-a@example.com";
  /** Sign A in again and restore what a successful fuzzed request may have changed (session, plan, fixtures). */
  async function restore(): Promise<void> {
    await server.ctx.accounts.setPlan(email, "enterprise");
    await server.ctx.accounts.setStatus(email, "active");
    if ((await a.get("/api/profile")).status !== 200) {
      a = new ApiClient(server.url);
      await a.init();
      const r = await a.login(email, PASSWORD);
      if (r.status !== 200) throw new Error(`re-login failed: ${r.status} ${r.text}`);
    }
    if ((await a.get(`/api/links/${link.id}`)).status !== 200)
      link = await createLink(a, { url: "https://example.com/fuzz", alias: `fuzz-${Date.now().toString(36)}` });
    const keys = (await a.get("/api/keys")).body.keys as Array<{ id: string; revoked_at: string | null }>;
    if (!keys.some((k) => k.id === keyId && k.revoked_at === null)) {
      const k = (await a.post("/api/keys", { name: "fuzz" })).body;
      key = k.secret;
      keyId = k.key.id;
    }
  }

  beforeAll(async () => {
    const log = pino({ level: "warn" }, { write: (line: string) => void (JSON.parse(line).level >= 50 && errorLines.push(line)) });
    // Each case comes from an address of its own (X-Forwarded-For), so per-address throttles do not end the run early.
    // DNS goes to a closed local port: routes that look names up (custom domains) fail fast, never reach the internet.
    server = await startTestServer({ engine, log, env: { TRUST_PROXY: "127.0.0.1", DNS_SERVERS: "127.0.0.1:9" } });
    a = await signedInClient(server, email, "enterprise", PASSWORD);
    anon = await new ApiClient(server.url).init();
    const k = (await a.post("/api/keys", { name: "fuzz" })).body;
    key = k.secret;
    keyId = k.key.id;
    link = await createLink(a, { url: "https://example.com/fuzz", alias: "fuzz-fixture" });
  });
  afterAll(async () => server?.close());

  it(
    `answers every generated request inside the contract, writing nothing when it refuses (seed ${SEED}, ${RUNS} cases per route)`,
    async () => {
      console.log(`fuzz on ${engine}: SNIP_FUZZ_SEED=${SEED} SNIP_FUZZ_RUNS=${RUNS}`);
      const routes = routesOf(server);
      const started = Date.now();
      let cases = 0;
      let counts = await rowCounts(server);
      const statuses: Record<string, number> = {};
      for (const [i, route] of routes.entries()) {
        await fc.assert(
          fc.asyncProperty(caseFor(route), async (c) => {
            const client = c.signedIn ? a : anon;
            const fixtures: Record<string, string> = { id: link.id, alias: link.alias, user_id: "x", owner_id: "x", "*": "x" };
            const values = Object.fromEntries(Object.entries(c.params).map(([p, v]) => [p, v.fixture && fixtures[p] ? fixtures[p] : v.raw]));
            const path = concretePath(c.route.url, values) + c.query;
            const headers: Record<string, string> = { accept: "application/json", "x-forwarded-for": `198.51.${(addr >> 8) & 255}.${addr++ & 255}` };
            if (client.cookie) headers.cookie = client.cookie;
            if (client.csrf && c.method !== "GET") headers["x-csrf-token"] = client.csrf;
            if (c.bearer === "valid") headers.authorization = `Bearer ${key}`;
            if (c.bearer === "hostile") headers.authorization = "Bearer snip_" + "\u00ff".repeat(43);
            if (c.body?.type) headers["content-type"] = c.body.type;
            Object.assign(headers, c.headers);
            const body = c.method === "GET" || c.method === "HEAD" || c.method === "TRACE" ? null : (c.body?.text ?? null);
            const res = await send(server, c.method, path, headers, body);
            cases++;
            statuses[res.status] = (statuses[res.status] ?? 0) + 1;
            const what = `${c.method} ${path.slice(0, 300)} ${c.signedIn ? "signed in" : "signed out"} body=${JSON.stringify(c.body?.text.slice(0, 200) ?? null)}`;
            const htmlAllowed = !path.startsWith("/api/") && !prefersJson(headers.accept);
            const violation = contractViolation(res, c.method, htmlAllowed);
            if (violation) throw new Error(`${what}: ${violation}`);
            if (res.status >= 400) {
              const after = await rowCounts(server);
              expect(after, `${what} -> ${res.status} ${res.text.slice(0, 200)} changed rows`).toEqual(counts);
            } else {
              if (c.method !== "GET" && c.method !== "HEAD") await restore();
              counts = await rowCounts(server);
            }
            expect(errorLines, what).toEqual([]);
          }),
          { seed: SEED + i, numRuns: RUNS, endOnFailure: true },
        );
      }
      console.log(
        `fuzz on ${engine}: ${cases} cases over ${routes.length} routes in ${((Date.now() - started) / 1000).toFixed(1)} s; statuses ${JSON.stringify(statuses)}`,
      );
      // Whatever was accepted stored no control character or lone surrogate (SQLite would keep a NUL), clicks included.
      await server.ctx.clicks.flush();
      expect(await storedControlText(server)).toEqual([]);
      expect(cases).toBe(routes.length * RUNS);
      expect(routes.length).toBeGreaterThanOrEqual(20);
    },
    60_000 + RUNS * 5_000,
  );
});
