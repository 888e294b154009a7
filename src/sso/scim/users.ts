// /scim/v2/Users (RFC 7644 3.3-3.6; docs/scim.md): the people an identity provider provisions through a connection.
// Each becomes (or is bound to) the snip account of their address, which must be on a verified domain of the
// connection, and a member of the owner's team while active. Every change is audited with the team's id.
import type { Transaction } from "kysely";
import type { Database, ScimUserRow, UserRow } from "../../storage/schema.js";
import { DomainError } from "../../shared/errors.js";
import { newId, randomToken } from "../../shared/ids.js";
import { normalizeEmail } from "../../accounts/accounts.js";
import { isUniqueViolation } from "../../storage/unique-violation.js";
import type { SsoDeps } from "../deps.js";
import { ScimError, invalidValue, notFound } from "./errors.js";
import { parseFilter } from "./filter.js";
import { type PatchOp, applyUserPatch } from "./patch.js";
import { type ScimResource, listResponse, stateOf, userResource } from "./resources.js";
import { type UserState, accountEmail } from "./user-attributes.js";
import { deprovision, grant, roleOf } from "./membership.js";
import type { ScimConnection } from "./tokens.js";

type Trx = Transaction<Database>;
type Deps = Pick<SsoDeps, "db" | "clock" | "caps" | "audit" | "accounts" | "origin" | "settings">;

const uniqueness = (userName: string) => new ScimError(409, "uniqueness", `A user with the userName ${userName.slice(0, 100)} already exists`);
const actorOf = (c: ScimConnection) => ({ id: null, email: `SCIM (connection ${c.id})` });

export class ScimUsers {
  constructor(private readonly deps: Deps) {}

  private async groupsOf(ids: string[]) {
    if (ids.length === 0) return new Map<string, { id: string; display_name: string }[]>();
    const rows = await this.deps.db
      .selectFrom("scim_group_members")
      .innerJoin("scim_groups", "scim_groups.id", "scim_group_members.group_id")
      .select(["scim_group_members.scim_user_id", "scim_groups.id", "scim_groups.display_name"])
      .where("scim_group_members.scim_user_id", "in", ids)
      .orderBy("scim_groups.display_key")
      .execute();
    const out = new Map<string, { id: string; display_name: string }[]>();
    for (const r of rows) out.set(r.scim_user_id, [...(out.get(r.scim_user_id) ?? []), { id: r.id, display_name: r.display_name }]);
    return out;
  }

  private async resource(row: ScimUserRow): Promise<ScimResource> {
    return userResource(this.deps.origin, row, (await this.groupsOf([row.id])).get(row.id) ?? []);
  }

  private rowOf(db: Trx | Deps["db"], c: ScimConnection, id: string): Promise<ScimUserRow | undefined> {
    return db.selectFrom("scim_users").selectAll().where("connection_id", "=", c.id).where("id", "=", id).executeTakeFirst();
  }

  async list(c: ScimConnection, filter: string | undefined, startIndex: number, count: number): Promise<ScimResource> {
    let q = this.deps.db.selectFrom("scim_users").innerJoin("users", "users.id", "scim_users.user_id").where("scim_users.connection_id", "=", c.id);
    for (const f of filter === undefined ? [] : parseFilter(filter, ["username", "externalid", "id", "emails"])) {
      if (f.attribute === "username") q = q.where("scim_users.user_name_key", "=", f.value.toLowerCase());
      else if (f.attribute === "externalid") q = q.where("scim_users.external_id", "=", f.value);
      else if (f.attribute === "id") q = q.where("scim_users.id", "=", f.value);
      // An email filter reads the account's address (the one the person was provisioned with).
      else q = q.where("users.email", "=", f.value.toLowerCase());
    }
    const total = await q.select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
    const rows =
      count === 0
        ? []
        : await q
            .selectAll("scim_users")
            .orderBy("scim_users.created_at")
            .orderBy("scim_users.id")
            .limit(count)
            .offset(startIndex - 1)
            .execute();
    const groups = await this.groupsOf(rows.map((r) => r.id));
    return listResponse(
      rows.map((r) => userResource(this.deps.origin, r, groups.get(r.id) ?? [])),
      Number(total.n),
      startIndex,
    );
  }

  async get(c: ScimConnection, id: string): Promise<ScimResource> {
    const row = await this.rowOf(this.deps.db, c, id);
    if (!row) throw notFound(`User ${id.slice(0, 64)}`);
    return this.resource(row);
  }

  /** The account of a provisioned address: it must be on a verified domain of this connection. */
  private async accountFor(c: ScimConnection, u: UserState): Promise<UserRow> {
    let email: string;
    try {
      email = normalizeEmail(accountEmail(u));
    } catch {
      throw invalidValue("The user needs an email address (emails or an address as userName)");
    }
    const domain = email.slice(email.lastIndexOf("@") + 1);
    const verified = await this.deps.db
      .selectFrom("sso_domains")
      .select("domain")
      .where("connection_id", "=", c.id)
      .where("domain", "=", domain)
      .where("status", "=", "verified")
      .executeTakeFirst();
    if (!verified) throw invalidValue(`${email} is not on a verified domain of this single sign-on connection`);
    const existing = await this.deps.accounts.byEmail(email);
    if (existing) return existing;
    const name = (u.displayName ?? [u.name.givenName, u.name.familyName].filter(Boolean).join(" ")).replace(/[\u0000-\u001f\u007f]/g, "").slice(0, 100);
    try {
      // No password anyone knows: the person signs in through single sign-on.
      return await this.deps.accounts.create({ email, password: randomToken(32), name, verified: true });
    } catch (e) {
      if (e instanceof DomainError && e.code === "conflict") return (await this.deps.accounts.byEmail(email)) as UserRow;
      throw e;
    }
  }

