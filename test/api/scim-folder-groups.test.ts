// Folder access from the identity provider's groups (docs/scim.md, Groups and folders), on both engines: a SCIM group
// named folder:<folder name>:<none|read|write> gives its members that access to the owner's folder of that name (any
// case); the highest of several; a setting made in snip wins over it and taking the setting back returns to it; the
// role caps it; a member removed from the group, a group renamed out of the convention or a folder renamed into a
// group's name change what holds from the next request; a name no folder has gives nothing; GET /api/folders/{id}/access
// shows what the groups give.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { ApiClient } from "../helpers/client.js";
import { hashPassword } from "../../src/accounts/passwords.js";
import { GROUP, PATCH, USER, scim, scimTeam, type ScimTeam } from "../helpers/scim.js";

describe.each(ENGINES)("SCIM groups give folder access, on %s", (engine) => {
  let server: TestServer;
  let team: ScimTeam;
  let person: ApiClient;
  let personId = "";
  let scimUserId = "";
  const folders = { marketing: "", finance: "", design: "" };
  const links = { marketing: "", finance: "", design: "", loose: "" };
  const groups: Record<string, string> = {};

  const call = (method: string, path: string, body?: unknown) => scim(server, team.token, method, path, body);
  const group = async (displayName: string) => {
    const r = await call("POST", "/Groups", { schemas: [GROUP], displayName, members: [{ value: scimUserId }] });
    expect(r.status, r.text).toBe(201);
    groups[displayName] = r.body.id as string;
    return r.body.id as string;
  };
  const leave = async (displayName: string) => {
    const r = await call("PATCH", `/Groups/${groups[displayName]}`, {
      schemas: [PATCH],
      Operations: [{ op: "remove", path: `members[value eq "${scimUserId}"]` }],
    });
    expect(r.status, r.text).toBe(200);
  };
  const rejoin = async (displayName: string) => {
    const r = await call("PATCH", `/Groups/${groups[displayName]}`, {
      schemas: [PATCH],
      Operations: [{ op: "add", path: "members", value: [{ value: scimUserId }] }],
    });
    expect(r.status, r.text).toBe(200);
  };
  /** The owner's links the person lists, by folder name. */
  const seen = async () => {
    const r = await person.get(`/api/links?owner=${team.ownerId}&limit=100`);
    expect(r.status, r.text).toBe(200);
    const ids = new Set((r.body.links as { id: string }[]).map((l) => l.id));
    return Object.entries(links)
      .filter(([, id]) => ids.has(id))
      .map(([name]) => name)
      .sort();
  };
  const edit = async (name: keyof typeof links) => {
    const r = await person.patch(`/api/links/${links[name]}`, { title: `edited ${Date.now()}` });
    return r.status === 403 ? `403 ${r.body.folder_access ?? r.body.details?.folder_access ?? ""}`.trim() : String(r.status);
  };
  const accessRow = async (folderId: string) => {
    const r = await team.owner.get(`/api/folders/${folderId}/access`);
    expect(r.status, r.text).toBe(200);
    const row = (r.body.members as Array<{ user_id: string }>).find((m) => m.user_id === personId);
    return row;
  };

  beforeAll(async () => {
    server = await startTestServer({ engine });
    team = await scimTeam(server, "folders-acme.test");
    for (const name of ["marketing", "finance", "design"] as const) {
      const f = await team.owner.post("/api/folders", { name: name === "marketing" ? "Marketing" : name === "finance" ? "Finance" : "Design" });
      expect(f.status, f.text).toBe(201);
      folders[name] = f.body.folder.id;
    }
    for (const name of Object.keys(links) as (keyof typeof links)[]) {
      const r = await team.owner.post("/api/links", { url: `https://example.com/${name}`, folder_id: name === "loose" ? null : folders[name] });
      expect(r.status, r.text).toBe(201);
      links[name] = r.body.link.id;
    }
    const email = `fay-${engine}@folders-acme.test`;
    const made = await call("POST", "/Users", { schemas: [USER], userName: email, emails: [{ value: email, primary: true }], active: true });
    expect(made.status, made.text).toBe(201);
    scimUserId = made.body.id;
    const account = await server.ctx.storage.db.selectFrom("users").select("id").where("email", "=", email).executeTakeFirstOrThrow();
    personId = account.id;
    await server.ctx.storage.db
      .updateTable("users")
      .set({ password_hash: await hashPassword("correct horse 1") })
      .where("id", "=", personId)
      .execute();
    person = new ApiClient(server.url);
    expect((await person.login(email)).status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  it("without folder groups a member sees and edits every folder", async () => {
    expect(await seen()).toEqual(["design", "finance", "loose", "marketing"]);
    expect(await edit("marketing")).toBe("200");
    expect(await accessRow(folders.marketing)).toMatchObject({ role: "member", access: null, group_access: null, effective: "write" });
  });

  it("folder:<name>:none hides the folder, folder:<name>:read keeps it read only (names in any case); a name no folder has gives nothing", async () => {
    await group("folder:FINANCE:none");
    await group("Folder:marketing:Read");
    await group("folder:No such folder:none");
    expect(await seen()).toEqual(["design", "loose", "marketing"]);
    expect((await person.get(`/api/links/${links.finance}`)).status).toBe(404);
    expect(await edit("marketing")).toBe("403 read");
    expect(await edit("design")).toBe("200");
    expect(await accessRow(folders.marketing)).toMatchObject({ access: null, group_access: "read", effective: "read" });
    expect(await accessRow(folders.finance)).toMatchObject({ access: null, group_access: "none", effective: "none" });
    expect(await accessRow(folders.design)).toMatchObject({ access: null, group_access: null, effective: "write" });
  });

  it("of several groups on one folder the highest holds", async () => {
    await group("folder:Marketing:write");
    expect(await edit("marketing")).toBe("200");
    expect(await accessRow(folders.marketing)).toMatchObject({ group_access: "write", effective: "write" });
    await leave("folder:Marketing:write");
    expect(await edit("marketing")).toBe("403 read");
  });

  it("a setting made in snip wins over the groups, and taking it back returns to them", async () => {
    const put = await team.owner.request("PUT", `/api/folders/${folders.marketing}/access`, { user_id: personId, access: "write" });
    expect(put.status, put.text).toBe(200);
    expect(put.body.member).toMatchObject({ access: "write", group_access: "read", effective: "write" });
    expect(await edit("marketing")).toBe("200");
    const back = await team.owner.request("DELETE", `/api/folders/${folders.marketing}/access/${personId}`);
    expect(back.body.member).toMatchObject({ access: null, group_access: "read", effective: "read" });
    expect(await edit("marketing")).toBe("403 read");
  });

  it("leaving a group, a group renamed out of the convention and a folder renamed into a group's name hold from the next request", async () => {
    await leave("folder:FINANCE:none");
    expect(await seen()).toEqual(["design", "finance", "loose", "marketing"]);
    const renamed = await call("PATCH", `/Groups/${groups["Folder:marketing:Read"]}`, {
      schemas: [PATCH],
      Operations: [{ op: "replace", value: { displayName: "Marketing readers" } }],
    });
    expect(renamed.status, renamed.text).toBe(200);
    expect(await edit("marketing")).toBe("200");
    // The group naming a folder that did not exist: the Design folder renamed to that name is hidden at once.
    const r = await team.owner.patch(`/api/folders/${folders.design}`, { name: "No such folder" });
    expect(r.status, r.text).toBe(200);
    expect(await seen()).toEqual(["finance", "loose", "marketing"]);
  });

  it("the role caps what a group gives: a viewer in a write group reads only", async () => {
    await group("viewer");
    await rejoin("folder:Marketing:write");
    expect(await accessRow(folders.marketing)).toMatchObject({ role: "viewer", group_access: "write", effective: "read" });
    expect((await person.patch(`/api/links/${links.marketing}`, { title: "no" })).status).toBe(403);
  });
});
