// /readyz across a real process's life (it listens only once migrations ran and caches are loaded):
// 200 once it does, 503 unavailable from SIGTERM through DRAIN_DELAY_MS while redirects and /healthz
// are still answered, then a clean exit with every answered click stored.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { spawnServe } from "../helpers/serve.js";
import { snip } from "../helpers/cli.js";
import { ApiClient } from "../helpers/client.js";
import { waitFor } from "../helpers/wait.js";
import { startTestServer } from "../helpers/server.js";

const SECRET = "readyz-test-secret-0123456789abcdef";

describe("/readyz", { timeout: 180_000 }, () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it("in-process server: 200 ready while serving, 503 unavailable (Retry-After) once stop() began", async () => {
    const server = await startTestServer({ env: { DRAIN_DELAY_MS: "600" } });
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(ready.headers.get("cache-control")).toBe("no-store");
    expect(await ready.json()).toEqual({ status: "success", state: "ready" });
    const stopping = server.close();
    const draining = await fetch(`${server.url}/readyz`);
    expect(draining.status).toBe(503);
    expect(draining.headers.get("retry-after")).toBe("1");
    expect(await draining.json()).toEqual({ status: "error", code: "unavailable", message: "This instance is shutting down" });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    await stopping;
  });

  it("CLICK_BACKLOG_READY_S: 503 while the oldest click not written yet is older than that, 200 again once it is written", async () => {
    const server = await startTestServer({ env: { CLICK_BACKLOG_READY_S: "3", CLICK_FLUSH_MS: "60000" } });
    try {
      const link = await server.ctx.storage.db
        .insertInto("links")
        .values({ id: "rz1", domain: "", alias: "rz1", url: "https://example.com/", click_count: 0, created_at: 0, updated_at: 0 })
        .returning("num")
        .executeTakeFirstOrThrow();
      const click = (at: number) => ({
        linkId: "rz1",
        linkNum: Number(link.num),
        at,
        userAgent: "test",
        referer: "",
        ip: "",
        country: null,
        counted: false,
        destination: null,
      });
      server.ctx.clicks.record(click(Date.now() - 2_000));
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
      server.ctx.clicks.record(click(Date.now() - 4_000));
      // The oldest is the first recorded: 2 s, within the 3 s allowed.
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
      await server.ctx.clicks.flush();
      server.ctx.clicks.record(click(Date.now() - 4_000));
      const late = await fetch(`${server.url}/readyz`);
      expect(late.status).toBe(503);
      expect(late.headers.get("retry-after")).toBe("1");
      expect(await late.json()).toEqual({ status: "error", code: "unavailable", message: "This instance's clicks are waiting to be written" });
      await server.ctx.clicks.flush();
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it("snip serve: ready once listening, draining after SIGTERM with redirects still answered, exit 0 with the clicks kept", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "snip-readyz-"));
    dirs.push(dataDir);
    const env = { DATA_DIR: dataDir, SESSION_SECRET: SECRET };
    expect(snip(["user", "create", "--email", "ready@example.com", "--password", "correct horse 1", "--plan", "pro", "--verified"], env).code).toBe(0);

    const s = await spawnServe({ ...env, DRAIN_DELAY_MS: "1500" });
    expect((await fetch(`${s.url}/readyz`)).status).toBe(200);
    const c = new ApiClient(s.url);
    expect((await c.login("ready@example.com")).status).toBe(200);
    const link = await c.post("/api/links", { url: "https://example.com/ready", alias: "ready-link" });
    expect(link.status).toBe(201);

    s.child.kill("SIGTERM");
    await waitFor(async () => (await fetch(`${s.url}/readyz`)).status === 503, { what: "/readyz 503 after SIGTERM" });
    // Still serving during the drain: the load balancer has time to notice.
    const during = await fetch(`${s.url}/ready-link`, { redirect: "manual" });
    expect(during.status).toBe(302);
    expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
    expect(await s.exited).toBe(0);
    await expect(fetch(`${s.url}/readyz`)).rejects.toThrow();

    // The click answered during the drain was stored before the exit.
    const again = await spawnServe(env);
    try {
      const c2 = new ApiClient(again.url);
      expect((await c2.login("ready@example.com")).status).toBe(200);
      const got = await c2.get(`/api/links/${link.body.link.id}`);
      expect(got.body.link.click_count).toBe(1);
    } finally {
      again.child.kill("SIGTERM");
      await again.exited;
    }
  });
});
