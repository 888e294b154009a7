// Enterprise owners' OpenID Connect connections (docs/sso.md): set (issuer checked like a webhook receiver,
// secret sealed), read (the secret never), remove, prove an email domain by DNS TXT record, and the operators'
// list and removal. Every change is in the audit log.
import type { Kysely } from "kysely";
import type { Database, SsoConnectionRow, SsoDomainRow, SsoSamlRow, UserRow } from "../storage/schema.js";
import { DomainError } from "../shared/errors.js";
import { iso } from "../shared/clock.js";
import { newId, randomBase62 } from "../shared/ids.js";
import { requireCapability } from "../accounts/plans.js";
import { normalizeHostname } from "../domains/hostnames.js";
import { type RecordState, checkRecords } from "../domains/dns-check.js";
import type { Actor } from "../admin/audit-log.js";
import type { AdminSsoConnection, SsoConnection, SsoDomain, SsoPutBody } from "../contract/sso.js";
import { isUniqueViolation } from "../storage/unique-violation.js";
import { CALLBACK_PATH, type SsoDeps } from "./deps.js";
import { claimDropped } from "./domain-notices.js";
import { newSamlRow, samlView } from "./saml-settings.js";
import { connectionFields } from "./connection-fields.js";

export const TXT_LABEL = "_snip-sso";
const TXT_PREFIX = "snip-sso=";
/** One verify request per domain in this window (each may ask DNS for a few seconds). */
export const SSO_VERIFY_INTERVAL_MS = 5_000;

function txtRecord(d: Pick<SsoDomainRow, "domain" | "txt_token">) {
  return { type: "TXT" as const, name: `${TXT_LABEL}.${d.domain}`, value: `${TXT_PREFIX}${d.txt_token}` };
}

type TxtState = RecordState;

/** The domain's TXT record as DNS answers it now. */
export async function checkTxt(deps: Pick<SsoDeps, "dns">, d: Pick<SsoDomainRow, "domain" | "txt_token">): Promise<TxtState> {
  const record = txtRecord(d);
  return (await checkRecords(deps.dns, { hostname: d.domain, cnameTarget: "", txtName: record.name, txtValue: record.value })).txt;
}

/** What the owner is told to do about a TXT record that is not right. */
export function txtAction(d: Pick<SsoDomainRow, "domain" | "txt_token">, t: Exclude<TxtState, { state: "ok" }>): string {
  const record = txtRecord(d);
  if (t.state === "missing") return `No TXT record found at ${record.name}: add it with the value ${record.value}, then verify again.`;
  if (t.state === "wrong") return `The TXT record at ${record.name} holds "${t.found}": set it to ${record.value}.`;
  return `DNS is not answering for ${record.name} (${t.reason}): check the domain's name servers, then verify again.`;
}

export function publicDomain(d: SsoDomainRow): SsoDomain {
  return {
    domain: d.domain,
    status: d.status,
    record: txtRecord(d),
    // A verified domain whose TXT record is gone shows what to restore, and by when.
    next_action:
      d.status === "verified" && d.failing_since === null
        ? null
        : (d.next_action ?? `Add the TXT record ${txtRecord(d).name} with the value ${txtRecord(d).value} at your DNS provider, then verify.`),
    last_checked_at: d.last_checked_at === null ? null : iso(Number(d.last_checked_at)),
    verified_at: d.verified_at === null ? null : iso(Number(d.verified_at)),
  };
}

const actorOf = (u: UserRow): Actor => ({ id: u.id, email: u.email });

/** Another connection proved the domain first (its verify committed, or this claim was dropped by it). */
const claimLost = (domain: string) =>
  new DomainError("conflict", `${domain} was verified for another organisation's single sign-on first`, [{ field: "domain", message: `${domain} is taken` }]);

/** What the audit log keeps of a connection: never the secret. */
function auditView(c: Pick<SsoConnectionRow, "issuer" | "client_id" | "require_sso" | "protocol">, domains: string[]) {
  return { protocol: c.protocol, issuer: c.issuer, client_id: c.client_id, require_sso: Number(c.require_sso) === 1, domains };
}

export class SsoConnections {
  constructor(private readonly deps: SsoDeps) {}

  private async rowOf(ownerId: string): Promise<SsoConnectionRow | null> {
    return (await this.deps.db.selectFrom("sso_connections").selectAll().where("owner_id", "=", ownerId).executeTakeFirst()) ?? null;
  }

