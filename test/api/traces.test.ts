// OpenTelemetry traces (docs/operations.md, Traces) from `snip serve` as a real process (the SDK patches
// modules as the process loads them) to an OTLP/HTTP receiver on loopback: request spans named after their
// route, database queries their children on both engines, the fast path's sampled redirects, a caller's
// trace context, webhook deliveries and SMTP sends; and with no endpoint set, no OpenTelemetry module at all.
import { randomBytes } from "node:crypto";
import { request } from "node:http";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient } from "../helpers/client.js";
import { snip } from "../helpers/cli.js";
import { ENGINES, type TestDatabase, createTestDatabase } from "../helpers/engines.js";
import { startSmtpServer } from "../helpers/mail.js";
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from "../helpers/otlp-receiver.js";
import { type Serve, spawnServe } from "../helpers/serve.js";
import { waitFor } from "../helpers/wait.js";
import { type Receiver, type TestCa, makeTestCa, startReceiver } from "../helpers/webhook-receivers.js";

const SECRET = "traces-test-secret-0123456789abcdef";
const EMAIL = "traces@example.com";
const WATCH = join(import.meta.dirname, "..", "helpers", "module-watch.mjs");
const SERVER = 2;
const CLIENT = 3;
const INTERNAL = 1;

async function stop(s: Serve | undefined): Promise<void> {
  if (!s || s.child.exitCode !== null) return;
  s.child.kill("SIGTERM");
  expect(await s.exited).toBe(0);
}

/** A user made by the CLI, as an operator would: `snip user create`. */
function makeUser(env: Record<string, string>, email = EMAIL): void {
  const made = snip(["user", "create", "--email", email, "--password", "correct horse 1", "--plan", "business", "--verified"], env);
  expect(made.code, made.stderr).toBe(0);
}

/** A JSON POST whose body comes `delayMs` after its headers, as from a slow client: read on a later turn. */
function slowPost(url: string, headers: Record<string, string>, body: string, delayMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: "POST", headers: { ...headers, "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) } },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.flushHeaders();
    setTimeout(() => req.end(body), delayMs);
  });
}

