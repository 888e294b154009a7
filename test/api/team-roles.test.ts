// Team roles (docs/roles.md), on both engines: an invitation names the role, PATCH /api/team/members/{user_id}
// changes it (the owner any role but owner, an admin only members and viewers, and only to member or viewer),
// audited; GET /api/team lists roles and the caller's own role per team; roles other than member need the owner
// on Enterprise; malformed and concurrent changes answer 4xx or 2xx, never 5xx; and on two PostgreSQL instances a
// change holds at once on the other instance.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINES } from "../helpers/engines.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { joinTeam, testAccount, type TestAccount } from "../helpers/team.js";
import { createLink } from "../helpers/links.js";
import { expectContract } from "../helpers/routes.js";
import { ApiClient } from "../helpers/client.js";
import { linkIn, readOutbox, tokenOf } from "../helpers/mail.js";
import type { TeamRole } from "../../src/contract/roles.js";

let n = 0;
const email = (what: string) => `roles-${what}-${++n}-${Date.now().toString(36)}@example.com`;

async function member(server: TestServer, owner: TestAccount, role: TeamRole): Promise<TestAccount> {
  const account = await testAccount(server, email(role));
  await server.ctx.storage.db
    .insertInto("team_members")
    .values({ owner_id: owner.id, member_id: account.id, joined_at: Date.now(), joined_by: "sso", role })
    .execute();
  return account;
}

const roleIn = (server: TestServer, ownerId: string, memberId: string) =>
  server.ctx.storage.db
    .selectFrom("team_members")
    .select("role")
    .where("owner_id", "=", ownerId)
    .where("member_id", "=", memberId)
    .executeTakeFirst()
    .then((r) => r?.role);

