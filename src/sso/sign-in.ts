// Signing in through an OpenID provider (docs/sso.md): the authorisation code flow with PKCE, its state and
// nonce kept server-side (sealed, ten minutes, used once), the answer checked by openid-client (state, nonce,
// issuer, audience, signature), `email_verified` required, the account found by the identity it signed in before
// (issuer + subject; its email follows the provider's) or else found or created by its address and bound to that
// identity, a member of the Enterprise owner's team, and the operator role from a claim of the instance-wide provider.
import * as oidc from "openid-client";
import type { UserRow } from "../storage/schema.js";
import { DomainError } from "../shared/errors.js";
import { isUniqueViolation } from "../storage/unique-violation.js";
import { randomToken, sha256Hex } from "../shared/ids.js";
import { can } from "../accounts/plans.js";
import { normalizeEmail } from "../accounts/accounts.js";
import { reserve } from "../accounts/sign-in-throttle.js";
import { setOperator } from "../admin/operators.js";
import type { Actor } from "../admin/audit-log.js";
import { CALLBACK_PATH, LOGIN_TTL_MS, type SsoDeps } from "./deps.js";
import type { ProviderSettings } from "./oidc-client.js";
import { joinTeam } from "./membership.js";
import { SamlSignIn } from "./saml.js";

/** Sign-ins one client address may start in LOGIN_TTL_MS (each writes a row and may ask the provider). */
export const STARTS_PER_ADDRESS = 60;
const IDP_ACTOR: Actor = { id: null, email: "identity provider (OIDC_OPERATOR_CLAIM)" };
const IDP_EMAIL_ACTOR: Actor = { id: null, email: "identity provider (email claim)" };

/** Why a callback was refused: the `reason` of its sso_failed answer. */
/** A person at a provider: the ID token's issuer and subject. */
interface Identity {
  issuer: string;
  subject: string;
}

export type SsoFailure =
  "state" | "nonce" | "issuer" | "audience" | "email_unverified" | "email_missing" | "domain" | "identity" | "provider" | "denied" | "plan" | "deprovisioned";

function fail(reason: SsoFailure, message: string): DomainError {
  return new DomainError("sso_failed", message, undefined, { reason });
}

interface Checks {
  nonce: string;
  verifier: string;
}

interface Flow {
  /** null: the instance-wide provider. */
  connection: { id: string; owner_id: string; issuer: string; client_id: string; client_secret_sealed: string } | null;
  provider: ProviderSettings;
}

/** openid-client's refusal as a reason: the claim it compared, or the state. */
function reasonOf(err: unknown): SsoFailure {
  for (let e = err as { cause?: unknown; code?: string; message?: string } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    const claim = (e.cause as { claim?: string } | undefined)?.claim;
    if (claim === "aud" || claim === "azp") return "audience";
    if (claim === "iss") return "issuer";
    if (claim === "nonce") return "nonce";
    if (typeof e.message === "string" && /"state"/.test(e.message)) return "state";
    if (typeof e.message === "string" && /\biss\b|issuer/.test(e.message)) return "issuer";
  }
  return "provider";
}

/** A claim by name, or by a dotted path into nested objects (Keycloak's realm_access.roles). */
function claimAt(claims: Record<string, unknown>, path: string): unknown {
  if (path in claims) return claims[path];
  return path.split(".").reduce<unknown>((v, k) => (v && typeof v === "object" ? (v as Record<string, unknown>)[k] : undefined), claims);
}

export function claimHolds(claims: Record<string, unknown>, path: string, value: string): boolean {
  const v = claimAt(claims, path);
  if (Array.isArray(v)) return v.some((x) => String(x) === value);
  return typeof v === "string" ? v === value || v.split(" ").includes(value) : v === true && value === "true";
}

/** A sign-in started: an OpenID provider's address, or a SAML connection's request (a redirect or a form to post). */
export type StartedSignIn =
  { kind: "oidc"; url: string; state: string } | { kind: "saml"; connectionId: string; state: string; redirect: string | null; form: string | null };

