// The `snip` CLI as a real process: user management, bad input, bad configuration at start-up.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { snip } from "../helpers/cli.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ApiClient } from "../helpers/client.js";

const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

describe("snip CLI", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "snip-cli-"));
  const env = { DATA_DIR: dataDir };

  it("says its version, the package's (as /healthz does)", () => {
    const { version } = JSON.parse(readFileSync(join(import.meta.dirname, "..", "..", "package.json"), "utf8")) as { version: string };
    expect(version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(snip(["--version"], env)).toMatchObject({ code: 0, stdout: `${version}\n` });
  });

  it("migrates idempotently", () => {
    const first = snip(["migrate"], env);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/applied: 001-initial/);
    const second = snip(["migrate"], env);
    expect(second.code).toBe(0);
    expect(second.stdout).toBe("schema is up to date\n");
  });

  it("creates a verified business user who can then sign in through the API", async () => {
    const r = snip(["user", "create", "--email", "a@example.com", "--password", "correct horse 1", "--plan", "business", "--verified"], env);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^created a@example.com \(business, verified\) id=\w+\n$/);
    const server = await startTestServer({ dataDir });
    servers.push(server);
    const c = new ApiClient(server.url);
    const login = await c.login("a@example.com", "correct horse 1");
    expect(login.status).toBe(200);
    expect(login.body.user).toMatchObject({ email: "a@example.com", plan: "business", email_verified: true, status: "active" });
    await server.close();
  });

  it("changes plans and status, and fails clearly on unknown users and plans", () => {
    expect(snip(["user", "plan", "a@example.com", "pro"], env)).toMatchObject({ code: 0, stdout: "a@example.com: plan pro\n" });
    expect(snip(["user", "suspend", "a@example.com"], env)).toMatchObject({ code: 0, stdout: "a@example.com: suspended\n" });
    expect(snip(["user", "activate", "a@example.com"], env)).toMatchObject({ code: 0, stdout: "a@example.com: active\n" });
    const badPlan = snip(["user", "plan", "a@example.com", "gold"], env);
    expect(badPlan.code).toBe(1);
    expect(badPlan.stderr).toBe("snip: plan: must be one of free, pro, business, enterprise\n");
    const unknown = snip(["user", "suspend", "ghost@example.com"], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe("snip: no user with email ghost@example.com\n");
    const dup = snip(["user", "create", "--email", "a@example.com", "--password", "correct horse 1"], env);
    expect(dup.code).toBe(1);
    expect(dup.stderr).toMatch(/already exists/);
    expect(snip(["nonsense"], env).code).not.toBe(0);
  });

  it("stops start-up on a bad configuration value with one line naming the variable", () => {
    const r = snip(["serve"], { ...env, PORT: "eighty" });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('snip: configuration error: PORT: must be a whole number, got "eighty"\n');
    const db = snip(["serve"], { ...env, DATABASE_URL: "mysql://nope" });
    expect(db.code).toBe(1);
    expect(db.stderr.trim().split("\n")).toHaveLength(1);
    expect(db.stderr).toContain("DATABASE_URL");
  });
});