describe.each(ENGINES)("traces on %s", { timeout: 180_000 }, (engine) => {
  let rx: OtlpReceiver;
  let ca: TestCa;
  let hooks: Receiver;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let db: TestDatabase;
  let s: Serve | undefined;
  let c: ApiClient;
  const dataDir = mkdtempSync(join(tmpdir(), "snip-traces-"));
  const moduleLog = join(dataDir, "modules.log");
  const alias = `traced-${engine}`;
  const dbQuery = (q: ReceivedSpan) => (engine === "sqlite" ? /^sqlite\.query:[A-Z]+$/ : /^pg\.query:[A-Z]+ snip_t_/).test(q.name);

  beforeAll(async () => {
    ca = makeTestCa();
    [rx, hooks, smtp, db] = await Promise.all([startOtlpReceiver(), startReceiver(ca), startSmtpServer(), createTestDatabase(engine)]);
    const env: Record<string, string> = { DATA_DIR: dataDir, SESSION_SECRET: SECRET, ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}) };
    makeUser(env);
    s = await spawnServe(
      {
        ...env,
        OTEL_EXPORTER_OTLP_ENDPOINT: rx.endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_BSP_SCHEDULE_DELAY: "50",
        OTEL_REDIRECT_SAMPLE_RATIO: "1",
        WEBHOOK_ALLOW_PRIVATE: "true",
        NODE_EXTRA_CA_CERTS: ca.caFile,
        SMTP_URL: smtp.url,
        MODULE_WATCH_LOG: moduleLog,
      },
      [WATCH],
    );
    c = new ApiClient(s.url);
    expect((await c.login(EMAIL)).status).toBe(200);
  });

  afterAll(async () => {
    await stop(s);
    await Promise.all([rx?.close(), hooks?.close(), smtp?.close(), db?.drop()]);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("a dashboard API call: a server span named after its route, its database queries children inside it", async () => {
    expect((await c.get("/api/links")).status).toBe(200);
    const server = await rx.span((x) => x.name === "GET /api/links", "the span of GET /api/links");
    expect(server).toMatchObject({ kind: SERVER, parentSpanId: "", status: 0, service: "snip", scope: "snip" });
    expect(server.attributes).toMatchObject({
      "http.request.method": "GET",
      "http.route": "/api/links",
      "url.path": "/api/links",
      "url.scheme": "http",
      "http.response.status_code": 200,
    });
    expect(server.attributes["client.address"]).toBeUndefined();

    const query = await rx.span(
      (q) => q.parentSpanId === server.spanId && dbQuery(q) && String(q.attributes["db.query.text"]).includes('from "links"'),
      "the links query",
    );
    expect(query.traceId).toBe(server.traceId);
    expect(query.kind).toBe(CLIENT);
    expect(query.attributes["db.system.name"]).toBe(engine === "sqlite" ? "sqlite" : "postgresql");
    // The statement as sent, with placeholders (never the values).
    expect(query.attributes["db.query.text"]).toMatch(engine === "sqlite" ? /owner_id"? = \?/ : /owner_id"? = \$1/);
    expect(query.startNs >= server.startNs && query.endNs <= server.endNs).toBe(true);
  });

  it("a POST with a body: the queries run after the body was read are children of its span; a parameter route keeps its template", async () => {
    const made = await c.post("/api/links", { url: "https://example.com/traced", alias });
    expect(made.status, made.text).toBe(201);
    const post = await rx.span((x) => x.name === "POST /api/links" && x.attributes["http.response.status_code"] === 201, "the span of POST /api/links");
    const insert = await rx.span((q) => q.parentSpanId === post.spanId && /^insert into "links"/.test(String(q.attributes["db.query.text"])), "the insert");
    expect(insert.name).toMatch(engine === "sqlite" ? /^sqlite\.query:INSERT$/ : /^pg\.query:INSERT snip_t_/);

    const slow = await slowPost(
      `${s?.url}/api/links`,
      { cookie: c.cookie ?? "", "x-csrf-token": c.csrf ?? "" },
      JSON.stringify({ url: "https://example.com/slow", alias: `${alias}-slow` }),
      150,
    );
    expect(slow).toBe(201);
    const posts = await waitFor(
      () => {
        const all = rx.spans.filter((x) => x.name === "POST /api/links" && x.attributes["http.response.status_code"] === 201);
        return all.length === 2 ? all : null;
      },
      { what: "both POST spans" },
    );
    const inserts = await waitFor(
      () => {
        const all = rx.spans.filter((q) => /^insert into "links"/.test(String(q.attributes["db.query.text"])));
        return all.length === 2 ? all : null;
      },
      { what: "both inserts" },
    );
    expect(inserts.map((q) => q.parentSpanId).sort()).toEqual(posts.map((p) => p.spanId).sort());

    const id = made.body.link.id as string;
    expect((await c.get(`/api/links/${id}`)).status).toBe(200);
    const one = await rx.span((x) => x.attributes["url.path"] === `/api/links/${id}`, "the span of GET /api/links/:id");
    expect(one.name).toBe("GET /api/links/:id");
    expect(one.attributes["http.route"]).toBe("/api/links/:id");

    expect((await c.get("/api/no-such-thing")).status).toBe(404);
    const missing = await rx.span((x) => x.attributes["url.path"] === "/api/no-such-thing", "the span of a 404");
    expect(missing.name).toBe("GET");
    expect(missing.attributes["http.route"]).toBeUndefined();
    expect(missing.attributes["http.response.status_code"]).toBe(404);
  });

  it("a redirect answered by the fast path: a server span of its own at OTEL_REDIRECT_SAMPLE_RATIO=1", async () => {
    // The first visit may go through the router (the link is cached then): visit until the fast path answered one.
    const fast = await waitFor(
      async () => {
        const r = await fetch(`${s?.url}/${alias}`, { redirect: "manual" });
        expect(r.status).toBe(302);
        await new Promise((resolve) => setTimeout(resolve, 100));
        return rx.spans.find((x) => x.attributes["snip.fast_path"] === true && x.attributes["url.path"] === `/${alias}`);
      },
      { what: "a fast-path redirect's span" },
    );
    expect(fast).toMatchObject({ name: "GET /:alias", kind: SERVER, parentSpanId: "", status: 0 });
    expect(fast.attributes).toMatchObject({ "http.route": "/:alias", "http.response.status_code": 302, "http.request.method": "GET" });
    expect(fast.endNs > fast.startNs).toBe(true);
  });

  it("a caller's traceparent: the request's span joins the caller's trace as its child", async () => {
    const traceId = randomBytes(16).toString("hex");
    const parent = randomBytes(8).toString("hex");
    const r = await fetch(`${s?.url}/api/auth/session`, { headers: { traceparent: `00-${traceId}-${parent}-01` } });
    expect(r.status).toBe(200);
    const span = await rx.span((x) => x.traceId === traceId, "the span in the caller's trace");
    expect(span).toMatchObject({ name: "GET /api/auth/session", parentSpanId: parent, kind: SERVER });
  });

  it("/healthz and /readyz are not traced", async () => {
    expect((await fetch(`${s?.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${s?.url}/readyz`)).status).toBe(200);
    // A request after them, told apart by its user agent: once its span arrived, the probes' would have.
    const marker = await fetch(`${s?.url}/api/auth/session`, { headers: { "user-agent": "after-the-probes" } });
    expect(marker.status).toBe(200);
    const after = await rx.span((x) => x.attributes["user_agent.original"] === "after-the-probes", "the span of the request after the probes");
    expect(after.name).toBe("GET /api/auth/session");
    expect(rx.spans.filter((x) => ["/healthz", "/readyz"].includes(String(x.attributes["url.path"])))).toEqual([]);
  });

  it("webhook deliveries: a click's in a trace of its own, a test's inside its request; the POST a child, its path redacted, no trace context sent", async () => {
    const secretPath = "/services/T000/B000/secret-token-in-path";
    const made = await c.post("/api/webhooks", { name: "traced", url: hooks.url(secretPath) });
    expect(made.status, made.text).toBe(201);
    const hookId = made.body.webhook.id as string;

    const before = hooks.requests.length;
    expect((await fetch(`${s?.url}/${alias}`, { redirect: "manual" })).status).toBe(302);
    const [got] = (await hooks.waitFor(before + 1)).slice(before);
    expect(got?.url).toBe(secretPath);
    expect(got?.headers.traceparent).toBeUndefined();

    const delivery = await rx.span((x) => x.name === "webhook delivery" && x.attributes["snip.webhook.test"] === false, "the click's delivery span");
    expect(delivery).toMatchObject({ kind: INTERNAL, parentSpanId: "", status: 0 });
    expect(delivery.attributes).toMatchObject({
      "snip.webhook.id": hookId,
      "snip.webhook.kind": "custom",
      "snip.webhook.event": "link_click",
      "http.response.status_code": 204,
    });
    const post = await rx.span((x) => x.parentSpanId === delivery.spanId, "the delivery's POST");
    expect(post).toMatchObject({ name: "POST", kind: CLIENT, traceId: delivery.traceId });
    expect(post.attributes).toMatchObject({
      "url.full": `https://127.0.0.1:${hooks.port}/REDACTED`,
      "url.path": "/REDACTED",
      "http.response.status_code": 204,
      "server.port": hooks.port,
    });

    expect((await c.post(`/api/webhooks/${hookId}/test`)).status).toBe(200);
    const request = await rx.span((x) => x.name === "POST /api/webhooks/:id/test", "the test request's span");
    const tested = await rx.span((x) => x.name === "webhook delivery" && x.parentSpanId === request.spanId, "the test delivery inside its request");
    expect(tested.attributes["snip.webhook.test"]).toBe(true);
    expect(JSON.stringify(rx.spans.map((x) => x.attributes))).not.toContain("secret-token-in-path");
  });

  it("an SMTP send: a client span inside the sign-up request that sent the email", async () => {
    const visitor = new ApiClient(s?.url ?? "");
    await visitor.init();
    const signed = await visitor.post("/api/auth/signup", { email: `new-${engine}@example.com`, password: "correct horse 1" });
    expect(signed.status, signed.text).toBe(201);
    expect(signed.body.email_sent).toBe(true);
    const request = await rx.span((x) => x.name === "POST /api/auth/signup", "the sign-up span");
    const send = await rx.span((x) => x.name === "smtp send", "the SMTP span");
    expect(send).toMatchObject({ kind: CLIENT, parentSpanId: request.spanId, traceId: request.traceId, status: 0 });
    expect(send.attributes).toMatchObject({ "server.address": "127.0.0.1", "server.port": Number(new URL(smtp.url).port) });
  });

  it("no work starting long after a request is attributed to it (timers a request armed: click flushes, roll-ups)", async () => {
    // Let the timers armed during the requests above run a few times, and their spans, if any, arrive.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const byId = new Map(rx.spans.map((x) => [x.spanId, x]));
    expect(rx.spans.filter((x) => x.kind === SERVER).length).toBeGreaterThan(10);
    // Work a request set off without waiting for it may end after its answer, and start a little after
    // (a query waiting for SQLite's connection): a second after the answer, it is something else's.
    const late = rx.spans.filter((x) => {
      const parent = byId.get(x.parentSpanId);
      return parent?.kind === SERVER && (x.startNs < parent.startNs || x.startNs > parent.endNs + 1_000_000_000n);
    });
    expect(late.map((x) => `${x.name} ${x.attributes["db.query.text"] ?? ""} in ${byId.get(x.parentSpanId)?.name}`)).toEqual([]);
    // Every parent is a span received, but for the request that joined its caller's trace.
    expect(rx.spans.filter((x) => x.parentSpanId !== "" && !byId.has(x.parentSpanId)).map((x) => x.name)).toEqual(["GET /api/auth/session"]);
  });

  it("the SDK is loaded: the module log names @opentelemetry packages (the control of the test without tracing)", async () => {
    const log = readFileSync(moduleLog, "utf8");
    expect(log).toMatch(/^import .*\/node_modules\/@opentelemetry\/sdk-trace-node\//m);
    expect(log).toMatch(/^import .*\/node_modules\/@opentelemetry\/exporter-trace-otlp-http\//m);
    expect(log).not.toMatch(/exporter-trace-otlp-proto/);
  });
});

describe("tracing off, and OTLP over protobuf", { timeout: 120_000 }, () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it("without OTEL_EXPORTER_OTLP_ENDPOINT not one @opentelemetry module is loaded, the fast path included", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "snip-traces-off-"));
    dirs.push(dataDir);
    const moduleLog = join(dataDir, "modules.log");
    const env = { DATA_DIR: dataDir, SESSION_SECRET: SECRET };
    makeUser(env);
    const s = await spawnServe({ ...env, OTEL_SERVICE_NAME: "unused", OTEL_REDIRECT_SAMPLE_RATIO: "1", MODULE_WATCH_LOG: moduleLog }, [WATCH]);
    try {
      const c = new ApiClient(s.url);
      expect((await c.login(EMAIL)).status).toBe(200);
      expect((await c.post("/api/links", { url: "https://example.com/off", alias: "untraced" })).status).toBe(201);
      for (let i = 0; i < 3; i++) expect((await fetch(`${s.url}/untraced`, { redirect: "manual" })).status).toBe(302);
    } finally {
      await stop(s);
    }
    const log = readFileSync(moduleLog, "utf8");
    // The watch sees what was loaded, both ways: Fastify through import, pg's files through require.
    expect(log).toMatch(/^import .*\/node_modules\/fastify\//m);
    expect(log).toMatch(/^require .*\/node_modules\/pg\/lib\/client\.js$/m);
    expect(log).not.toContain("@opentelemetry");
    expect(log).not.toContain("prom-client");
  });

  it("the default protocol is protobuf; OTEL_SERVICE_NAME and OTEL_TRACES_SAMPLER are honoured", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "snip-traces-proto-"));
    dirs.push(dataDir);
    const rx = await startOtlpReceiver();
    const s = await spawnServe({
      DATA_DIR: dataDir,
      SESSION_SECRET: SECRET,
      OTEL_EXPORTER_OTLP_ENDPOINT: `${rx.endpoint}/collector/`,
      OTEL_BSP_SCHEDULE_DELAY: "50",
      OTEL_SERVICE_NAME: "snip-blue",
      // Only requests whose caller's trace is sampled are traced.
      OTEL_TRACES_SAMPLER: "parentbased_always_off",
    });
    try {
      expect((await fetch(`${s.url}/api/auth/session`)).status).toBe(200);
      const traceparent = `00-${randomBytes(16).toString("hex")}-${randomBytes(8).toString("hex")}-01`;
      expect((await fetch(`${s.url}/api/links`, { headers: { traceparent } })).status).toBe(401);
      const body = await waitFor(() => rx.posts.find((p) => p.body.includes("GET /api/links"))?.body, {
        what: "the sampled request's span",
        timeoutMs: 15_000,
      });
      expect(rx.posts.every((p) => p.path === "/collector/v1/traces" && p.headers["content-type"] === "application/x-protobuf")).toBe(true);
      expect(body.includes("snip-blue")).toBe(true);
      expect(rx.posts.some((p) => p.body.includes("/api/auth/session"))).toBe(false);
    } finally {
      await stop(s);
      await rx.close();
    }
  });
});
