// Where link health shows (docs/health.md, Where it shows), over real HTTP on both engines with destinations on
// loopback: each link's `health` (the worst of its checked destinations: broken, failing, ok, null) in the list and
// in GET /api/links/{id}; the list's `health` filter (exact sets of ids, its total); a team viewer's list of the
// owner's links; the external API's list, field and GET /api/external/links/{id}/health (links:read; 403 without
// it, 404 for another account's link); the operator's overview figures. A ManualClock moves time between checks;
// the scheduler's own timer is stopped so that only the test's passes check anything.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/shared/clock.js";
import { ENGINES } from "../helpers/engines.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { createLink } from "../helpers/links.js";
import { type TestAccount, testAccount } from "../helpers/team.js";
import { operator } from "../helpers/operator.js";
import { type CheckingServer, startCheckingServer } from "../helpers/health-receivers.js";

const HOUR = 3_600_000;

describe.each(ENGINES)("link health in the list, the link and the console (%s)", (engine) => {
  let checking: CheckingServer;
  let server: TestServer;
  const clock = new ManualClock(Date.parse("2026-05-04T08:00:00Z"));
  let owner: TestAccount;
  let other: TestAccount;
  let viewer: TestAccount;
  /** The owner's links, by the health each ends with. */
  const ids = { broken: "", failing: "", ok: "", unchecked: "" };
  /** Another account's link, failing once. */
  let otherFailing = "";
  const check = () => server.ctx.linkHealth.runNow();
  /** API keys, made while the sign-in is fresh (a key needs a recent proof, and the clock moves hours on). */
  const keys = { reader: "", statsOnly: "", outsider: "" };
  const key = async (c: TestAccount, scopes: string[]) => {
    const r = await c.client.post("/api/keys", { name: `health ${scopes.join(" ")}`, scopes });
    if (r.status !== 201) throw new Error(`key not made: ${r.status} ${r.text}`);
    return r.body.secret as string;
  };

  beforeAll(async () => {
    checking = await startCheckingServer({ engine, clock });
    server = checking.server;
    const { dest } = checking;
    owner = await testAccount(server, `views-owner-${engine}@example.com`, "business");
    other = await testAccount(server, `views-other-${engine}@example.com`, "business");
    viewer = await testAccount(server, `views-viewer-${engine}@example.com`);
    await server.ctx.storage.db
      .insertInto("team_members")
      .values({ owner_id: owner.id, member_id: viewer.id, joined_at: clock.now(), joined_by: "sso", role: "viewer" })
      .execute();
    keys.reader = await key(owner, ["links:read"]);
    keys.statsOnly = await key(owner, ["stats:read"]);
    keys.outsider = await key(other, ["links:read"]);

    // Broken: its main destination answers, its iPhone destination fails three checks an hour apart.
    ids.broken = (await createLink(owner.client, { url: `${dest.origin}/ok`, ios_url: `${dest.origin}/500` })).id;
    // Unchecked: 429 is neither a success nor a failure, so the destination stays unknown.
    ids.unchecked = (await createLink(owner.client, { url: `${dest.origin}/429` })).id;
    ids.ok = (await createLink(owner.client, { url: `${dest.origin}/ok` })).id;
    await check();
    for (let i = 0; i < 2; i++) {
      clock.advance(HOUR);
      await check();
    }
    // The broken link gains a failing Android destination: still broken (the worst), and not in the failing filter.
    expect((await owner.client.patch(`/api/links/${ids.broken}`, { android_url: `${dest.origin}/404` })).status).toBe(200);
    // Failing: one 404 so far.
    ids.failing = (await createLink(owner.client, { url: `${dest.origin}/404` })).id;
    await check();
    otherFailing = (await createLink(other.client, { url: `${dest.origin}/500` })).id;
    await check();
  });
  afterAll(async () => checking?.close());

  const listIds = async (path: string, c = owner.client) => {
    const r = await c.get(path);
    expect(r.status, r.text).toBe(200);
    return { ids: (r.body.links as Array<{ id: string }>).map((l) => l.id).sort(), total: r.body.total as number, links: r.body.links };
  };
  const sorted = (...list: string[]) => [...list].sort();

  it("every link object carries its worst checked destination's health: broken, failing, ok, or null", async () => {
    const rows = await server.ctx.storage.db.selectFrom("link_health").select(["link_id", "destination", "state"]).where("link_id", "=", ids.broken).execute();
    expect(rows.map((r) => [r.destination, r.state]).sort()).toEqual([
      ["android", "failing"],
      ["default", "ok"],
      ["ios", "broken"],
    ]);
    const expected = { [ids.broken]: "broken", [ids.failing]: "failing", [ids.ok]: "ok", [ids.unchecked]: null };
    const { links } = await listIds("/api/links");
    expect(Object.fromEntries((links as Array<{ id: string; health: unknown }>).map((l) => [l.id, l.health]))).toEqual(expected);
    for (const [id, health] of Object.entries(expected)) {
      const r = await owner.client.get(`/api/links/${id}`);
      expect(r.status).toBe(200);
      expect(r.body.link.health, id).toBe(health);
    }
    // An edit answers the link with its health too.
    const edited = await owner.client.patch(`/api/links/${ids.ok}`, { title: "Still fine" });
    expect(edited.body.link.health).toBe("ok");
  });

  it("the list's health filter: exactly the links in that state, with the total", async () => {
    for (const [filter, want] of [
      ["broken", [ids.broken]],
      ["failing", [ids.failing]],
      ["ok", [ids.ok]],
      ["unchecked", [ids.unchecked]],
    ] as const) {
      const page = await listIds(`/api/links?health=${filter}`);
      expect(page.ids, filter).toEqual(sorted(...want));
      expect(page.total, filter).toBe(want.length);
    }
    // With another filter, and paged one link at a time.
    expect((await listIds(`/api/links?health=broken&q=nothing-like-this`)).ids).toEqual([]);
    const first = await owner.client.get("/api/links?health=broken&limit=1");
    expect(first.body.next_cursor).toBeNull();
    const bad = await owner.client.get("/api/links?health=dead");
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("invalid_request");
    expect(bad.body.details.map((d: { field: string }) => d.field)).toEqual(["health"]);
  });

  it("a team viewer sees the owner's links' health and filters them; an outsider gets 404", async () => {
    const page = await listIds(`/api/links?owner=${owner.id}&health=broken`, viewer.client);
    expect(page.ids).toEqual([ids.broken]);
    expect(page.links[0].health).toBe("broken");
    expect((await viewer.client.get(`/api/links/${ids.failing}`)).body.link.health).toBe("failing");
    const health = await viewer.client.get(`/api/links/${ids.broken}/health`);
    expect(health.status).toBe(200);
    expect(health.body.destinations.map((d: { destination: string; state: string }) => [d.destination, d.state])).toEqual([
      ["default", "ok"],
      ["ios", "broken"],
      ["android", "failing"],
    ]);
    expect((await other.client.get(`/api/links?owner=${owner.id}&health=broken`)).status).toBe(404);
    expect((await other.client.get(`/api/links/${ids.broken}/health`)).status).toBe(404);
  });

  it("the external API: the list's filter and field, and a link's health with links:read", async () => {
    const withKey = async (secret: string, path: string) => {
      const res = await fetch(server.url + path, { headers: { authorization: `Bearer ${secret}`, accept: "application/json" } });
      return { status: res.status, body: (await res.json()) as any };
    };
    const reader = keys.reader;
    const list = await withKey(reader, "/api/external/links?health=broken");
    expect(list.status).toBe(200);
    expect(list.body.links.map((l: { id: string; health: string }) => [l.id, l.health])).toEqual([[ids.broken, "broken"]]);
    expect((await withKey(reader, "/api/external/links?health=unchecked")).body.links.map((l: { id: string }) => l.id)).toEqual([ids.unchecked]);
    expect((await withKey(reader, `/api/external/links/${ids.failing}`)).body.link.health).toBe("failing");

    const viaKey = await withKey(reader, `/api/external/links/${ids.broken}/health`);
    expect(viaKey.status).toBe(200);
    const viaSession = await owner.client.get(`/api/links/${ids.broken}/health`);
    expect(viaKey.body).toEqual(viaSession.body);
    expect(viaKey.body).toMatchObject({ status: "success", checks_enabled: true });
    const ios = viaKey.body.destinations[1];
    expect(ios).toMatchObject({
      destination: "ios",
      url: `${checking.dest.origin}/500`,
      state: "broken",
      consecutive_failures: 3,
      last_result: "server_error",
      status_code: 500,
      broken_since: "2026-05-04T10:00:00.000Z",
      last_checked_at: "2026-05-04T10:00:00.000Z",
    });
    expect(ios.history.map((h: { at: string; result: string }) => [h.at, h.result])).toEqual([
      ["2026-05-04T10:00:00.000Z", "server_error"],
      ["2026-05-04T09:00:00.000Z", "server_error"],
      ["2026-05-04T08:00:00.000Z", "server_error"],
    ]);

    const refused = await withKey(keys.statsOnly, `/api/external/links/${ids.broken}/health`);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("insufficient_scope");
    const hidden = await withKey(keys.outsider, `/api/external/links/${ids.broken}/health`);
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ status: "error", code: "not_found", message: "No such link" });
  });

  it("the operator's links: the same health filter across accounts, each row with its health; a wrong value is 400", async () => {
    const ops = await operator(server, `views-ops-list-${engine}@example.com`);
    const adminIds = async (health: string) => {
      const r = await ops.client.get(`/api/admin/links?health=${health}`);
      expect(r.status, r.text).toBe(200);
      return (r.body.links as Array<{ id: string; health: unknown }>).map((l) => [l.id, l.health] as const).sort();
    };
    expect(await adminIds("broken")).toEqual([[ids.broken, "broken"]]);
    expect(await adminIds("failing")).toEqual(sorted(ids.failing, otherFailing).map((id) => [id, "failing"]));
    expect(await adminIds("ok")).toEqual([[ids.ok, "ok"]]);
    expect(await adminIds("unchecked")).toEqual([[ids.unchecked, null]]);
    // With the other filters: the owner's email, and a state no broken link is in.
    const byOwner = await ops.client.get(`/api/admin/links?health=failing&owner=${encodeURIComponent(`views-other-${engine}`)}`);
    expect(byOwner.body.links.map((l: { id: string }) => l.id)).toEqual([otherFailing]);
    expect((await ops.client.get("/api/admin/links?health=broken&state=expired")).body.links).toEqual([]);
    const bad = await ops.client.get("/api/admin/links?health=dead");
    expect([bad.status, bad.body.code]).toEqual([400, "invalid_request"]);
    expect((await owner.client.get("/api/admin/links?health=broken")).status).toBe(403);
  });

  it("the operator's overview: links and destinations broken and failing, destinations due", async () => {
    const ops = await operator(server, `views-ops-${engine}@example.com`);
    const figures = async () => {
      const r = await ops.client.get("/api/admin/overview");
      expect(r.status, r.text).toBe(200);
      return r.body.link_checks;
    };
    // Broken: the owner's iPhone destination; failing: the owner's two 404s and the other account's 500. Nothing due yet.
    expect(await figures()).toEqual({ checks_enabled: true, due: 0, links_broken: 1, destinations_broken: 1, destinations_failing: 3 });
    // Twenty minutes on, the 429 destination is due again (its third 429 in a row, at 10:00, doubled the wait twice).
    clock.advance(20 * 60_000);
    expect((await figures()).due).toBe(1);
    // An hour on, the four failing and broken ones too (a failure is checked again after an hour).
    clock.advance(HOUR);
    expect((await figures()).due).toBe(5);
  });
});

