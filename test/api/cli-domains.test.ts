// `snip domain list E` and `snip domain verify HOSTNAME` as real processes, against a real DNS server on loopback.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer } from "../helpers/server.js";
import { signedInClient } from "../helpers/client.js";
import { snip, snipAsync } from "../helpers/cli.js";
import { TestDns } from "../helpers/dns.js";

const TARGET = "cname.snip.example";

// Each command starts a process (slow on a busy machine).
describe("snip domain", { timeout: 120_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), "snip-cli-domains-"));
  let dns: TestDns;
  let env: Record<string, string>;
  let records: { type: string; name: string; value: string }[];

  beforeAll(async () => {
    dns = await TestDns.start();
    env = { DATA_DIR: dataDir, DNS_SERVERS: dns.address, CNAME_TARGET: TARGET };
    const server = await startTestServer({ dataDir, env });
    try {
      const c = await signedInClient(server, "cli-domains@example.com", "business");
      records = (await c.post("/api/domains", { hostname: "cli.example" })).body.domain.records;
      await c.post("/api/domains", { hostname: "second.example" });
    } finally {
      await server.close();
    }
  });
  afterAll(async () => {
    await dns?.close();
  });

  it("lists an account's domains with their status and what to fix", () => {
    const r = snip(["domain", "list", "cli-domains@example.com"], env);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^cli\.example\tpending\tnever checked\tAdd the CNAME record cli\.example -> cname\.snip\.example and the TXT record _snip-verify\.cli\.example with the value snip-verify=\w{32} at your DNS provider, then verify\.$/,
    );
    expect(lines[1]?.startsWith("second.example\tpending\t")).toBe(true);
    expect(snip(["domain", "list", "nobody@example.com"], env)).toMatchObject({ code: 1, stderr: "snip: no user with email nobody@example.com\n" });
  });

  it("verifies a hostname: exit code 3 with the next action while pending, 0 once verified", async () => {
    const pending = await snipAsync(["domain", "verify", "CLI.example."], env);
    expect(pending.code).toBe(3);
    expect(pending.stdout).toMatch(
      /^cli\.example\tpending\tchecked \d{4}-\d\d-\d\dT[\d:.]+Z\tNo CNAME record found for cli\.example: add a CNAME record cli\.example -> cname\.snip\.example\. No TXT record found at _snip-verify\.cli\.example/,
    );
    dns.serve({ records });
    // The operator's command is not held back by the dashboard's per-domain throttle.
    const ok = await snipAsync(["domain", "verify", "cli.example"], env);
    expect(ok.stderr).toBe("");
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^cli\.example\tverified\tchecked \d{4}-\d\d-\d\dT[\d:.]+Z\n$/);
    expect(snip(["domain", "list", "cli-domains@example.com"], env).stdout.split("\n")[0]).toMatch(/^cli\.example\tverified\t/);
    expect(snip(["domain", "verify", "unknown.example"], env)).toMatchObject({ code: 1, stderr: "snip: No domain unknown.example has been added\n" });
  });
});