  private domainsOf(db: Kysely<Database>, connectionId: string): Promise<SsoDomainRow[]> {
    return db.selectFrom("sso_domains").selectAll().where("connection_id", "=", connectionId).orderBy("domain").execute();
  }

  private samlOf(connectionId: string): Promise<SsoSamlRow | undefined> {
    return this.deps.db.selectFrom("sso_saml").selectAll().where("connection_id", "=", connectionId).executeTakeFirst();
  }

  private view(c: SsoConnectionRow, domains: SsoDomainRow[], saml: SsoSamlRow | undefined): SsoConnection {
    return {
      id: c.id,
      protocol: c.protocol,
      issuer: c.issuer,
      client_id: c.client_id,
      client_secret_set: c.client_secret_sealed !== "",
      require_sso: Number(c.require_sso) === 1,
      domains: domains.map(publicDomain),
      redirect_uri: this.deps.origin + CALLBACK_PATH,
      saml: saml ? samlView(this.deps.origin, saml) : null,
      created_at: iso(Number(c.created_at)),
      updated_at: iso(Number(c.updated_at)),
    };
  }

  async get(owner: UserRow): Promise<SsoConnection | null> {
    const c = await this.rowOf(owner.id);
    return c ? this.view(c, await this.domainsOf(this.deps.db, c.id), await this.samlOf(c.id)) : null;
  }

  private normalizeDomains(raw: string[]): string[] {
    const out = new Set<string>();
    raw.forEach((d, i) => out.add(normalizeHostname(d, [this.deps.ownHost], `domains.${i}`)));
    return [...out].sort();
  }

  async set(owner: UserRow, body: SsoPutBody): Promise<SsoConnection> {
    requireCapability(owner.plan, "sso", "Single sign-on");
    if (owner.status !== "active") throw new DomainError("account_inactive", "This account is suspended");
    const before = await this.rowOf(owner.id);
    const domains = this.normalizeDomains(body.domains);
    const { db, clock, audit } = this.deps;
    const id = before?.id ?? newId();
    const fields = await connectionFields(this.deps, id, before, body);
    const { protocol, issuer } = fields;
    // snip's SAML key pair, made the first time the connection turns to SAML (the provider needs its metadata first).
    const samlRow = protocol === "saml" && !(before && (await this.samlOf(id))) ? await newSamlRow(this.deps, id) : null;
    const now = clock.now();
    const requireSso = body.require_sso ?? Number(before?.require_sso ?? 0) === 1;
    const row: SsoConnectionRow = {
      id,
      owner_id: owner.id,
      ...fields,
      require_sso: requireSso ? 1 : 0,
      created_at: before?.created_at ?? now,
      updated_at: now,
    };
    await db.transaction().execute(async (trx) => {
      // A pending claim elsewhere blocks nobody: only a domain verified on another connection is taken.
      const taken = await trx
        .selectFrom("sso_domains")
        .select("domain")
        .where("domain", "in", domains)
        .where("connection_id", "!=", id)
        .where("status", "=", "verified")
        .executeTakeFirst();
      if (taken)
        throw new DomainError("conflict", `${taken.domain} belongs to another single sign-on connection`, [
          { field: "domains", message: `${taken.domain} is taken` },
        ]);
      const old = before ? await this.domainsOf(trx, id) : [];
      if (before) await trx.updateTable("sso_connections").set(row).where("id", "=", id).execute();
      else await trx.insertInto("sso_connections").values(row).execute();
      if (samlRow)
        await trx
          .insertInto("sso_saml")
          .values(samlRow)
          .onConflict((oc) => oc.column("connection_id").doNothing())
          .execute();
      const dropped = old.filter((d) => !domains.includes(d.domain)).map((d) => d.domain);
      if (dropped.length) await trx.deleteFrom("sso_domains").where("connection_id", "=", id).where("domain", "in", dropped).execute();
      const added = domains.filter((d) => !old.some((o) => o.domain === d));
      for (const domain of added) {
        await trx
          .insertInto("sso_domains")
          .values({
            domain,
            connection_id: id,
            txt_token: randomBase62(32),
            status: "pending",
            next_action: null,
            last_checked_at: null,
            verified_at: null,
            created_at: now,
            next_check_at: null,
            failing_since: null,
          })
          .execute();
      }
      await audit.record(trx, actorOf(owner), now, {
        action: before ? "sso.update" : "sso.create",
        teamId: owner.id,
        targetType: "sso_connection",
        targetId: id,
        summary: `${owner.email} ${before ? "changed" : "set up"} single sign-on with ${protocol === "saml" ? "SAML" : issuer}${body.client_secret !== undefined && before ? " (new client secret)" : ""}`,
        before: before
          ? auditView(
              before,
              old.map((d) => d.domain),
            )
          : undefined,
        after: auditView(row, domains),
      });
    });
    return (await this.get(owner)) as SsoConnection;
  }