export class SsoSignIn {
  /** SAML sign-ins: the same members, bindings and door as OpenID's. */
  readonly saml: SamlSignIn;

  constructor(private readonly deps: SsoDeps) {
    this.saml = new SamlSignIn(deps, (c, identity, email, name) => this.enterpriseMember(c, identity, email, name));
  }

  get redirectUri(): string {
    return this.deps.origin + CALLBACK_PATH;
  }

  /** The Enterprise connection that signs in this address (a verified domain of an Enterprise owner), or null. */
  async connectionFor(email: string) {
    const domain = email.slice(email.lastIndexOf("@") + 1);
    const row = await this.deps.db
      .selectFrom("sso_domains")
      .innerJoin("sso_connections", "sso_connections.id", "sso_domains.connection_id")
      .innerJoin("users", "users.id", "sso_connections.owner_id")
      .select([
        "sso_connections.id",
        "sso_connections.owner_id",
        "sso_connections.issuer",
        "sso_connections.client_id",
        "sso_connections.client_secret_sealed",
        "sso_connections.require_sso",
        "sso_connections.protocol",
        "users.plan",
        "users.email as owner_email",
      ])
      .where("sso_domains.domain", "=", domain)
      .where("sso_domains.status", "=", "verified")
      .executeTakeFirst();
    // A connection whose owner left Enterprise is kept but signs no one in.
    return row && can(row.plan, "sso") ? row : null;
  }

  private flowOf(connection: Flow["connection"]): Flow {
    if (connection) {
      const secret = this.deps.box.open(connection.client_secret_sealed, connection.id);
      if (secret === null) throw fail("provider", "The connection's client secret cannot be read (SESSION_SECRET changed?): its owner must enter it again");
      return { connection, provider: { issuer: connection.issuer, clientId: connection.client_id, clientSecret: secret, guarded: true } };
    }
    const o = this.deps.settings.oidc;
    if (!o) throw new DomainError("not_found", "Single sign-on for the whole instance is not configured");
    return { connection: null, provider: { issuer: o.issuer.href, clientId: o.clientId, clientSecret: o.clientSecret, guarded: false } };
  }

