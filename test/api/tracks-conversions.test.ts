// `tracks_conversions` in a link's statistics (docs/conversions.md, The dashboard), on both engines: whether the
// link sends the click id, resolved as the redirect resolves it (its own choice, else its domain's, else the
// account's default), and the redirect agreeing; absent below Business. The dashboard shows the funnel by it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { type TestAccount, testAccount } from "../helpers/team.js";
import { verifiedDomain } from "../helpers/verified-domain.js";

describe.each(ENGINES)("tracks_conversions on %s", (engine) => {
  let server: TestServer;
  let owner: TestAccount;
  const host = `go-${engine}.example.com`;

  beforeAll(async () => {
    server = await startTestServer({ engine });
    owner = await testAccount(server, "tracks@example.com", "business");
    await verifiedDomain(server, `dom-${engine}`, owner.id, host);
  });
  afterAll(async () => server?.close());

  async function link(alias: string, body: Record<string, unknown> = {}): Promise<string> {
    const r = await owner.client.post("/api/links", { url: "https://shop.example.com/p", alias, ...body });
    expect(r.status, r.text).toBe(201);
    return r.body.link.id as string;
  }
  async function tracks(id: string): Promise<unknown> {
    const r = await owner.client.get(`/api/links/${id}/stats`);
    expect(r.status, r.text).toBe(200);
    return r.body.tracks_conversions;
  }
  /** Whether the redirect adds the click id: what tracks_conversions must agree with. */
  async function sendsClickId(alias: string): Promise<boolean> {
    const res = await fetch(`${server.url}/${alias}`, { redirect: "manual" });
    await res.body?.cancel();
    expect(res.status).toBe(302);
    return new URL(res.headers.get("location")!).searchParams.has("snip_id");
  }

  it("follows the link's own choice, else its domain's, else the account's default, as the redirect does", async () => {
    const on = await link("t-on", { track_conversions: true });
    const off = await link("t-off", { track_conversions: false });
    const inherits = await link("t-inherit");
    const onDomain = await link("t-domain", { domain: host });
    expect([await tracks(on), await tracks(off), await tracks(inherits), await tracks(onDomain)]).toEqual([true, false, false, false]);
    expect([await sendsClickId("t-on"), await sendsClickId("t-off"), await sendsClickId("t-inherit")]).toEqual([true, false, false]);

    // The account's default turns on the links that do not choose, not the one that says no.
    expect((await owner.client.patch("/api/conversions/settings", { track_conversions: true })).status).toBe(200);
    expect([await tracks(on), await tracks(off), await tracks(inherits), await tracks(onDomain)]).toEqual([true, false, true, true]);
    expect(await sendsClickId("t-inherit")).toBe(true);

    // The domain's own choice wins over the account's for its links.
    const domains = await owner.client.get("/api/domains");
    const id = (domains.body.domains as Array<{ id: string; hostname: string }>).find((d) => d.hostname === host)!.id;
    expect((await owner.client.patch(`/api/domains/${id}`, { track_conversions: false })).status).toBe(200);
    // (The redirect on the custom domain follows the same rule: test/api/conversions-domain-default.test.ts.)
    expect([await tracks(inherits), await tracks(onDomain)]).toEqual([true, false]);
  });

  it("is absent below Business, as the other conversion fields are", async () => {
    const pro = await testAccount(server, "tracks-pro@example.com", "pro");
    const r = await pro.client.post("/api/links", { url: "https://shop.example.com/p", alias: "t-pro" });
    expect(r.status, r.text).toBe(201);
    const s = await pro.client.get(`/api/links/${r.body.link.id}/stats`);
    expect(s.status).toBe(200);
    expect(s.body).not.toHaveProperty("tracks_conversions");
    expect(s.body).not.toHaveProperty("leads");
  });
});
