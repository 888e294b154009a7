// /scim/v2/Groups (RFC 7644; docs/scim.md): a group whose displayName is a role (admin, member, viewer) gives its
// members that role in the team (the highest of their groups; member without one); a group named
// folder:<folder name>:<none|read|write> gives access to that folder (read per request: teams/folder-groups.ts); any
// other group is kept with its members so that the provider's pushes succeed, and gives nothing. Every change is
// audited with the team's id.
import type { Transaction } from "kysely";
import type { Database, ScimGroupRow } from "../../storage/schema.js";
import { newId } from "../../shared/ids.js";
import { isUniqueViolation } from "../../storage/unique-violation.js";
import type { SsoDeps } from "../deps.js";
import { ScimError, invalidSyntax, invalidValue, notFound } from "./errors.js";
import { parseFilter } from "./filter.js";
import type { PatchOp } from "./patch.js";
import { type ScimResource, groupResource, listResponse } from "./resources.js";
import { ENTRA_GROUP_SCHEMA, GROUP_SCHEMA, checkSchemas, isObject, optionalText, text } from "./user-attributes.js";
import { applyRole, roleOf } from "./membership.js";
import type { ScimConnection } from "./tokens.js";

type Trx = Transaction<Database>;
type Deps = Pick<SsoDeps, "db" | "clock" | "caps" | "audit" | "origin">;

export interface GroupState {
  displayName: string;
  externalId: string | null;
  /** SCIM user ids; null: unchanged (a PATCH that does not touch members). */
  members: string[] | null;
}

const MAX_MEMBERS = 1_000;
const uniqueness = (name: string) => new ScimError(409, "uniqueness", `A group named ${name.slice(0, 100)} already exists`);
const actorOf = (c: ScimConnection) => ({ id: null, email: `SCIM (connection ${c.id})` });

function memberIds(v: unknown): string[] {
  const list = Array.isArray(v) ? v : [v];
  if (list.length > MAX_MEMBERS) throw invalidValue(`At most ${MAX_MEMBERS} members per request`);
  return list.map((m) => {
    if (!isObject(m)) throw invalidValue("members entries must be objects with a value");
    return text(m.value, "members.value", 64);
  });
}

export function groupFromBody(body: unknown): GroupState {
  if (!isObject(body)) throw invalidSyntax("The body must be a JSON object");
  checkSchemas(body.schemas, GROUP_SCHEMA, [ENTRA_GROUP_SCHEMA]);
  const displayName = text(body.displayName, "displayName", 200);
  if (displayName === "") throw invalidValue("displayName is required");
  return {
    displayName,
    externalId: optionalText(body.externalId, "externalId"),
    members: body.members === undefined || body.members === null ? [] : memberIds(body.members),
  };
}

/** The group after PATCH operations (Okta: members add/remove with `members[value eq "id"]`, displayName replace; Entra ID: Add/Remove members). */
const invalidPath = (p: string) => new ScimError(400, "invalidPath", `The path ${p.slice(0, 100)} is not supported`);

export function applyGroupPatch(before: GroupState & { members: string[] }, ops: PatchOp[]): GroupState & { members: string[] } {
  const g = { ...before, members: [...before.members] };
  const set = (key: string, op: PatchOp["op"], value: unknown) => {
    const k = key.toLowerCase();
    if (k === "displayname") {
      if (op === "remove") throw invalidValue("displayName cannot be removed");
      g.displayName = text(value, "displayName", 200);
      if (g.displayName === "") throw invalidValue("displayName is required");
    } else if (k === "externalid") g.externalId = op === "remove" ? null : optionalText(value, "externalId");
    else if (k === "members") {
      if (op === "replace") g.members = memberIds(value ?? []);
      else if (op === "add") g.members.push(...memberIds(value));
      else if (value === undefined || value === null) g.members = [];
      else {
        const gone = new Set(memberIds(value));
        g.members = g.members.filter((m) => !gone.has(m));
      }
    } else if (k !== "id" && k !== "schemas" && k !== "meta") throw new ScimError(400, "invalidPath", `The attribute ${key.slice(0, 100)} is not known`);
  };
  for (const o of ops) {
    if (o.path === null) {
      if (!isObject(o.value)) throw invalidValue("An operation without a path takes an object of attributes");
      for (const [k, v] of Object.entries(o.value)) set(k, o.op, v);
      continue;
    }
    const path = o.path.replace(/^urn:ietf:params:scim:schemas:core:2\.0:group:/i, "");
    const one = /^members\[\s*value\s+eq\s+"([^"]{1,64})"\s*\]$/i.exec(path);
    if (one) {
      if (o.op !== "remove") throw invalidPath(o.path);
      g.members = g.members.filter((m) => m !== one[1]);
    } else set(path, o.op, o.value);
  }
  g.members = [...new Set(g.members)];
  if (g.members.length > MAX_MEMBERS) throw invalidValue(`A group has at most ${MAX_MEMBERS} members here`);
  return g;
}