  async remove(owner: UserRow): Promise<void> {
    const c = await this.rowOf(owner.id);
    if (!c) throw new DomainError("not_found", "There is no single sign-on connection");
    await this.removeRow(actorOf(owner), c, `${owner.email} removed their single sign-on connection`);
  }

  private async removeRow(actor: Actor, c: SsoConnectionRow, summary: string): Promise<void> {
    const { db, clock, audit } = this.deps;
    await db.transaction().execute(async (trx) => {
      const domains = (await this.domainsOf(trx, c.id)).map((d) => d.domain);
      const r = await trx.deleteFrom("sso_connections").where("id", "=", c.id).executeTakeFirst();
      if (Number(r.numDeletedRows) === 0) throw new DomainError("not_found", "There is no such single sign-on connection");
      await audit.record(trx, actor, clock.now(), {
        action: "sso.delete",
        teamId: c.owner_id,
        targetType: "sso_connection",
        targetId: c.id,
        summary,
        // The owner tells the account holder's own removal from an operator's (audit-log.ts, actorRole).
        before: { ...auditView(c, domains), owner_id: c.owner_id },
      });
    });
  }

  /**
   * Checks the domain's TXT record through DNS_SERVERS (the custom domains' check), at most once per
   * SSO_VERIFY_INTERVAL_MS per claim. The first connection to prove a domain keeps it: the other connections'
   * pending claims of it are dropped in the same transaction and their owners told.
   */
  async verifyDomain(owner: UserRow, rawDomain: string): Promise<SsoDomain> {
    const c = await this.rowOf(owner.id);
    const domain = rawDomain.trim().toLowerCase().replace(/\.$/, "");
    const d = c
      ? await this.deps.db.selectFrom("sso_domains").selectAll().where("connection_id", "=", c.id).where("domain", "=", domain).executeTakeFirst()
      : undefined;
    if (c && !d) {
      // The claim was dropped because another organisation verified the domain first: say so, as a verify
      // racing that one is told (whether this request came a moment before or after it).
      const taken = await this.deps.db
        .selectFrom("sso_domains")
        .select("domain")
        .where("domain", "=", domain)
        .where("status", "=", "verified")
        .executeTakeFirst();
      if (taken) throw claimLost(domain);
    }
    if (!c || !d) throw new DomainError("not_found", "No such domain on your single sign-on connection");
    const { db, clock, rate } = this.deps;
    // Per claim: one organisation checking its claim over and over holds back no other claimant.
    const bucket = `sso-verify:${c.id}:${domain}`;
    const state = await rate.state(bucket, clock.now() - SSO_VERIFY_INTERVAL_MS);
    if (state.count > 0)
      throw new DomainError(
        "rate_limited",
        `${domain} was checked a moment ago; try again in a few seconds`,
        undefined,
        undefined,
        Math.ceil(SSO_VERIFY_INTERVAL_MS / 1000),
      );
    await rate.record(bucket, clock.now());
    const t = await checkTxt(this.deps, d);
    const now = clock.now();
    if (t.state !== "ok") {
      const next = txtAction(d, t);
      const r = await db
        .updateTable("sso_domains")
        .set({ next_action: next, last_checked_at: now })
        .where("connection_id", "=", c.id)
        .where("domain", "=", domain)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) === 0) throw claimLost(domain);
      return publicDomain({ ...d, next_action: next, last_checked_at: now });
    }
    let verified: SsoDomainRow;
    let dropped: { connection_id: string; owner_email: string }[];
    try {
      ({ verified, dropped } = await db.transaction().execute((trx) => this.takeDomain(trx, owner, c, d, now)));
    } catch (e) {
      // The partial unique index: another connection's verify of this domain committed first.
      if (isUniqueViolation(e)) throw claimLost(domain);
      throw e;
    }
    for (const x of dropped) await claimDropped(this.deps, x.owner_email, domain);
    return publicDomain(verified);
  }

  /** Marks the claim verified and drops every other connection's pending claim of the domain (audited); returns their owners. */
  private async takeDomain(trx: Kysely<Database>, owner: UserRow, c: SsoConnectionRow, d: SsoDomainRow, now: number) {
    const { audit, recheckMs, dialect } = this.deps;
    // Every claim of the domain locked, in one order: a verify racing this one waits here and then finds its
    // claim dropped (rather than the two transactions waiting on each other's rows).
    let q = trx.selectFrom("sso_domains").select(["connection_id", "status"]).where("domain", "=", d.domain).orderBy("connection_id");
    if (dialect === "postgres") q = q.forUpdate();
    const claims = await q.execute();
    if (!claims.some((x) => x.connection_id === c.id) || claims.some((x) => x.connection_id !== c.id && x.status === "verified")) throw claimLost(d.domain);
    const verified: SsoDomainRow = {
      ...d,
      status: "verified",
      next_action: null,
      last_checked_at: now,
      verified_at: d.verified_at ?? now,
      next_check_at: now + recheckMs,
      failing_since: null,
    };
    await trx
      .updateTable("sso_domains")
      .set({
        status: verified.status,
        next_action: null,
        last_checked_at: now,
        verified_at: verified.verified_at,
        next_check_at: verified.next_check_at,
        failing_since: null,
      })
      .where("connection_id", "=", c.id)
      .where("domain", "=", d.domain)
      .execute();
    if (d.status !== "verified") {
      await audit.record(trx, actorOf(owner), now, {
        action: "sso.domain_verified",
        teamId: owner.id,
        targetType: "sso_connection",
        targetId: c.id,
        summary: `${d.domain} verified for single sign-on`,
        after: { domain: d.domain },
      });
    }
    const others = claims.filter((x) => x.connection_id !== c.id).map((x) => x.connection_id);
    if (others.length === 0) return { verified, dropped: [] };
    const dropped = await trx
      .selectFrom("sso_connections")
      .innerJoin("users", "users.id", "sso_connections.owner_id")
      .select(["sso_connections.id as connection_id", "users.email as owner_email"])
      .where("sso_connections.id", "in", others)
      .execute();
    await trx.deleteFrom("sso_domains").where("domain", "=", d.domain).where("connection_id", "in", others).where("status", "=", "pending").execute();
    for (const x of dropped) {
      await audit.record(trx, actorOf(owner), now, {
        action: "sso.domain_claim_dropped",
        targetType: "sso_connection",
        targetId: x.connection_id,
        summary: `${d.domain} removed from another single sign-on connection: ${owner.email} verified it first`,
        before: { domain: d.domain, status: "pending" },
      });
    }
    return { verified, dropped };
  }

  /** Operators: every connection with its owner and domains. */
  async list(): Promise<AdminSsoConnection[]> {
    const rows = await this.deps.db
      .selectFrom("sso_connections")
      .innerJoin("users", "users.id", "sso_connections.owner_id")
      .selectAll("sso_connections")
      .select("users.email as owner_email")
      .orderBy("sso_connections.created_at", "desc")
      .limit(1_000)
      .execute();
    const domains = rows.length
      ? await this.deps.db
          .selectFrom("sso_domains")
          .selectAll()
          .where(
            "connection_id",
            "in",
            rows.map((r) => r.id),
          )
          .orderBy("domain")
          .execute()
      : [];
    return rows.map((r) => ({
      id: r.id,
      owner_id: r.owner_id,
      owner_email: r.owner_email,
      issuer: r.issuer,
      client_id: r.client_id,
      require_sso: Number(r.require_sso) === 1,
      domains: domains.filter((d) => d.connection_id === r.id).map((d) => ({ domain: d.domain, status: d.status })),
      created_at: iso(Number(r.created_at)),
      updated_at: iso(Number(r.updated_at)),
    }));
  }

  /** Operators: removes a connection (its domains go with it; its members stay members). */
  async removeById(operator: Actor, id: string): Promise<void> {
    const c = await this.deps.db.selectFrom("sso_connections").selectAll().where("id", "=", id).executeTakeFirst();
    if (!c) throw new DomainError("not_found", "There is no such single sign-on connection");
    await this.removeRow(operator, c, `single sign-on connection with ${c.issuer} removed by an operator`);
  }
}
