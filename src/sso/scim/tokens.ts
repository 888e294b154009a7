// A connection's SCIM bearer token (docs/scim.md): made by the connection's owner and shown once, kept as its SHA-256,
// one per connection (a new one replaces the old at once), revoked by its owner; every change audited with the team.
import type { UserRow } from "../../storage/schema.js";
import { DomainError } from "../../shared/errors.js";
import { iso } from "../../shared/clock.js";
import { randomBase62, sha256Hex } from "../../shared/ids.js";
import { can, requireCapability } from "../../accounts/plans.js";
import type { SsoDeps } from "../deps.js";
import { ScimError } from "./errors.js";

export const SCIM_PATH = "/scim/v2";
const TOKEN_PREFIX = "scim_";
const TOKEN_RE = /^scim_[A-Za-z0-9]{43}$/;

/** The connection a valid token speaks for, with its owner (the team). */
export interface ScimConnection {
  id: string;
  ownerId: string;
}

export interface ScimTokenState {
  base_url: string;
  token_set: boolean;
  token_created_at: string | null;
}

type Deps = Pick<SsoDeps, "db" | "clock" | "audit" | "origin">;

export class ScimTokens {
  constructor(private readonly deps: Deps) {}

  private async connectionOf(owner: UserRow) {
    requireCapability(owner.plan, "sso", "SCIM provisioning");
    const c = await this.deps.db.selectFrom("sso_connections").select("id").where("owner_id", "=", owner.id).executeTakeFirst();
    if (!c) throw new DomainError("not_found", "Set up single sign-on first: SCIM provisions the people of a connection");
    return c;
  }

  /** Whether the caller's connection has a token and since when (never the token). */
  async state(owner: UserRow): Promise<ScimTokenState> {
    const c = await this.connectionOf(owner);
    const row = await this.deps.db.selectFrom("scim_tokens").select("created_at").where("connection_id", "=", c.id).executeTakeFirst();
    return { base_url: this.deps.origin + SCIM_PATH, token_set: row !== undefined, token_created_at: row ? iso(Number(row.created_at)) : null };
  }

  /** A new token for the caller's connection, replacing the old one in the same transaction; answered once. */
  async issue(owner: UserRow): Promise<ScimTokenState & { token: string }> {
    if (owner.status !== "active") throw new DomainError("account_inactive", "This account is suspended");
    const c = await this.connectionOf(owner);
    const token = TOKEN_PREFIX + randomBase62(43);
    const now = this.deps.clock.now();
    await this.deps.db.transaction().execute(async (trx) => {
      const before = await trx.deleteFrom("scim_tokens").where("connection_id", "=", c.id).returning("created_at").executeTakeFirst();
      await trx
        .insertInto("scim_tokens")
        .values({ connection_id: c.id, token_hash: sha256Hex(token), created_at: now })
        .execute();
      await this.deps.audit.record(trx, { id: owner.id, email: owner.email }, now, {
        action: "sso.scim_token",
        targetType: "sso_connection",
        targetId: c.id,
        summary: before ? `${owner.email} replaced the SCIM token of their single sign-on` : `${owner.email} made a SCIM token for their single sign-on`,
        before: before ? { token_created_at: iso(Number(before.created_at)) } : null,
        after: { token_created_at: iso(now) },
        teamId: owner.id,
      });
    });
    return { base_url: this.deps.origin + SCIM_PATH, token_set: true, token_created_at: iso(now), token };
  }

  /** Revokes the caller's token (404 when there is none). */
  async revoke(owner: UserRow): Promise<void> {
    const c = await this.connectionOf(owner);
    const now = this.deps.clock.now();
    await this.deps.db.transaction().execute(async (trx) => {
      const gone = await trx.deleteFrom("scim_tokens").where("connection_id", "=", c.id).returning("created_at").executeTakeFirst();
      if (!gone) throw new DomainError("not_found", "There is no SCIM token to revoke");
      await this.deps.audit.record(trx, { id: owner.id, email: owner.email }, now, {
        action: "sso.scim_token_revoke",
        targetType: "sso_connection",
        targetId: c.id,
        summary: `${owner.email} revoked the SCIM token of their single sign-on`,
        before: { token_created_at: iso(Number(gone.created_at)) },
        after: null,
        teamId: owner.id,
      });
    });
  }

  /** The connection of an `Authorization: Bearer` header's token: 401 when missing or unknown, 403 off Enterprise. */
  async authenticate(header: string | undefined): Promise<ScimConnection> {
    const m = /^Bearer ([^\s]{1,200})$/i.exec(header ?? "");
    if (!m) throw new ScimError(401, null, "Send the connection's SCIM token as Authorization: Bearer <token>");
    if (!TOKEN_RE.test(m[1]!)) throw new ScimError(401, null, "The SCIM token is unknown or was replaced");
    const row = await this.deps.db
      .selectFrom("scim_tokens")
      .innerJoin("sso_connections", "sso_connections.id", "scim_tokens.connection_id")
      .innerJoin("users", "users.id", "sso_connections.owner_id")
      .select(["sso_connections.id", "sso_connections.owner_id", "users.plan", "users.status"])
      .where("scim_tokens.token_hash", "=", sha256Hex(m[1]!))
      .executeTakeFirst();
    if (!row) throw new ScimError(401, null, "The SCIM token is unknown or was replaced");
    // A connection whose owner left Enterprise (or was suspended) is kept but provisions no one.
    if (!can(row.plan, "sso")) throw new ScimError(403, null, "SCIM provisioning needs the Enterprise plan");
    if (row.status !== "active") throw new ScimError(403, null, "The team's account is suspended");
    return { id: row.id, ownerId: row.owner_id };
  }
}