export class ScimGroups {
  constructor(private readonly deps: Deps) {}

  private rowOf(db: Trx | Deps["db"], c: ScimConnection, id: string): Promise<ScimGroupRow | undefined> {
    return db.selectFrom("scim_groups").selectAll().where("connection_id", "=", c.id).where("id", "=", id).executeTakeFirst();
  }

  private async membersOf(db: Trx | Deps["db"], groupId: string) {
    return db
      .selectFrom("scim_group_members")
      .innerJoin("scim_users", "scim_users.id", "scim_group_members.scim_user_id")
      .select(["scim_users.id", "scim_users.user_name"])
      .where("scim_group_members.group_id", "=", groupId)
      .orderBy("scim_users.user_name_key")
      .execute();
  }

  async list(c: ScimConnection, filter: string | undefined, startIndex: number, count: number, withMembers: boolean): Promise<ScimResource> {
    let q = this.deps.db.selectFrom("scim_groups").where("connection_id", "=", c.id);
    for (const f of filter === undefined ? [] : parseFilter(filter, ["displayname", "externalid", "id"])) {
      if (f.attribute === "displayname") q = q.where("display_key", "=", f.value.trim().toLowerCase());
      else if (f.attribute === "externalid") q = q.where("external_id", "=", f.value);
      else q = q.where("id", "=", f.value);
    }
    const total = await q.select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
    const rows =
      count === 0
        ? []
        : await q
            .selectAll()
            .orderBy("created_at")
            .orderBy("id")
            .limit(count)
            .offset(startIndex - 1)
            .execute();
    const out: ScimResource[] = [];
    for (const r of rows) out.push(groupResource(this.deps.origin, r, withMembers ? await this.membersOf(this.deps.db, r.id) : null));
    return listResponse(out, Number(total.n), startIndex);
  }

  async get(c: ScimConnection, id: string, withMembers = true): Promise<ScimResource> {
    const row = await this.rowOf(this.deps.db, c, id);
    if (!row) throw notFound(`Group ${id.slice(0, 64)}`);
    return groupResource(this.deps.origin, row, withMembers ? await this.membersOf(this.deps.db, id) : null);
  }

  /** The members written as given (each a user of this connection), and the roles of everyone whose groups changed. */
  private async setMembers(trx: Trx, c: ScimConnection, groupId: string, next: string[]): Promise<void> {
    const before = (await trx.selectFrom("scim_group_members").select("scim_user_id").where("group_id", "=", groupId).execute()).map((r) => r.scim_user_id);
    if (next.length > 0) {
      const known = await trx.selectFrom("scim_users").select("id").where("connection_id", "=", c.id).where("id", "in", next).execute();
      if (known.length !== next.length) throw invalidValue("A member is not a user of this connection");
    }
    const added = next.filter((m) => !before.includes(m));
    const removed = before.filter((m) => !next.includes(m));
    if (removed.length > 0) await trx.deleteFrom("scim_group_members").where("group_id", "=", groupId).where("scim_user_id", "in", removed).execute();
    if (added.length > 0)
      await trx
        .insertInto("scim_group_members")
        .values(added.map((m) => ({ group_id: groupId, scim_user_id: m })))
        .execute();
    await this.refreshRoles(trx, c, [...added, ...removed]);
  }

  private async refreshRoles(trx: Trx, c: ScimConnection, scimUserIds: string[]): Promise<void> {
    if (scimUserIds.length === 0) return;
    const users = await trx.selectFrom("scim_users").select(["id", "user_id", "active"]).where("id", "in", scimUserIds).execute();
    for (const u of users) if (Number(u.active) === 1) await applyRole(trx, c, u.user_id, await roleOf(trx, u.id));
  }