describe.each(ENGINES)("team roles on %s", (engine) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ engine });
  });
  afterAll(async () => server?.close());

  it("an invitation names the role: the invitee joins as viewer, GET /api/team lists it, the viewer's writes are 403 forbidden", async () => {
    const owner = await testAccount(server, email("owner"), "enterprise");
    const invitee = await testAccount(server, email("invitee"));
    const r = await owner.client.post("/api/team/invitations", { email: invitee.email, role: "viewer" });
    expect(r.status, r.text).toBe(201);
    expect(r.body.invitation.role).toBe("viewer");
    // joinTeam invites with the default role, member: this invitation is already pending, so accept it directly.
    await owner.client.delete(`/api/team/invitations/${r.body.invitation.id}`);
    const again = await owner.client.post("/api/team/invitations", { email: invitee.email, role: "viewer" });
    expect(again.status).toBe(201);
    const raw = readOutbox(server.outboxDir)
      .filter((m) => m.includes(`To: ${invitee.email}`))
      .at(-1)!;
    const token = tokenOf(linkIn(raw, "/app/invitations/accept?token="));
    expect((await invitee.client.post("/api/invitations/preview", { token })).body.invitation.role).toBe("viewer");
    const accepted = await invitee.client.post("/api/invitations/accept", { token });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body.membership.role).toBe("viewer");

    const team = (await owner.client.get("/api/team")).body;
    expect(team.owner_id).toBe(owner.id);
    expect(team.role).toBe("owner");
    expect(team.members.map((m: { user_id: string; role: string }) => [m.user_id, m.role])).toEqual([[invitee.id, "viewer"]]);
    const mine = (await invitee.client.get("/api/team")).body;
    expect(mine.role).toBe("owner");
    expect(mine.memberships.map((m: { owner_id: string; role: string }) => [m.owner_id, m.role])).toEqual([[owner.id, "viewer"]]);

    const link = await createLink(owner.client, { url: "https://example.com/v" });
    expect((await invitee.client.get(`/api/links/${link.id}`)).status).toBe(200);
    const edit = await invitee.client.patch(`/api/links/${link.id}`, { title: "no" });
    expect([edit.status, edit.body.code]).toEqual([403, "forbidden"]);
  });

  it("the owner changes roles; audited with before and after; the owner role is never given", async () => {
    const owner = await testAccount(server, email("owner"), "enterprise");
    const m = await member(server, owner, "member");
    const r = await owner.client.patch(`/api/team/members/${m.id}`, { role: "admin" });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ status: "success", user_id: m.id, role: "admin" });
    expect(await roleIn(server, owner.id, m.id)).toBe("admin");
    const audit = await server.ctx.storage.db.selectFrom("admin_audit").selectAll().where("action", "=", "team.role").where("target_id", "=", m.id).execute();
    expect(audit.map((a) => [a.actor_id, a.actor_email, a.target_type, a.summary, JSON.parse(a.before!), JSON.parse(a.after!)])).toEqual([
      [
        owner.id,
        owner.email,
        "account",
        `changed ${m.email}'s role in ${owner.email}'s team from member to admin`,
        { owner_id: owner.id, role: "member" },
        { owner_id: owner.id, role: "admin" },
      ],
    ]);
    // The same role again: answered, nothing audited.
    expect((await owner.client.patch(`/api/team/members/${m.id}`, { role: "admin" })).status).toBe(200);
    expect(
      (await server.ctx.storage.db.selectFrom("admin_audit").select("id").where("action", "=", "team.role").where("target_id", "=", m.id).execute()).length,
    ).toBe(1);

    for (const body of [{ role: "owner" }, { role: "superuser" }, { role: 42 }, {}, { role: "member", extra: 1 }]) {
      const bad = await owner.client.patch(`/api/team/members/${m.id}`, body);
      expectContract(bad, JSON.stringify(body));
      expect([bad.status, bad.body.code], JSON.stringify(body)).toEqual([400, "invalid_request"]);
    }
    const bad = await owner.client.post("/api/team/invitations", { email: email("x"), role: "owner" });
    expect([bad.status, bad.body.code]).toEqual([400, "invalid_request"]);
    expect(await roleIn(server, owner.id, m.id)).toBe("admin");
    // Not a member: 404; the owner's own id: 403 (the owner keeps the owner role).
    const stranger = await testAccount(server, email("stranger"));
    expect((await owner.client.patch(`/api/team/members/${stranger.id}`, { role: "viewer" })).body.code).toBe("not_found");
    const self = await owner.client.patch(`/api/team/members/${owner.id}`, { role: "viewer" });
    expect([self.status, self.body.code]).toEqual([403, "forbidden"]);
  });

  it("an admin manages members and viewers only: never another admin, never the owner, never to admin", async () => {
    const owner = await testAccount(server, email("owner"), "enterprise");
    const admin = await member(server, owner, "admin");
    const other = await member(server, owner, "admin");
    const m = await member(server, owner, "member");
    const v = await member(server, owner, "viewer");
    const q = `?owner=${owner.id}`;
    const patch = (id: string, role: string) => admin.client.patch(`/api/team/members/${id}${q}`, { role });
    const refused = async (p: Promise<{ status: number; body: { code: string } }>) => {
      const r = await p;
      return [r.status, r.body.code];
    };

    expect((await patch(m.id, "viewer")).status).toBe(200);
    expect((await patch(v.id, "member")).status).toBe(200);
    expect(await roleIn(server, owner.id, m.id)).toBe("viewer");
    expect(await roleIn(server, owner.id, v.id)).toBe("member");
    // Promoting to its own rank, changing or removing another admin, touching the owner: 403 forbidden.
    expect(await refused(patch(m.id, "admin"))).toEqual([403, "forbidden"]);
    expect(await refused(patch(other.id, "member"))).toEqual([403, "forbidden"]);
    expect(await refused(patch(owner.id, "member"))).toEqual([403, "forbidden"]);
    expect(await refused(admin.client.delete(`/api/team/members/${other.id}${q}`))).toEqual([403, "forbidden"]);
    expect(await refused(admin.client.delete(`/api/team/members/${owner.id}${q}`))).toEqual([403, "forbidden"]);
    expect(await refused(admin.client.post(`/api/team/invitations${q}`, { email: email("a"), role: "admin" }))).toEqual([403, "forbidden"]);
    expect(await roleIn(server, owner.id, other.id)).toBe("admin");
    // An admin's own demotion is the owner's: an admin cannot demote itself either (same rank).
    expect(await refused(patch(admin.id, "viewer"))).toEqual([403, "forbidden"]);

    // Invitations: an admin invites members and viewers, and cannot cancel an admin invitation the owner sent.
    const inv = await admin.client.post(`/api/team/invitations${q}`, { email: email("i"), role: "viewer" });
    expect(inv.status, inv.text).toBe(201);
    const ownerInv = await owner.client.post("/api/team/invitations", { email: email("j"), role: "admin" });
    expect(ownerInv.status, ownerInv.text).toBe(201);
    expect(await refused(admin.client.delete(`/api/team/invitations/${ownerInv.body.invitation.id}${q}`))).toEqual([403, "forbidden"]);
    expect((await admin.client.delete(`/api/team/invitations/${inv.body.invitation.id}${q}`)).status).toBe(200);

    // The admin reads the team it administers: members with roles, pending invitations, its role.
    const team = (await admin.client.get(`/api/team${q}`)).body;
    expect(team.owner_id).toBe(owner.id);
    expect(team.role).toBe("admin");
    expect(new Map(team.members.map((x: { user_id: string; role: string }) => [x.user_id, x.role]))).toEqual(
      new Map([
        [admin.id, "admin"],
        [other.id, "admin"],
        [m.id, "viewer"],
        [v.id, "member"],
      ]),
    );
    expect(team.invitations.map((i: { role: string }) => i.role)).toEqual(["admin"]);
    // A member or viewer manages nothing; a stranger learns nothing.
    expect(await refused(v.client.get(`/api/team${q}`))).toEqual([403, "forbidden"]);
    expect(await refused(m.client.patch(`/api/team/members/${v.id}${q}`, { role: "viewer" }))).toEqual([403, "forbidden"]);
    const stranger = await testAccount(server, email("stranger"), "enterprise");
    expect(await refused(stranger.client.get(`/api/team${q}`))).toEqual([404, "not_found"]);
    expect(await refused(stranger.client.patch(`/api/team/members/${v.id}${q}`, { role: "viewer" }))).toEqual([404, "not_found"]);

    // The admin removes a viewer: access ends at once.
    expect((await admin.client.delete(`/api/team/members/${m.id}${q}`)).status).toBe(200);
    expect(await roleIn(server, owner.id, m.id)).toBeUndefined();
  });

  it("roles other than member need the owner on Enterprise (403 plan_required); a downgrade makes an admin a member, a viewer stays a viewer", async () => {
    const owner = await testAccount(server, email("owner"), "business");
    const invitee = email("b");
    for (const role of ["admin", "viewer"]) {
      const r = await owner.client.post("/api/team/invitations", { email: invitee, role });
      expect([r.status, r.body.code, r.body.required_plan]).toEqual([403, "plan_required", "enterprise"]);
    }
    expect((await owner.client.post("/api/team/invitations", { email: invitee })).body.invitation.role).toBe("member");
    const m = await member(server, owner, "member");
    const r = await owner.client.patch(`/api/team/members/${m.id}`, { role: "viewer" });
    expect([r.status, r.body.code]).toEqual([403, "plan_required"]);
    expect((await owner.client.patch(`/api/team/members/${m.id}`, { role: "member" })).status).toBe(200);

    // Stored admin and viewer roles of an owner now on Business: admin acts as member, viewer as viewer.
    const admin = await member(server, owner, "admin");
    const viewer = await member(server, owner, "viewer");
    const link = await createLink(owner.client, { url: "https://example.com/down" });
    expect((await admin.client.delete(`/api/links/${link.id}`)).body.code).toBe("forbidden");
    expect((await admin.client.patch(`/api/links/${link.id}`, { title: "ok" })).status).toBe(200);
    expect((await viewer.client.patch(`/api/links/${link.id}`, { title: "no" })).body.code).toBe("forbidden");
    expect((await admin.client.get(`/api/team?owner=${owner.id}`)).body.code).toBe("forbidden");
    const memberships = (await admin.client.get("/api/team")).body.memberships as Array<{ owner_id: string; role: string }>;
    expect(memberships.find((x) => x.owner_id === owner.id)?.role).toBe("member");
    // The member joined through the emailed invitation (SPEC.md's collaborator) is a member.
    const collaborator = await testAccount(server, email("c"));
    await owner.client.delete(`/api/team/invitations/${(await owner.client.get("/api/team")).body.invitations[0].id}`);
    await joinTeam(server, owner, collaborator);
    expect(await roleIn(server, owner.id, collaborator.id)).toBe("member");
  });

  it("concurrent role changes all answer 200 and leave one of the asked roles, each change audited once", async () => {
    const owner = await testAccount(server, email("owner"), "enterprise");
    const m = await member(server, owner, "member");
    const asked = Array.from({ length: 12 }, (_, i) => (["viewer", "member", "admin"] as const)[i % 3]);
    const answers = await Promise.all(asked.map((role) => owner.client.patch(`/api/team/members/${m.id}`, { role })));
    for (const a of answers) expectContract(a, "concurrent PATCH");
    expect(answers.map((a) => a.status)).toEqual(asked.map(() => 200));
    const final = await roleIn(server, owner.id, m.id);
    expect(asked).toContain(final);
    const audit = await server.ctx.storage.db
      .selectFrom("admin_audit")
      .selectAll()
      .where("action", "=", "team.role")
      .where("target_id", "=", m.id)
      .orderBy("id")
      .execute();
    // Each entry's before is the previous entry's after: no change was lost or recorded twice.
    const chain = audit.map((a) => [(JSON.parse(a.before!) as { role: string }).role, (JSON.parse(a.after!) as { role: string }).role]);
    for (let i = 1; i < chain.length; i++) expect(chain[i]![0]).toBe(chain[i - 1]![1]);
    expect(chain[0]![0]).toBe("member");
    expect(chain.at(-1)![1]).toBe(final);
  });
});

