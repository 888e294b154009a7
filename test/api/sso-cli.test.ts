// `snip user create --admin --break-glass` (docs/sso.md): the operator account that keeps password sign-in
// under OIDC_ONLY, through the built CLI; --break-glass alone is refused.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { snip } from "../helpers/cli.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ApiClient } from "../helpers/client.js";

let server: TestServer | null = null;
afterAll(async () => server?.close());

describe("break-glass operators on the command line", () => {
  it("creates one that signs in with a password under OIDC_ONLY, while other accounts are refused", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "snip-sso-cli-"));
    const env = { DATA_DIR: dataDir };
    const alone = snip(["user", "create", "--email", "x@example.com", "--password", "correct horse 1", "--break-glass"], env);
    expect(alone.code).toBe(1);
    expect(alone.stderr).toBe("snip: --break-glass is for operators: add --admin\n");
    const glass = snip(["user", "create", "--email", "glass@example.com", "--password", "correct horse 1", "--verified", "--admin", "--break-glass"], env);
    expect(glass.stderr).toBe("");
    expect(glass.stdout).toMatch(/^created glass@example.com \(free, verified, operator, break-glass\) id=\w+\n$/);
    const op = snip(["user", "create", "--email", "op@example.com", "--password", "correct horse 1", "--verified", "--admin"], env);
    expect(op.code).toBe(0);
    server = await startTestServer({
      dataDir,
      env: { OIDC_ISSUER: "https://id.example.com", OIDC_CLIENT_ID: "snip", OIDC_CLIENT_SECRET: "secret", OIDC_ONLY: "true" },
    });
    expect((await new ApiClient(server.url).login("glass@example.com")).status).toBe(200);
    const refused = await new ApiClient(server.url).login("op@example.com");
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("sso_required");
  });
});