  private async write(c: ScimConnection, action: string, work: (trx: Trx, now: number) => Promise<{ summary: string; before?: unknown; after?: unknown }>) {
    const { db, clock, caps, audit } = this.deps;
    const now = clock.now();
    try {
      await db.transaction().execute(async (trx) => {
        await caps.hold(trx, c.ownerId);
        const { summary, before, after } = await work(trx, now);
        await audit.record(trx, actorOf(c), now, { action, targetType: "sso_connection", targetId: c.id, summary, before, after, teamId: c.ownerId });
      });
    } catch (e) {
      if (isUniqueViolation(e)) throw new ScimError(409, "uniqueness", "A group with this displayName already exists");
      throw e;
    }
  }

  private view = (g: GroupState & { members: string[] }) => ({ display_name: g.displayName, external_id: g.externalId, members: g.members });

  private async nameTaken(trx: Trx, c: ScimConnection, displayName: string, except: string | null): Promise<boolean> {
    let q = trx.selectFrom("scim_groups").select("id").where("connection_id", "=", c.id).where("display_key", "=", displayName.toLowerCase());
    if (except !== null) q = q.where("id", "!=", except);
    return (await q.executeTakeFirst()) !== undefined;
  }

  async create(c: ScimConnection, g: GroupState): Promise<ScimResource> {
    const id = newId();
    await this.write(c, "scim.group_create", async (trx, now) => {
      if (await this.nameTaken(trx, c, g.displayName, null)) throw uniqueness(g.displayName);
      await trx
        .insertInto("scim_groups")
        .values({
          id,
          connection_id: c.id,
          display_name: g.displayName,
          display_key: g.displayName.toLowerCase(),
          external_id: g.externalId,
          created_at: now,
          updated_at: now,
        })
        .execute();
      const members = [...new Set(g.members ?? [])];
      await this.setMembers(trx, c, id, members);
      return { summary: `SCIM created the group ${g.displayName}`, after: this.view({ ...g, members }) };
    });
    return this.get(c, id);
  }

  /** PUT (the whole group) or PATCH (operations on the stored one). */
  async update(c: ScimConnection, id: string, change: (before: GroupState & { members: string[] }) => GroupState, wantMembers = true): Promise<ScimResource> {
    await this.write(c, "scim.group_update", async (trx, now) => {
      const row = await this.rowOf(trx, c, id);
      if (!row) throw notFound(`Group ${id.slice(0, 64)}`);
      const before = { displayName: row.display_name, externalId: row.external_id, members: (await this.membersOf(trx, id)).map((m) => m.id) };
      const next = change(before);
      const after = { ...next, members: next.members === null ? before.members : [...new Set(next.members)] };
      if (after.displayName.toLowerCase() !== row.display_key && (await this.nameTaken(trx, c, after.displayName, id))) throw uniqueness(after.displayName);
      await trx
        .updateTable("scim_groups")
        .set({ display_name: after.displayName, display_key: after.displayName.toLowerCase(), external_id: after.externalId, updated_at: now })
        .where("id", "=", id)
        .execute();
      await this.setMembers(trx, c, id, after.members);
      // A rename into or out of a role name changes the role of every member.
      if (after.displayName.toLowerCase() !== row.display_key) await this.refreshRoles(trx, c, after.members);
      return { summary: `SCIM updated the group ${after.displayName}`, before: this.view(before), after: this.view(after) };
    });
    return this.get(c, id, wantMembers);
  }

  async remove(c: ScimConnection, id: string): Promise<void> {
    await this.write(c, "scim.group_delete", async (trx) => {
      const row = await this.rowOf(trx, c, id);
      if (!row) throw notFound(`Group ${id.slice(0, 64)}`);
      const members = (await this.membersOf(trx, id)).map((m) => m.id);
      await trx.deleteFrom("scim_group_members").where("group_id", "=", id).execute();
      await trx.deleteFrom("scim_groups").where("id", "=", id).execute();
      await this.refreshRoles(trx, c, members);
      return { summary: `SCIM deleted the group ${row.display_name}`, before: { display_name: row.display_name, external_id: row.external_id, members } };
    });
  }
}