describe.runIf(ENGINES.includes("postgres"))("a role change on two PostgreSQL instances", () => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    a = await startTestServer({ engine: "postgres" });
    b = await startTestServer({ databaseUrl: a.databaseUrl, env: { SESSION_SECRET: a.config.sessionSecret } });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it("holds on the other instance from the member's next request", async () => {
    const owner = await testAccount(a, email("owner"), "enterprise");
    const m = await testAccount(a, email("m"));
    await a.ctx.storage.db
      .insertInto("team_members")
      .values({ owner_id: owner.id, member_id: m.id, joined_at: Date.now(), joined_by: "sso", role: "member" })
      .execute();
    // The member's session, used on instance B.
    const onB = new ApiClient(b.url);
    await onB.login(m.email);
    const link = await createLink(owner.client, { url: "https://example.com/two" });
    expect((await onB.patch(`/api/links/${link.id}`, { title: "before" })).status).toBe(200);
    // Instance B has just read the membership: a cache there would keep "member".
    expect((await owner.client.patch(`/api/team/members/${m.id}`, { role: "viewer" })).status).toBe(200);
    const refused = await onB.patch(`/api/links/${link.id}`, { title: "after" });
    expect([refused.status, refused.body.code]).toEqual([403, "forbidden"]);
    expect((await onB.get(`/api/team`)).body.memberships[0].role).toBe("viewer");
    expect((await owner.client.patch(`/api/team/members/${m.id}`, { role: "admin" })).status).toBe(200);
    expect((await onB.delete(`/api/links/${link.id}`)).status).toBe(200);
  });
});
