// The typed client against a real snip server: a signed-in session (cookie and CSRF kept by the client), the
// external API with a key, error answers, and the README's example run as a user runs it.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSnipClient, getStripeEndpoint, removeStripeEndpoint, setStripeEndpoint, signIn } from "@snip/client";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";

const PASSWORD = "correct horse 1";
const EXAMPLE = fileURLToPath(new URL("../examples/create-link-and-read-stats.ts", import.meta.url));

describe("@snip/client", () => {
  let server: TestServer;
  let n = 0;

  /** A verified Business account, signed in through the client, with one API key. */
  async function account(scopes?: string[]) {
    const email = `client-${++n}@example.com`;
    await server.ctx.accounts.create({ email, password: PASSWORD, plan: "business", verified: true });
    const client = createSnipClient({ baseUrl: server.url, keepCookies: true });
    const signedIn = await signIn(client, email, PASSWORD);
    expect(signedIn.data && "user" in signedIn.data ? signedIn.data.user.email : null).toBe(email);
    const key = await client.POST("/api/keys", { body: { name: "client test", ...(scopes ? { scopes } : {}) } });
    if (!key.data) throw new Error(JSON.stringify(key.error));
    return { email, client, secret: key.data.secret };
  }

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server?.close());

  it("creates, lists and edits links in a session, sending the CSRF token it was given", async () => {
    const { client } = await account();
    const created = await client.POST("/api/links", { body: { url: "https://example.com/client", alias: "from-client" } });
    expect(created.response.status).toBe(201);
    expect(created.data?.link).toMatchObject({ alias: "from-client", url: "https://example.com/client" });
    const listed = await client.GET("/api/links", { params: { query: { q: "from-client", sort: "created", order: "desc" } } });
    expect(listed.data?.links.map((l) => l.alias)).toEqual(["from-client"]);
    const edited = await client.PATCH("/api/links/{id}", { params: { path: { id: created.data!.link.id } }, body: { title: "Edited" } });
    expect(edited.data?.link.title).toBe("Edited");
  });

  it("sets, reads and removes the Stripe endpoint (its secret never comes back)", async () => {
    const { client } = await account();
    const set = await setStripeEndpoint(client, "whsec_client_0123456789abcdef");
    expect(set.response.status).toBe(200);
    expect(set.data?.endpoint_url).toMatch(new RegExp(`^${server.config.origin}/api/integrations/stripe/webhook/[A-Za-z0-9_-]{43}$`));
    const got = await getStripeEndpoint(client);
    expect(got.data?.endpoint_url).toBe(set.data?.endpoint_url);
    expect(JSON.stringify(got.data)).not.toContain("whsec_");
    expect((await removeStripeEndpoint(client)).response.status).toBe(200);
    const gone = await getStripeEndpoint(client);
    expect([gone.response.status, gone.error?.code]).toEqual([404, "not_found"]);
  });

  it("answers errors as the API's error body", async () => {
    const { client } = await account();
    const bad = await client.POST("/api/links", { body: { url: "ftp://example.com/" } });
    expect(bad.response.status).toBe(400);
    expect(bad.error).toMatchObject({ status: "error", code: "invalid_request" });
    const anonymous = createSnipClient({ baseUrl: server.url });
    const refused = await anonymous.GET("/api/links");
    expect(refused.response.status).toBe(401);
  });

  it("creates a link with an API key through the external API", async () => {
    const { secret } = await account();
    const api = createSnipClient({ baseUrl: server.url, apiKey: secret });
    const created = await api.POST("/api/external-create.php", { body: { url: "https://example.com/external", alias: "ext-client" } });
    expect(created.response.status).toBe(201);
    expect(created.data?.short_url).toBe(`${server.config.origin}/ext-client`);
  });

  it("runs the README's example: a link created and its statistics read with one key (links:create, stats:read)", async () => {
    const { secret } = await account(["links:create", "stats:read"]);
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "--conditions=source", EXAMPLE], {
      env: { ...process.env, SNIP_URL: server.url, SNIP_API_KEY: secret },
    });
    expect(stdout).toMatch(new RegExp(`^created ${server.config.origin}/[A-Za-z0-9]{7,}\\n0 clicks in total, 0 in the last 7 days\\n$`));
  });
});