  private attributes(u: UserState): string {
    return JSON.stringify({ displayName: u.displayName, name: u.name, emails: u.emails });
  }

  async create(c: ScimConnection, u: UserState): Promise<ScimResource> {
    const account = await this.accountFor(c, u);
    const { db, clock, caps, audit } = this.deps;
    const now = clock.now();
    const id = newId();
    try {
      await db.transaction().execute(async (trx) => {
        await caps.hold(trx, c.ownerId);
        const taken = await trx
          .selectFrom("scim_users")
          .select("id")
          .where("connection_id", "=", c.id)
          .where((eb) => eb.or([eb("user_name_key", "=", u.userName.toLowerCase()), eb("user_id", "=", account.id)]))
          .executeTakeFirst();
        if (taken) throw uniqueness(u.userName);
        await trx
          .insertInto("scim_users")
          .values({
            id,
            connection_id: c.id,
            user_id: account.id,
            user_name: u.userName,
            user_name_key: u.userName.toLowerCase(),
            external_id: u.externalId,
            active: u.active ? 1 : 0,
            attributes: this.attributes(u),
            created_at: now,
            updated_at: now,
          })
          .execute();
        if (u.active) await grant(trx, c, account.id, "member", this.deps.settings.enterpriseMembersMax, now);
        await audit.record(trx, actorOf(c), now, {
          action: "scim.user_create",
          targetType: "account",
          targetId: account.id,
          summary: `SCIM provisioned ${account.email} (${u.userName})`,
          after: { scim_id: id, user_name: u.userName, external_id: u.externalId, active: u.active },
          teamId: c.ownerId,
        });
      });
    } catch (e) {
      if (isUniqueViolation(e)) throw uniqueness(u.userName);
      throw e;
    }
    return this.get(c, id);
  }

  /** PUT: the whole resource replaced. */
  replace(c: ScimConnection, id: string, next: UserState): Promise<ScimResource> {
    return this.update(c, id, () => next);
  }

  patch(c: ScimConnection, id: string, ops: PatchOp[]): Promise<ScimResource> {
    return this.update(c, id, (before) => applyUserPatch(before, ops));
  }

  private async update(c: ScimConnection, id: string, change: (before: UserState) => UserState): Promise<ScimResource> {
    const { db, clock, caps, audit } = this.deps;
    const now = clock.now();
    try {
      await db.transaction().execute(async (trx) => {
        await caps.hold(trx, c.ownerId);
        const row = await this.rowOf(trx, c, id);
        if (!row) throw notFound(`User ${id.slice(0, 64)}`);
        const before = stateOf(row);
        const after = change(before);
        if (after.userName.toLowerCase() !== row.user_name_key) {
          const taken = await trx
            .selectFrom("scim_users")
            .select("id")
            .where("connection_id", "=", c.id)
            .where("user_name_key", "=", after.userName.toLowerCase())
            .executeTakeFirst();
          if (taken) throw uniqueness(after.userName);
        }
        await trx
          .updateTable("scim_users")
          .set({
            user_name: after.userName,
            user_name_key: after.userName.toLowerCase(),
            external_id: after.externalId,
            active: after.active ? 1 : 0,
            attributes: this.attributes(after),
            updated_at: now,
          })
          .where("id", "=", id)
          .execute();
        const deactivated = before.active && !after.active;
        let ended = { sessions: 0, keys: 0 };
        if (deactivated) ended = await deprovision(trx, c, row.user_id, now);
        else if (after.active && !before.active) await grant(trx, c, row.user_id, await roleOf(trx, id), this.deps.settings.enterpriseMembersMax, now);
        await audit.record(trx, actorOf(c), now, {
          action: deactivated ? "scim.user_deactivate" : "scim.user_update",
          targetType: "account",
          targetId: row.user_id,
          summary: deactivated
            ? `SCIM deactivated ${after.userName}: left the team, ${ended.sessions} session(s) and ${ended.keys} API key(s) ended`
            : `SCIM updated ${after.userName}`,
          before: { user_name: before.userName, external_id: before.externalId, active: before.active },
          after: { user_name: after.userName, external_id: after.externalId, active: after.active },
          teamId: c.ownerId,
        });
      });
    } catch (e) {
      if (isUniqueViolation(e)) throw new ScimError(409, "uniqueness", "Another user has this userName");
      throw e;
    }
    return this.get(c, id);
  }

  /** DELETE: the person leaves the team (sessions and keys end); their account and its own links stay theirs. */
  async remove(c: ScimConnection, id: string): Promise<void> {
    const { db, clock, caps, audit } = this.deps;
    const now = clock.now();
    await db.transaction().execute(async (trx) => {
      await caps.hold(trx, c.ownerId);
      const row = await this.rowOf(trx, c, id);
      if (!row) throw notFound(`User ${id.slice(0, 64)}`);
      const ended = await deprovision(trx, c, row.user_id, now);
      await trx.deleteFrom("scim_group_members").where("scim_user_id", "=", id).execute();
      await trx.deleteFrom("scim_users").where("id", "=", id).execute();
      await audit.record(trx, actorOf(c), now, {
        action: "scim.user_delete",
        targetType: "account",
        targetId: row.user_id,
        summary: `SCIM deleted ${row.user_name}: left the team, ${ended.sessions} session(s) and ${ended.keys} API key(s) ended`,
        before: { scim_id: id, user_name: row.user_name, external_id: row.external_id, active: Number(row.active) === 1 },
        after: null,
        teamId: c.ownerId,
      });
    });
  }
}
