// What a real `snip serve` writes to its log through a session that handles every kind of secret:
// passwords (account and link), session cookies, CSRF tokens, an API key, tokens in query strings, and a
// visitor's address (statistics count visitors without storing or logging it).
// Neither format carries one; LOG_FORMAT=pretty writes one readable line per request, fast path included.
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { spawnServe } from "../helpers/serve.js";
import { snip } from "../helpers/cli.js";
import { ApiClient } from "../helpers/client.js";

const SECRET = "logs-test-session-secret-0123456789";
const ACCOUNT_PASSWORD = "AccountPw-7f3a9c-secret";
const LINK_PASSWORD = "LinkPw-41bd-secret";
/** A loopback address of the visitor's own (Linux routes all of 127/8 to lo). */
const VISITOR_ADDRESS = "127.0.0.77";

function visitFrom(localAddress: string, url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { localAddress, headers: { "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0" } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end();
  });
}

/** A session touching every secret; returns what must never appear in the log. */
async function session(url: string): Promise<string[]> {
  const c = new ApiClient(url);
  expect((await c.login("logs@example.com", ACCOUNT_PASSWORD)).status).toBe(200);
  const key = await c.post("/api/keys", { name: "ci" });
  expect(key.status).toBe(201);
  const apiKey = key.body.secret as string;
  const made = await fetch(`${url}/api/external-create.php`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ url: "https://example.com/ext", alias: "ext-link" }),
  });
  expect(made.status).toBe(201);
  expect((await c.post("/api/links", { url: "https://example.com/locked", alias: "locked-link", password: LINK_PASSWORD })).status).toBe(201);
  const form = await fetch(`${url}/locked-link`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: `password=${LINK_PASSWORD}`,
    redirect: "manual",
  });
  expect(form.status).toBe(302);
  const wrong = await c.post("/api/auth/login", { email: "logs@example.com", password: `${ACCOUNT_PASSWORD}-wrong` });
  expect(wrong.status).toBe(401);
  // A token in a query string (an email link's shape), and a cached redirect (the fast path) twice.
  await fetch(`${url}/api/auth/verify-email?token=QueryToken-9e1f-secret`);
  for (let i = 0; i < 2; i++) expect((await fetch(`${url}/ext-link`, { redirect: "manual" })).status).toBe(302);
  // An error the server logs with its context.
  expect(
    (
      await fetch(`${url}/api/links`, {
        method: "POST",
        headers: { cookie: c.cookie!, "x-csrf-token": c.csrf!, "content-type": "application/json" },
        body: "{",
      })
    ).status,
  ).toBe(400);
  // Visits from an address of their own (a QR scan too): their clicks are written, the address is not logged.
  for (const path of ["/ext-link?qr=1", "/ext-link"]) expect(await visitFrom(VISITOR_ADDRESS, url + path)).toBe(302);
  const sid = c.cookie!.split("=")[1]!;
  return [ACCOUNT_PASSWORD, LINK_PASSWORD, apiKey, sid, c.csrf!, "QueryToken-9e1f-secret", VISITOR_ADDRESS];
}

describe.each(["json", "pretty"] as const)("a full run's log in LOG_FORMAT=%s", { timeout: 180_000 }, (format) => {
  const dir = mkdtempSync(join(tmpdir(), `snip-logs-${format}-`));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("holds no secret; pretty: one line per request, the fast path's included", async () => {
    const env = { DATA_DIR: dir, SESSION_SECRET: SECRET };
    expect(snip(["user", "create", "--email", "logs@example.com", "--password", ACCOUNT_PASSWORD, "--plan", "business", "--verified"], env).code).toBe(0);
    const s = await spawnServe({ ...env, LOG_FORMAT: format, LOG_LEVEL: "debug" }, [], format === "json" ? '"msg":"snip is listening"' : "snip is listening");
    let secrets: string[];
    try {
      secrets = await session(s.url);
    } finally {
      s.child.kill("SIGTERM");
      await s.exited;
    }
    const log = s.stdout();
    expect(log.length).toBeGreaterThan(200);
    for (const secret of secrets) expect(log.includes(secret), `the log holds ${secret}`).toBe(false);
    if (format === "json") {
      for (const line of log.trim().split("\n")) expect(() => JSON.parse(line), line).not.toThrow();
    } else {
      const lines = log.split("\n");
      expect(lines.some((l) => /INFO.*snip is listening/.test(l))).toBe(true);
      // Two visits of the session and the visitor's two (the query string is not logged).
      expect(lines.filter((l) => / GET \/ext-link 302 [\d.]+ ms/.test(l))).toHaveLength(4);
      expect(lines.some((l) => / POST \/api\/auth\/login 401 [\d.]+ ms/.test(l))).toBe(true);
      expect(lines.some((l) => / GET \/api\/auth\/verify-email (?:\d{3}) [\d.]+ ms/.test(l))).toBe(true);
      expect(lines.every((l) => !l.startsWith("{"))).toBe(true);
    }
  });
});