describe.each(ENGINES)("link health with checks off (%s)", (engine) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ engine });
  });
  afterAll(async () => server?.close());

  it("every link's health is null, the filter finds only unchecked links, the overview says checks are off and counts nothing", async () => {
    const owner = await testAccount(server, `views-off-${engine}@example.com`, "business");
    const link = await createLink(owner.client, { url: "https://example.com/off" });
    // Rows from a time checks were on do not show while they are off.
    await server.ctx.storage.db
      .insertInto("link_health")
      .values({ id: "h-off", link_id: link.id, destination: "default", url: "https://example.com/off", host: "example.com", state: "broken", next_check_at: 0 })
      .execute();
    expect((await owner.client.get(`/api/links/${link.id}`)).body.link.health).toBeNull();
    expect((await owner.client.get("/api/links?health=broken")).body).toMatchObject({ links: [], total: 0 });
    expect((await owner.client.get("/api/links?health=unchecked")).body.links.map((l: { id: string }) => l.id)).toEqual([link.id]);
    const ops = await operator(server, `views-off-ops-${engine}@example.com`);
    expect((await ops.client.get("/api/admin/links?health=broken")).body.links).toEqual([]);
    expect((await ops.client.get("/api/admin/links?health=unchecked")).body.links.map((l: { id: string }) => l.id)).toEqual([link.id]);
    expect((await ops.client.get("/api/admin/overview")).body.link_checks).toEqual({
      checks_enabled: false,
      due: 0,
      links_broken: 0,
      destinations_broken: 0,
      destinations_failing: 0,
    });
  });
});
