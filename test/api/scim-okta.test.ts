// SCIM 2.0 as Okta provisions (Okta's SCIM 2.0 guide: the requests its integration tests replay): look the user up
// by userName, create, read, replace, deactivate with a pathless PATCH, push groups (create with members, rename,
// add and remove members with Okta's `members[value eq "..."]`), and the refusals of the token and of bad input.
// The effects on the team (membership, role from the group, sessions and keys ended) and the audit log are checked
// on SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { ApiClient } from "../helpers/client.js";
import { hashPassword } from "../../src/accounts/passwords.js";
import { GROUP, PATCH, USER, membership, scim, scimError, scimTeam, type ScimTeam } from "../helpers/scim.js";

describe.each(ENGINES)("SCIM as Okta provisions, on %s", (engine) => {
  let server: TestServer;
  let team: ScimTeam;
  const email = "dana.okta@okta-acme.test";
  let userId = "";
  let groupId = "";

  beforeAll(async () => {
    server = await startTestServer({ engine });
    team = await scimTeam(server, "okta-acme.test");
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  const call = (method: string, path: string, body?: unknown) => scim(server, team.token, method, path, body);

  it("answers the discovery endpoints with the token", async () => {
    const spc = await call("GET", "/ServiceProviderConfig");
    expect(spc.status).toBe(200);
    expect(spc.headers.get("content-type")).toMatch(/^application\/scim\+json/);
    expect(spc.body).toMatchObject({ patch: { supported: true }, filter: { supported: true, maxResults: 200 }, bulk: { supported: false } });
    const types = await call("GET", "/ResourceTypes");
    expect(types.body.Resources.map((r: { id: string }) => r.id)).toEqual(["User", "Group"]);
    const schemas = await call("GET", "/Schemas");
    expect(schemas.body.Resources.map((r: { id: string }) => r.id)).toEqual([USER, GROUP]);
  });

  it("finds no user, creates one (a member of the team), reads it", async () => {
    const none = await call("GET", `/Users?filter=${encodeURIComponent(`userName eq "${email}"`)}&startIndex=1&count=100`);
    expect(none.status, none.text).toBe(200);
    expect(none.body).toEqual({
      schemas: ["urn:ietf:params:scim:api:messages:2.0:ListResponse"],
      totalResults: 0,
      startIndex: 1,
      itemsPerPage: 0,
      Resources: [],
    });
    // Okta's create: with password, locale and an empty groups list, which snip does not keep.
    const created = await call("POST", "/Users", {
      schemas: [USER],
      userName: email,
      name: { givenName: "Dana", familyName: "Okta" },
      emails: [{ primary: true, value: email, type: "work" }],
      displayName: "Dana Okta",
      locale: "en-US",
      externalId: "00u1okta",
      groups: [],
      password: "1mP@ssw0rd",
      active: true,
    });
    expect(created.status, created.text).toBe(201);
    userId = created.body.id;
    expect(created.headers.get("location")).toBe(`${server.config.origin}/scim/v2/Users/${userId}`);
    expect(created.body).toMatchObject({
      schemas: [USER],
      userName: email,
      externalId: "00u1okta",
      active: true,
      name: { givenName: "Dana", familyName: "Okta" },
      emails: [{ value: email, type: "work", primary: true }],
      groups: [],
      meta: { resourceType: "User", location: `${server.config.origin}/scim/v2/Users/${userId}` },
    });
    expect(created.body.password).toBeUndefined();
    expect(await membership(server, team.ownerId, email)).toMatchObject({ role: "member", joined_by: "sso" });
    const read = await call("GET", `/Users/${userId}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
    const found = await call("GET", `/Users?filter=${encodeURIComponent(`userName eq "${email.toUpperCase()}"`)}`);
    expect([found.body.totalResults, found.body.Resources[0].id]).toEqual([1, userId]);
  });

  it("refuses a second user with the same userName: 409 uniqueness, nothing written", async () => {
    const before = await server.ctx.storage.db.selectFrom("scim_users").select("id").execute();
    const again = await call("POST", "/Users", { schemas: [USER], userName: email.toUpperCase(), emails: [{ value: email, primary: true }] });
    expect(scimError(again)).toEqual([409, "uniqueness"]);
    expect(await server.ctx.storage.db.selectFrom("scim_users").select("id").execute()).toEqual(before);
  });

  it("replaces the user with PUT", async () => {
    const put = await call("PUT", `/Users/${userId}`, {
      schemas: [USER],
      id: userId,
      userName: email,
      name: { givenName: "Danielle", familyName: "Okta" },
      emails: [{ primary: true, value: email, type: "work" }],
      active: true,
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({ name: { givenName: "Danielle", familyName: "Okta" }, active: true });
    expect(put.body.externalId).toBeUndefined();
  });

  it("pushes groups: admin gives the role, members added and removed the way Okta sends them", async () => {
    const created = await call("POST", "/Groups", { schemas: [GROUP], displayName: "Admin", members: [{ value: userId, display: email }] });
    expect(created.status, created.text).toBe(201);
    groupId = created.body.id;
    expect(created.body).toMatchObject({ displayName: "Admin", members: [{ value: userId, display: email }] });
    expect((await membership(server, team.ownerId, email))?.role).toBe("admin");
    const byName = await call("GET", `/Groups?filter=${encodeURIComponent('displayName eq "admin"')}&excludedAttributes=members`);
    expect([byName.body.totalResults, byName.body.Resources[0].id, byName.body.Resources[0].members]).toEqual([1, groupId, undefined]);
    // Okta removes one member by a filtered path...
    const removed = await call("PATCH", `/Groups/${groupId}`, { schemas: [PATCH], Operations: [{ op: "remove", path: `members[value eq "${userId}"]` }] });
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body.members).toEqual([]);
    expect((await membership(server, team.ownerId, email))?.role).toBe("member");
    // ... adds with path members ...
    const added = await call("PATCH", `/Groups/${groupId}`, {
      schemas: [PATCH],
      Operations: [{ op: "add", path: "members", value: [{ value: userId, display: email }] }],
    });
    expect(added.body.members.map((m: { value: string }) => m.value)).toEqual([userId]);
    expect((await membership(server, team.ownerId, email))?.role).toBe("admin");
    // ... and renames with a pathless replace: out of the role name, the member is a member again.
    const renamed = await call("PATCH", `/Groups/${groupId}`, {
      schemas: [PATCH],
      Operations: [{ op: "replace", value: { id: groupId, displayName: "Marketing" } }],
    });
    expect(renamed.body.displayName).toBe("Marketing");
    expect((await membership(server, team.ownerId, email))?.role).toBe("member");
    const user = await call("GET", `/Users/${userId}`);
    expect(user.body.groups).toEqual([{ value: groupId, display: "Marketing", $ref: `${server.config.origin}/scim/v2/Groups/${groupId}` }]);
  });

  it("deactivates with Okta's pathless PATCH: the member leaves the team, their sessions and keys end", async () => {
    // The person signs in (a password is set here to have a session) and holds a key.
    const account = (await server.ctx.accounts.byEmail(email))!;
    await server.ctx.storage.db
      .updateTable("users")
      .set({ password_hash: await hashPassword("correct horse 1"), plan: "business" })
      .where("id", "=", account.id)
      .execute();
    const person = new ApiClient(server.url);
    expect((await person.login(email)).status).toBe(200);
    const key = await person.post("/api/keys", { name: "k", scopes: ["links:read"] });
    expect(key.status, key.text).toBe(201);
    const keyed = () => fetch(`${server.url}/api/external/links`, { headers: { authorization: `Bearer ${key.body.secret}` } });
    expect((await keyed()).status).toBe(200);
    expect((await person.get("/api/team")).status).toBe(200);
    const off = await call("PATCH", `/Users/${userId}`, { schemas: [PATCH], Operations: [{ op: "replace", value: { active: false } }] });
    expect(off.status, off.text).toBe(200);
    expect(off.body.active).toBe(false);
    expect(await membership(server, team.ownerId, email)).toBeNull();
    expect((await person.get("/api/auth/session")).body.user).toBeNull();
    expect((await keyed()).status).toBe(401);
    const audit = await server.ctx.storage.db
      .selectFrom("admin_audit")
      .select(["action", "team_id", "target_id"])
      .where("action", "like", "scim.%")
      .orderBy("id")
      .execute();
    expect(audit.map((a) => a.action)).toEqual([
      "scim.user_create",
      "scim.user_update",
      "scim.group_create",
      "scim.group_update",
      "scim.group_update",
      "scim.group_update",
      "scim.user_deactivate",
    ]);
    expect(new Set(audit.map((a) => a.team_id))).toEqual(new Set([team.ownerId]));
    // The provider vouching for them again (OIDC or SAML, both through enterpriseMember) does not bring them back.
    const ssoSignIn = () =>
      server.ctx.sso.signIn.enterpriseMember(
        { id: team.connectionId, owner_id: team.ownerId },
        { issuer: "https://93.184.215.14/", subject: "dana-okta" },
        email,
        "Dana",
      );
    await expect(ssoSignIn()).rejects.toMatchObject({ code: "sso_failed", extra: { reason: "deprovisioned" } });
    expect(await membership(server, team.ownerId, email)).toBeNull();
    // Active again: back in the team with the role of their groups.
    const on = await call("PATCH", `/Users/${userId}`, { schemas: [PATCH], Operations: [{ op: "replace", value: { active: true } }] });
    expect(on.body.active).toBe(true);
    expect((await membership(server, team.ownerId, email))?.role).toBe("member");
    expect((await ssoSignIn()).email).toBe(email);
  });

  it("deletes the group and the user: 204, then 404 in SCIM's error schema", async () => {
    expect((await call("DELETE", `/Groups/${groupId}`)).status).toBe(204);
    expect(scimError(await call("GET", `/Groups/${groupId}`))).toEqual([404, undefined]);
    expect((await call("DELETE", `/Users/${userId}`)).status).toBe(204);
    expect(scimError(await call("GET", `/Users/${userId}`))).toEqual([404, undefined]);
    expect(await membership(server, team.ownerId, email)).toBeNull();
    // The account stays (its own links are its own); only the team membership went.
    expect(await server.ctx.accounts.byEmail(email)).not.toBeNull();
  });
});
