// A domain's default for conversion tracking (docs/conversions.md, Which links track) on both engines: set with
// PATCH /api/domains/{id}; a link with none of its own takes its domain's, a domain with none the account's; the
// redirect follows at once; the plan gate, another account's domain and hostile bodies.
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINES } from "../helpers/engines.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { createLink } from "../helpers/links.js";
import { testAccount, type TestAccount } from "../helpers/team.js";
import { verifiedDomain } from "../helpers/verified-domain.js";

/** The Location of a visit of `alias` on `host` (the Host header a custom domain's visitor sends). */
function locationOf(server: TestServer, host: string, alias: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}/${alias}`, { headers: { host, "user-agent": "Mozilla/5.0 (X11; Linux x86_64)" } }, (res) => {
      res.resume();
      res.on("end", () => (res.statusCode === 302 ? resolve(String(res.headers.location)) : reject(new Error(`status ${res.statusCode}`))));
    });
    req.on("error", reject);
    req.end();
  });
}

const tracked = (location: string) => new URL(location).searchParams.has("snip_id");

describe.each(ENGINES)("a domain's conversion tracking default on %s", (engine) => {
  let server: TestServer;
  let owner: TestAccount;
  const host = `go-${engine}.example.net`;
  const domainId = `dom-track-${engine}`;

  beforeAll(async () => {
    server = await startTestServer({ engine });
    owner = await testAccount(server, `domain-track-${engine}@example.com`, "business");
    await verifiedDomain(server, domainId, owner.id, host);
  });
  afterAll(async () => server?.close());

  const patch = (body: unknown, id = domainId, who = owner) => who.client.patch(`/api/domains/${id}`, body);

  it("a link with none of its own follows its domain, and a domain with none the account", async () => {
    const inherit = await createLink(owner.client, { url: "https://shop.example.com/a", domain: host });
    const own = await createLink(owner.client, { url: "https://shop.example.com/b", domain: host, track_conversions: false });
    const main = await createLink(owner.client, { url: "https://shop.example.com/c" });
    expect((await owner.client.get("/api/domains")).body.domains.map((d: any) => d.track_conversions)).toEqual([null]);
    // Nothing set anywhere: nobody tracks.
    expect(tracked(await locationOf(server, host, inherit.alias))).toBe(false);

    const on = await patch({ track_conversions: true });
    expect(on.status, on.text).toBe(200);
    expect(on.body.domain).toMatchObject({ id: domainId, hostname: host, track_conversions: true });
    expect(tracked(await locationOf(server, host, inherit.alias))).toBe(true);
    // The link's own choice wins; a link elsewhere keeps the account's default (off).
    expect(tracked(await locationOf(server, host, own.alias))).toBe(false);
    expect(tracked(await locationOf(server, new URL(server.url).host, main.alias))).toBe(false);

    // The account's default on, the domain's off: the domain wins for its links.
    expect((await owner.client.patch("/api/conversions/settings", { track_conversions: true })).status).toBe(200);
    expect((await patch({ track_conversions: false })).body.domain.track_conversions).toBe(false);
    expect(tracked(await locationOf(server, host, inherit.alias))).toBe(false);
    expect(tracked(await locationOf(server, new URL(server.url).host, main.alias))).toBe(true);

    // null: the domain inherits the account's again.
    const cleared = await patch({ track_conversions: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.domain.track_conversions).toBeNull();
    expect(tracked(await locationOf(server, host, inherit.alias))).toBe(true);
    expect((await owner.client.get("/api/domains")).body.domains.map((d: any) => d.track_conversions)).toEqual([null]);
    expect((await owner.client.patch("/api/conversions/settings", { track_conversions: false })).status).toBe(200);
  });

  it("needs the plan to turn on, not to clear; another account's domain is 404; bad bodies are 400", async () => {
    const pro = await testAccount(server, `domain-track-pro-${engine}@example.com`, "pro");
    const proDomain = `dom-pro-${engine}`;
    await verifiedDomain(server, proDomain, pro.id, `pro-${engine}.example.net`);
    const refused = await patch({ track_conversions: true }, proDomain, pro);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("plan_required");
    expect((await patch({ track_conversions: null }, proDomain, pro)).status).toBe(200);

    const other = await testAccount(server, `domain-track-other-${engine}@example.com`, "business");
    const foreign = await patch({ track_conversions: true }, domainId, other);
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe("not_found");
    expect((await patch({ track_conversions: true }, "no-such-domain")).status).toBe(404);

    for (const body of [{}, { track_conversions: "yes" }, { track_conversions: 1 }, { track_conversions: true, hostname: "x.example" }]) {
      const r = await patch(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.code, JSON.stringify(body)).toBe("invalid_request");
    }
    const row = await server.ctx.storage.db.selectFrom("domains").select("track_conversions").where("id", "=", domainId).executeTakeFirstOrThrow();
    expect(row.track_conversions).toBeNull();
  });
});
