// The production path for extra certificate authorities: `snip serve` as a real process trusts a receiver
// signed by the test CA because NODE_EXTRA_CA_CERTS names it, and logs the WEBHOOK_ALLOW_PRIVATE warning;
// the same receiver is refused when the CA is not given.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { freePort, startTestServer } from "../helpers/server.js";
import { ApiClient, signedInClient } from "../helpers/client.js";
import { type Receiver, type TestCa, makeTestCa, startReceiver } from "../helpers/webhook-receivers.js";
import { outputContains } from "../helpers/wait.js";
import { cliArgv } from "../helpers/built.js";

const root = join(import.meta.dirname, "..", "..");
let ca: TestCa;
let rx: Receiver;

beforeAll(async () => {
  ca = makeTestCa();
  rx = await startReceiver(ca);
});
afterAll(async () => {
  await rx?.close();
});

it("snip serve trusts the receiver through NODE_EXTRA_CA_CERTS and warns about WEBHOOK_ALLOW_PRIVATE", async () => {
  const port = await freePort();
  const env = {
    PATH: process.env.PATH ?? "",
    DATA_DIR: mkdtempSync(join(tmpdir(), "snip-ca-srv-")),
    PORT: String(port),
    BASE_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: "info",
    WEBHOOK_ALLOW_PRIVATE: "true",
    NODE_EXTRA_CA_CERTS: ca.caFile,
  };
  const made = spawnSync(
    process.execPath,
    cliArgv(["user", "create", "--email", "ca@example.com", "--password", "correct horse 1", "--plan", "business", "--verified"]),
    { cwd: root, env },
  );
  expect(made.status, made.stderr.toString()).toBe(0);
  const child = spawn(process.execPath, cliArgv(["serve"]), { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  child.stdout.on("data", (d) => (stdout += d));
  const listening = outputContains(child.stdout, '"msg":"snip is listening"');
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  try {
    await listening;
    expect(stdout).toContain("WEBHOOK_ALLOW_PRIVATE=true: webhooks may deliver to loopback and private addresses");
    const c = new ApiClient(`http://127.0.0.1:${port}`);
    expect((await c.login("ca@example.com")).status).toBe(200);
    const created = await c.post("/api/webhooks", { name: "ca", url: rx.url("/ca") });
    expect(created.status, created.text).toBe(201);
    const t = await c.post(`/api/webhooks/${created.body.webhook.id}/test`);
    expect(t.body.delivery).toMatchObject({ status_code: 204, error: null });
    expect(rx.requests.at(-1)?.headers["x-snip-delivery"]).toBe(t.body.delivery.id);
  } finally {
    child.kill("SIGTERM");
    await exited;
  }
});

it("without the CA the receiver's certificate is refused and nothing is delivered", async () => {
  const server = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE: "true" } });
  try {
    const c = await signedInClient(server, "noca@example.com", "business");
    const created = await c.post("/api/webhooks", { name: "noca", url: rx.url("/noca") });
    const before = rx.requests.length;
    const t = await c.post(`/api/webhooks/${created.body.webhook.id}/test`);
    expect(t.body.delivery.status_code).toBeNull();
    expect(t.body.delivery.error).toMatch(/^TLS verification failed \(/);
    expect(rx.requests.length).toBe(before);
  } finally {
    await server.close();
  }
});