  /**
   * Starts a sign-in: the provider's authorisation URL and the state the browser keeps in a cookie; for a
   * connection that signs in with SAML, its AuthnRequest (saml.ts) and the connection the cookie is for.
   */
  async start(input: { email?: string; instance?: boolean }, ip: string): Promise<StartedSignIn> {
    // Every start counts (it keeps an sso_logins row), checked and counted in one step.
    await reserve(this.deps.rate, this.deps.clock.now(), {
      bucket: `sso-start:ip:${ip}`,
      windowMs: LOGIN_TTL_MS,
      limit: STARTS_PER_ADDRESS,
      message: "Too many sign-ins started from this address; try again later",
    });
    let connection: (Flow["connection"] & { protocol?: "oidc" | "saml" }) | null = null;
    let email: string | undefined;
    if (!input.instance) {
      if (input.email === undefined)
        throw new DomainError("invalid_request", "Give an email address (email=) or instance=1", [{ field: "email", message: "is required" }]);
      email = normalizeEmail(input.email);
      connection = await this.connectionFor(email);
      if (!connection) throw new DomainError("not_found", "No single sign-on is set up for this address; sign in with your password");
      if (connection.protocol === "saml") return { kind: "saml", connectionId: connection.id, ...(await this.saml.start(connection)) };
    }
    const flow = this.flowOf(connection);
    const config = await this.deps.providers.configuration(flow.provider);
    const state = oidc.randomState();
    const checks: Checks = { nonce: oidc.randomNonce(), verifier: oidc.randomPKCECodeVerifier() };
    const now = this.deps.clock.now();
    const stateHash = sha256Hex(state);
    await this.deps.db.deleteFrom("sso_logins").where("expires_at", "<=", now).execute();
    await this.deps.db
      .insertInto("sso_logins")
      .values({
        state_hash: stateHash,
        connection_id: connection?.id ?? null,
        checks_sealed: this.deps.box.seal(JSON.stringify(checks), stateHash),
        expires_at: now + LOGIN_TTL_MS,
      })
      .execute();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: this.redirectUri,
      scope: "openid email profile",
      state,
      nonce: checks.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(checks.verifier),
      code_challenge_method: "S256",
      ...(email ? { login_hint: email } : {}),
    });
    return { kind: "oidc", url: url.href, state };
  }

  /** A SAML start by connection id (GET /api/sso/saml/{connection}/start: an app tile's initiate-login address). */
  async startSaml(connectionId: string, ip: string): Promise<{ state: string; redirect: string | null; form: string | null }> {
    await reserve(this.deps.rate, this.deps.clock.now(), {
      bucket: `sso-start:ip:${ip}`,
      windowMs: LOGIN_TTL_MS,
      limit: STARTS_PER_ADDRESS,
      message: "Too many sign-ins started from this address; try again later",
    });
    const connection = await this.deps.db
      .selectFrom("sso_connections")
      .innerJoin("users", "users.id", "sso_connections.owner_id")
      .select(["sso_connections.id", "sso_connections.owner_id", "sso_connections.protocol", "users.plan"])
      .where("sso_connections.id", "=", connectionId)
      .executeTakeFirst();
    if (!connection || connection.protocol !== "saml" || !can(connection.plan, "sso"))
      throw new DomainError("not_found", "There is no SAML single sign-on connection here");
    return this.saml.start(connection);
  }

  /** Takes the sign-in's row (once: a replayed state finds nothing) and opens its checks. */
  private async takeLogin(state: string | undefined, cookieState: string | undefined): Promise<{ connectionId: string | null; checks: Checks }> {
    if (!state) throw fail("state", "The answer from the identity provider carries no state; start signing in again");
    // The state must be the one this browser started with: a callback link sent to someone else signs no one in.
    if (!cookieState || cookieState !== state) throw fail("state", "This sign-in was not started in this browser; start signing in again");
    const stateHash = sha256Hex(state);
    const row = await this.deps.db.deleteFrom("sso_logins").where("state_hash", "=", stateHash).returningAll().executeTakeFirst();
    if (!row || Number(row.expires_at) <= this.deps.clock.now()) throw fail("state", "This sign-in expired or was already used; start signing in again");
    const opened = this.deps.box.open(row.checks_sealed, stateHash);
    if (opened === null) throw fail("state", "This sign-in cannot be read; start signing in again");
    return { connectionId: row.connection_id, checks: JSON.parse(opened) as Checks };
  }

  /**
   * Finishes a sign-in from the provider's answer (the callback's full URL): the account the provider vouched
   * for, and whether it came through the instance-wide provider. The door (src/auth/) decides the rest.
   */
  async callback(currentUrl: URL, cookieState: string | undefined): Promise<{ user: UserRow; instance: boolean }> {
    const state = currentUrl.searchParams.get("state") ?? undefined;
    const { connectionId, checks } = await this.takeLogin(state, cookieState);
    if (currentUrl.searchParams.has("error"))
      throw fail("denied", `The identity provider refused the sign-in: ${currentUrl.searchParams.get("error")?.slice(0, 100)}`);
    let connection: Flow["connection"] = null;
    if (connectionId) {
      connection = (await this.deps.db.selectFrom("sso_connections").selectAll().where("id", "=", connectionId).executeTakeFirst()) ?? null;
      if (!connection) throw fail("provider", "The single sign-on connection was removed; sign in with your password");
    }
    const flow = this.flowOf(connection);
    const config = await this.deps.providers.configuration(flow.provider);
    const claims = await this.exchange(config, currentUrl, checks, state as string);
    if (typeof claims.email !== "string" || claims.email === "") throw fail("email_missing", "The identity provider gave no email address (the `email` scope)");
    // Entra ID sends no email_verified; its optional claim xms_edov (the domain's owner verified the address) stands for it.
    if (claims.email_verified !== true && claims.xms_edov !== true) throw fail("email_unverified", "The identity provider has not verified this email address");
    let email: string;
    try {
      email = normalizeEmail(claims.email);
    } catch {
      throw fail("email_missing", "The identity provider's email address is not valid");
    }
    const name = typeof claims.name === "string" ? claims.name.replace(/[\u0000-\u001f\u007f]/g, "").slice(0, 100) : "";
    const identity = { issuer: String(claims.iss), subject: String(claims.sub) };
    if (connection) return { user: await this.enterpriseMember(connection, identity, email, name), instance: false };
    return { user: await this.instanceUser(identity, email, name, claims), instance: true };
  }

  /**
   * The account of a provider identity: the one it signed in before (taking the address the provider gives now),
   * else the address's account (created if new), bound to it from now on. An account bound to another subject
   * of this provider is refused: the provider gave its address to someone else.
   */
  private async accountOf(identity: Identity, email: string, name: string): Promise<UserRow> {
    const db = this.deps.db;
    const now = this.deps.clock.now();
    const bound = () =>
      db.selectFrom("sso_identities").select("user_id").where("issuer", "=", identity.issuer).where("subject", "=", identity.subject).executeTakeFirst();
    const known = await bound();
    const knownUser = known ? await this.deps.accounts.byId(known.user_id) : null;
    if (knownUser) {
      await db.updateTable("sso_identities").set({ last_seen_at: now }).where("issuer", "=", identity.issuer).where("subject", "=", identity.subject).execute();
      return knownUser.email === email ? knownUser : this.followEmail(knownUser, email);
    }
    const user = await this.findOrCreate(email, name);
    await db
      .insertInto("sso_identities")
      .values({ ...identity, user_id: user.id, created_at: now, last_seen_at: now })
      .onConflict((oc) => oc.doNothing())
      .execute();
    if ((await bound())?.user_id !== user.id)
      throw fail("identity", "This address belongs to another person at your identity provider: ask your administrator");
    return user;
  }

  /**
   * The provider gives a known identity another (verified) address: the account takes it, so its email follows the
   * person. An address another account holds stays with that account; this one keeps its address and signs in.
   */
  private async followEmail(user: UserRow, email: string): Promise<UserRow> {
    const { db, clock, audit } = this.deps;
    const now = clock.now();
    try {
      return await db.transaction().execute(async (trx) => {
        if (await trx.selectFrom("users").select("id").where("email", "=", email).executeTakeFirst()) return user;
        await trx.updateTable("users").set({ email, email_verified_at: now, updated_at: now }).where("id", "=", user.id).execute();
        await audit.record(trx, IDP_EMAIL_ACTOR, now, {
          action: "account.email",
          targetType: "account",
          targetId: user.id,
          summary: `email address of ${user.email} changed to ${email} by the identity provider`,
          before: { email: user.email },
          after: { email },
        });
        return { ...user, email, email_verified_at: now, updated_at: now };
      });
    } catch (e) {
      // Another account took the address meanwhile.
      if (isUniqueViolation(e)) return user;
      throw e;
    }
  }

  /** The code exchanged (openid-client checks state, nonce, PKCE, issuer, audience, signature); ID token claims with user info. */
  private async exchange(config: oidc.Configuration, currentUrl: URL, checks: Checks, state: string): Promise<Record<string, unknown>> {
    try {
      const tokens = await oidc.authorizationCodeGrant(config, currentUrl, {
        pkceCodeVerifier: checks.verifier,
        expectedState: state,
        expectedNonce: checks.nonce,
        idTokenExpected: true,
      });
      const idClaims = tokens.claims() as Record<string, unknown> | undefined;
      if (!idClaims) throw fail("provider", "The identity provider gave no ID token");
      const want = this.deps.settings.oidc?.operatorClaim;
      const verifiedKnown = typeof idClaims.email_verified === "boolean" || idClaims.xms_edov === true;
      if (typeof idClaims.email === "string" && verifiedKnown && (!want || claimAt(idClaims, want) !== undefined)) return idClaims;
      // Claims the ID token leaves out (many providers put them in user info only).
      const info = await oidc.fetchUserInfo(config, tokens.access_token, idClaims.sub as string);
      return { ...info, ...idClaims, email: idClaims.email ?? info.email, email_verified: idClaims.email_verified ?? info.email_verified } as Record<
        string,
        unknown
      >;
    } catch (e) {
      if (e instanceof DomainError) throw e;
      const reason = reasonOf(e);
      throw fail(reason, `The identity provider's answer was refused (${reason}): start signing in again`);
    }
  }

  /** A person the connection's provider vouched for (OpenID or SAML): found or created, bound, and joined to the owner's team. */
  async enterpriseMember(
    connection: Pick<NonNullable<Flow["connection"]>, "id" | "owner_id">,
    identity: Identity,
    email: string,
    name: string,
  ): Promise<UserRow> {
    const current = await this.connectionFor(email);
    // The address must be on a verified domain of this very connection: another owner's provider cannot sign in these people.
    if (!current || current.id !== connection.id) throw fail("domain", "This address is not on a verified domain of the connection");
    const user = await this.accountOf(identity, email, name);
    if (user.id === connection.owner_id) return user;
    // Deactivated through SCIM (docs/scim.md): no sign-in through the connection puts them back, whatever the provider says.
    const deactivated = await this.deps.db
      .selectFrom("scim_users")
      .select("id")
      .where("connection_id", "=", connection.id)
      .where("user_id", "=", user.id)
      .where("active", "=", 0)
      .executeTakeFirst();
    if (deactivated) throw fail("deprovisioned", "Your organisation's directory has deactivated your access to this team: ask your administrator");
    await joinTeam(this.deps, connection.owner_id, user.id, this.deps.settings.enterpriseMembersMax);
    return user;
  }

  private async instanceUser(identity: Identity, email: string, name: string, claims: Record<string, unknown>): Promise<UserRow> {
    let user = await this.accountOf(identity, email, name);
    const o = this.deps.settings.oidc;
    if (o?.operatorClaim && o.operatorValue) {
      const operator = claimHolds(claims, o.operatorClaim, o.operatorValue);
      // Granted and taken away at every sign-in; an operator's break-glass account keeps its role.
      const breakGlass = await this.isBreakGlass(user.id);
      if (operator !== (Number(user.is_admin) === 1) && !(breakGlass && !operator)) {
        user = await setOperator({ db: this.deps.db, clock: this.deps.clock, audit: this.deps.audit }, IDP_ACTOR, user.email, operator);
      }
    }
    return user;
  }

  private async findOrCreate(email: string, name: string): Promise<UserRow> {
    const existing = await this.deps.accounts.byEmail(email);
    if (existing) {
      // The provider vouches for the address.
      if (existing.email_verified_at === null) {
        const now = this.deps.clock.now();
        await this.deps.db.updateTable("users").set({ email_verified_at: now, updated_at: now }).where("id", "=", existing.id).execute();
        return { ...existing, email_verified_at: now };
      }
      return existing;
    }
    // No password anyone knows: the account signs in through its provider (or sets a password by reset).
    try {
      return await this.deps.accounts.create({ email, password: randomToken(32), name, verified: true });
    } catch (e) {
      if (e instanceof DomainError && e.code === "conflict") return (await this.deps.accounts.byEmail(email)) as UserRow;
      throw e;
    }
  }

  async isBreakGlass(userId: string): Promise<boolean> {
    return (await this.deps.db.selectFrom("sso_break_glass").select("user_id").where("user_id", "=", userId).executeTakeFirst()) !== undefined;
  }
}
