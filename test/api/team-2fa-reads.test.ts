// An Enterprise owner's two-factor policy and the reads that span several owners (issue 53): the refusing owner's
// links are left out (GET /api/links/sparklines) and marked (`requires_2fa` in GET /api/team's memberships) while
// the member's own links and other teams' still answer; a request for that owner alone still answers 403
// 2fa_setup_required. Who needs a second factor is one answer (security/second-factor-policy.ts): the policy of an
// owner no longer on a plan with it asks nothing, on the security page as on the links. On SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/shared/clock.js";
import { secretBytes, totpCode } from "../../src/security/totp.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import type { ApiClient } from "../helpers/client.js";
import { createLink } from "../helpers/links.js";
import { joinTeam, testAccount } from "../helpers/team.js";

describe.each(ENGINES)("two-factor team policy across owners on %s", (engine) => {
  let server: TestServer;
  const clock = new ManualClock(1_800_000_000_000);
  let n = 0;

  beforeAll(async () => {
    server = await startTestServer({ engine, clock });
  });
  afterAll(async () => server?.close());

  async function enableTotp(c: ApiClient): Promise<void> {
    const setup = await c.post("/api/auth/2fa/totp/setup");
    const r = await c.post("/api/auth/2fa/totp/enable", { code: totpCode(secretBytes(setup.body.secret), clock.now()) });
    expect(r.status, r.text).toBe(200);
    clock.advance(30_000);
  }

  /** A free member of two teams, the first (Enterprise) requiring two-factor sign-in; a link of each account. */
  async function twoTeams() {
    const strict = await testAccount(server, `strict-${++n}@example.com`, "enterprise");
    const relaxed = await testAccount(server, `relaxed-${n}@example.com`, "business");
    const member = await testAccount(server, `member-${n}@example.com`);
    await joinTeam(server, strict, member);
    await joinTeam(server, relaxed, member);
    const links = {
      strict: (await createLink(strict.client, { url: "https://example.com/strict" })).id,
      relaxed: (await createLink(relaxed.client, { url: "https://example.com/relaxed" })).id,
      own: (await createLink(member.client, { url: "https://example.com/own" })).id,
    };
    expect((await strict.client.put("/api/team/policy", { require_2fa: true })).status).toBe(200);
    return { strict, relaxed, member, links };
  }

  const sparklineIds = async (c: ApiClient, ids: string[]) => {
    const r = await c.get(`/api/links/sparklines?ids=${ids.join(",")}`);
    expect(r.status, r.text).toBe(200);
    return Object.keys(r.body.sparklines).sort();
  };
  const flags = async (c: ApiClient) =>
    Object.fromEntries(
      ((await c.get("/api/team")).body.memberships as Array<{ owner_id: string; requires_2fa: boolean }>).map((m) => [m.owner_id, m.requires_2fa]),
    );

  it("leaves the refusing owner's links out of a read across owners, marks the membership, and refuses that owner alone", async () => {
    const { strict, relaxed, member, links } = await twoTeams();
    const all = [links.own, links.strict, links.relaxed];
    expect(await sparklineIds(member.client, all)).toEqual([links.own, links.relaxed].sort());
    expect(await flags(member.client)).toEqual({ [strict.id]: true, [relaxed.id]: false });

    // Asked for that owner's links alone: 403 2fa_setup_required, as before.
    for (const path of [`/api/links?owner=${strict.id}`, `/api/links/${links.strict}`, `/api/links/${links.strict}/stats`]) {
      const r = await member.client.get(path);
      expect([r.status, r.body.code], path).toEqual([403, "2fa_setup_required"]);
    }
    expect((await member.client.get(`/api/links?owner=${relaxed.id}`)).status).toBe(200);
    expect((await member.client.get("/api/links")).body.links.map((l: { id: string }) => l.id)).toEqual([links.own]);
    expect((await member.client.get("/api/auth/2fa")).body.required).toBe(true);

    // With a second factor everything answers, and nothing is marked.
    await enableTotp(member.client);
    expect(await sparklineIds(member.client, all)).toEqual([...all].sort());
    expect(await flags(member.client)).toEqual({ [strict.id]: false, [relaxed.id]: false });
    expect((await member.client.get(`/api/links?owner=${strict.id}`)).status).toBe(200);
    expect((await member.client.get("/api/auth/2fa")).body.required).toBe(false);
  });

  it("asks nothing once the owner's plan no longer has the policy: the links, the memberships and the security page agree", async () => {
    const { strict, member, links } = await twoTeams();
    expect((await member.client.get("/api/auth/2fa")).body.required).toBe(true);
    // Business still shares links, but has no two-factor policy: the setting is kept and holds nothing.
    await server.ctx.accounts.setPlan(strict.email, "business");
    expect((await member.client.get("/api/auth/2fa")).body.required).toBe(false);
    expect((await member.client.get(`/api/links/${links.strict}`)).status).toBe(200);
    expect((await flags(member.client))[strict.id]).toBe(false);
    // Back on Enterprise, the kept setting holds again.
    await server.ctx.accounts.setPlan(strict.email, "enterprise");
    expect((await member.client.get(`/api/links/${links.strict}`)).body.code).toBe("2fa_setup_required");
    expect((await member.client.get("/api/auth/2fa")).body.required).toBe(true);
  });
});
