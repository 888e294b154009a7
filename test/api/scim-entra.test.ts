// SCIM 2.0 as Microsoft Entra ID provisions (its "Develop a SCIM endpoint" reference requests): filter by userName
// (a non-address userName, the address in emails), create with the enterprise extension, PATCH with paths and
// capitalised ops ("Replace", "Add"), `emails[type eq "work"].value`, `name.familyName`, active as the string
// "False", groups created with Entra's extra schema, members added and removed with path `members`, group rename,
// and delete. Effects on the team and the audit log, on SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { GROUP, PATCH, USER, membership, scim, scimError, scimTeam, type ScimTeam } from "../helpers/scim.js";

const ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";

describe.each(ENGINES)("SCIM as Entra ID provisions, on %s", (engine) => {
  let server: TestServer;
  let team: ScimTeam;
  const userName = "Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1";
  const email = "test_user_ab6490ee@entra-acme.test";
  let id = "";
  let otherId = "";
  let groupId = "";

  beforeAll(async () => {
    server = await startTestServer({ engine });
    team = await scimTeam(server, "entra-acme.test");
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  const call = (method: string, path: string, body?: unknown) => scim(server, team.token, method, path, body);
  const patchUser = (ops: unknown[]) => call("PATCH", `/Users/${id}`, { schemas: [PATCH], Operations: ops });

  it("filters by a userName it does not know, then creates the user with the enterprise extension", async () => {
    const none = await call("GET", `/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`);
    expect([none.status, none.body.totalResults]).toEqual([200, 0]);
    const created = await call("POST", "/Users", {
      schemas: [USER, ENTERPRISE],
      externalId: "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef",
      userName,
      active: true,
      emails: [{ primary: true, type: "work", value: email }],
      meta: { resourceType: "User" },
      name: { formatted: "givenName familyName", familyName: "familyName", givenName: "givenName" },
      roles: [],
      [ENTERPRISE]: { department: "Sales", manager: { value: "x" } },
    });
    expect(created.status, created.text).toBe(201);
    id = created.body.id;
    expect(created.body).toMatchObject({
      userName,
      externalId: "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef",
      active: true,
      emails: [{ value: email, type: "work", primary: true }],
    });
    // A new account, made for the address, joined to the team as member.
    const account = await server.ctx.accounts.byEmail(email);
    expect(account?.email_verified_at).not.toBeNull();
    expect(await membership(server, team.ownerId, email)).toMatchObject({ role: "member", joined_by: "sso" });
    const byExternal = await call("GET", `/Users?filter=${encodeURIComponent('externalId eq "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef"')}`);
    expect(byExternal.body.Resources.map((r: { id: string }) => r.id)).toEqual([id]);
    const byEmail = await call("GET", `/Users?filter=${encodeURIComponent(`emails[type eq "work"].value eq "${email}"`)}`);
    expect(byEmail.body.Resources.map((r: { id: string }) => r.id)).toEqual([id]);
  });

  it("patches with paths and capitalised ops", async () => {
    const r = await patchUser([
      { op: "Replace", path: 'emails[type eq "work"].value', value: "updated@entra-acme.test" },
      { op: "Replace", path: "name.familyName", value: "updatedFamilyName" },
      { op: "Add", path: "name.givenName", value: "Given" },
      { op: "Replace", path: "userName", value: "5b50642d-79fc-4410-9e90-4c077cdd1a59@entra-acme.test" },
      { op: "Add", path: "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department", value: "Marketing" },
      { op: "Replace", path: "title", value: "Engineer" },
    ]);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({
      userName: "5b50642d-79fc-4410-9e90-4c077cdd1a59@entra-acme.test",
      name: { familyName: "updatedFamilyName", givenName: "Given", formatted: "givenName familyName" },
      emails: [{ value: "updated@entra-acme.test", type: "work", primary: true }],
      active: true,
    });
    // An unknown path: 400 invalidPath, and nothing of the request applied.
    const bad = await patchUser([
      { op: "Replace", path: "name.familyName", value: "never" },
      { op: "Replace", path: "favouriteColour", value: "blue" },
    ]);
    expect(scimError(bad)).toEqual([400, "invalidPath"]);
    expect((await call("GET", `/Users/${id}`)).body.name.familyName).toBe("updatedFamilyName");
    expect(scimError(await patchUser([{ op: "Replace", path: "active", value: "maybe" }]))).toEqual([400, "invalidValue"]);
    expect(scimError(await patchUser([{ op: "Frobnicate", path: "active", value: true }]))).toEqual([400, "invalidSyntax"]);
  });

  it("groups: created with Entra's schema, members added and removed with path members, renamed", async () => {
    const second = await call("POST", "/Users", { schemas: [USER], userName: "second@entra-acme.test", active: true });
    expect(second.status, second.text).toBe(201);
    otherId = second.body.id;
    const created = await call("POST", "/Groups", {
      schemas: [GROUP, "http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/Group"],
      externalId: "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159",
      displayName: "viewer",
      meta: { resourceType: "Group" },
    });
    expect(created.status, created.text).toBe(201);
    groupId = created.body.id;
    expect(created.body.members).toEqual([]);
    const found = await call("GET", `/Groups?excludedAttributes=members&filter=${encodeURIComponent('displayName eq "viewer"')}`);
    expect(found.body.Resources).toEqual([expect.not.objectContaining({ members: expect.anything() })]);
    const add = await call("PATCH", `/Groups/${groupId}`, {
      schemas: [PATCH],
      Operations: [
        {
          op: "Add",
          path: "members",
          value: [
            { $ref: null, value: id },
            { $ref: null, value: otherId },
          ],
        },
      ],
    });
    expect(add.status, add.text).toBe(200);
    expect(await membership(server, team.ownerId, email)).toMatchObject({ role: "viewer" });
    expect(await membership(server, team.ownerId, "second@entra-acme.test")).toMatchObject({ role: "viewer" });
    const remove = await call("PATCH", `/Groups/${groupId}`, {
      schemas: [PATCH],
      Operations: [{ op: "Remove", path: "members", value: [{ $ref: null, value: otherId }] }],
    });
    expect(remove.body.members.map((m: { value: string }) => m.value)).toEqual([id]);
    expect(await membership(server, team.ownerId, "second@entra-acme.test")).toMatchObject({ role: "member" });
    const renamed = await call("PATCH", `/Groups/${groupId}`, { schemas: [PATCH], Operations: [{ op: "Replace", path: "displayName", value: "Admin" }] });
    expect(renamed.body.displayName).toBe("Admin");
    expect(await membership(server, team.ownerId, email)).toMatchObject({ role: "admin" });
    // A member who is not a user of this connection: 400 invalidValue, the group unchanged.
    const unknown = await call("PATCH", `/Groups/${groupId}`, { schemas: [PATCH], Operations: [{ op: "Add", path: "members", value: [{ value: "nobody" }] }] });
    expect(scimError(unknown)).toEqual([400, "invalidValue"]);
    expect((await call("GET", `/Groups/${groupId}`)).body.members.map((m: { value: string }) => m.value)).toEqual([id]);
    // Two groups with one name: 409 uniqueness.
    expect(scimError(await call("POST", "/Groups", { schemas: [GROUP], displayName: "ADMIN" }))).toEqual([409, "uniqueness"]);
  });

  it('disables with active "False" (a string), then deletes', async () => {
    const off = await patchUser([{ op: "Replace", path: "active", value: "False" }]);
    expect(off.status, off.text).toBe(200);
    expect(off.body.active).toBe(false);
    expect(await membership(server, team.ownerId, email)).toBeNull();
    // While inactive, a group change gives no membership back.
    await call("PATCH", `/Groups/${groupId}`, { schemas: [PATCH], Operations: [{ op: "Remove", path: "members", value: [{ value: id }] }] });
    await call("PATCH", `/Groups/${groupId}`, { schemas: [PATCH], Operations: [{ op: "Add", path: "members", value: [{ value: id }] }] });
    expect(await membership(server, team.ownerId, email)).toBeNull();
    expect((await call("DELETE", `/Users/${id}`)).status).toBe(204);
    expect(scimError(await call("GET", `/Users/${id}`))).toEqual([404, undefined]);
    expect((await call("GET", `/Groups/${groupId}`)).body.members).toEqual([]);
    expect((await call("DELETE", `/Users/${otherId}`)).status).toBe(204);
    expect(await membership(server, team.ownerId, "second@entra-acme.test")).toBeNull();
    const actions = (
      await server.ctx.storage.db.selectFrom("admin_audit").select(["action", "team_id"]).where("action", "like", "scim.user_%").orderBy("id").execute()
    ).map((a) => [a.action, a.team_id]);
    expect(actions).toEqual([
      ["scim.user_create", team.ownerId],
      ["scim.user_update", team.ownerId],
      ["scim.user_create", team.ownerId],
      ["scim.user_deactivate", team.ownerId],
      ["scim.user_delete", team.ownerId],
      ["scim.user_delete", team.ownerId],
    ]);
  });
});
