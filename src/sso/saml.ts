// Signing in through a SAML 2.0 identity provider (docs/sso.md, SAML), SP-initiated: snip sends a signed
// AuthnRequest (HTTP-Redirect, or HTTP-POST where the provider offers only that) and takes the Response at its
// Assertion Consumer Service by HTTP-POST. node-saml checks the signature (the response's or the assertion's, one is
// required; only the signed element is read, so a wrapped signature finds nothing), the issuer, the audience, the
// validity window (a small clock skew) and InResponseTo, which must name the request this very browser started
// (its cookie); snip checks the recipient and destination and uses each assertion id once. The person is then found
// or created and bound to the provider's entity id and NameID as an OpenID member is (sign-in.ts), and the door
// (src/auth/) decides the rest.
import { DOMParser } from "@xmldom/xmldom";
import { SAML, ValidateInResponseTo, type CacheProvider, type Profile } from "@node-saml/node-saml";
import type { SsoConnectionRow, UserRow } from "../storage/schema.js";
import { DomainError } from "../shared/errors.js";
import { randomToken, sha256Hex } from "../shared/ids.js";
import { normalizeEmail } from "../accounts/accounts.js";
import { LOGIN_TTL_MS, type SsoDeps } from "./deps.js";
import { idpOf, samlUrls, spKeyBinding } from "./saml-settings.js";

/** How far the provider's clock may be from ours. */
export const SAML_CLOCK_SKEW_MS = 60_000;
/** An assertion valid for longer than this is kept as used only this long past now (and refused, see below). */
const MAX_ASSERTION_LIFETIME_MS = 24 * 3_600_000;
const ASSERTION = "urn:oasis:names:tc:SAML:2.0:assertion";
const PROTOCOL = "urn:oasis:names:tc:SAML:2.0:protocol";
const BEARER = "urn:oasis:names:tc:SAML:2.0:cm:bearer";
const NAMEID_EMAIL = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress";

/** The attributes an email address is read from, first found wins (Okta, Entra ID and ADFS claim names, eduPerson mail). */
const EMAIL_ATTRIBUTES = [
  "email",
  "mail",
  "emailaddress",
  "Email",
  "EmailAddress",
  "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress",
  "urn:oid:0.9.2342.19200300.100.1.3",
  "user.email",
];
const NAME_ATTRIBUTES = ["displayName", "name", "http://schemas.microsoft.com/identity/claims/displayname", "urn:oid:2.16.840.1.113730.3.1.241"];
const GIVEN = ["firstName", "givenName", "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname", "urn:oid:2.5.4.42"];
const FAMILY = ["lastName", "surname", "sn", "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname", "urn:oid:2.5.4.4"];

export type SamlFailure = "state" | "signature" | "audience" | "expired" | "issuer" | "recipient" | "replay" | "malformed" | "email_missing" | "provider";

function fail(reason: SamlFailure, message: string): DomainError {
  return new DomainError("sso_failed", message, undefined, { reason });
}

/** node-saml's refusal as a stable reason. */
function reasonOf(message: string): SamlFailure {
  if (/InResponseTo/i.test(message)) return "state";
  if (/signature|No certificate|digest/i.test(message)) return "signature";
  if (/audience/i.test(message)) return "audience";
  if (/expired|NotBefore|NotOnOrAfter|not yet valid|subject confirmation/i.test(message)) return "expired";
  if (/issuer/i.test(message)) return "issuer";
  if (/status|Responder|Requester|AuthnFailed/i.test(message)) return "provider";
  return "malformed";
}

function first(attrs: Record<string, unknown>, names: string[]): string | undefined {
  for (const n of names) {
    const v = attrs[n];
    const s = Array.isArray(v) ? v[0] : v;
    if (typeof s === "string" && s.trim() !== "") return s.trim();
  }
  return undefined;
}

type Connection = Pick<SsoConnectionRow, "id" | "owner_id">;
export type MemberOf = (connection: Connection, identity: { issuer: string; subject: string }, email: string, name: string) => Promise<UserRow>;

export class SamlSignIn {
  constructor(
    private readonly deps: SsoDeps,
    private readonly memberOf: MemberOf,
  ) {}

  /** node-saml for a connection; `cache` decides which request ids its InResponseTo may name. */
  private async samlFor(connectionId: string, cache: CacheProvider): Promise<SAML> {
    const row = await this.deps.db.selectFrom("sso_saml").selectAll().where("connection_id", "=", connectionId).executeTakeFirst();
    const idp = row ? idpOf(row) : null;
    if (!row || !idp) throw new DomainError("not_found", "SAML sign-in is not set up on this connection: its owner must give the identity provider's metadata");
    const key = this.deps.box.open(row.sp_key_sealed, spKeyBinding(connectionId));
    if (key === null) throw fail("provider", "The connection's SAML key cannot be read (SESSION_SECRET changed?): its owner must set SAML up again");
    const urls = samlUrls(this.deps.origin, connectionId);
    return new SAML({
      entryPoint: idp.ssoUrl,
      issuer: urls.entityId,
      callbackUrl: urls.acs,
      audience: urls.entityId,
      idpCert: idp.certs,
      idpIssuer: idp.entityId,
      privateKey: key,
      publicCert: row.sp_cert,
      signatureAlgorithm: "sha256",
      digestAlgorithm: "sha256",
      identifierFormat: null,
      disableRequestedAuthnContext: true,
      authnRequestBinding: idp.binding === "post" ? "HTTP-POST" : "HTTP-Redirect",
      // One valid signature is required: the response's (over its assertion) or the assertion's own.
      wantAuthnResponseSigned: false,
      wantAssertionsSigned: false,
      acceptedClockSkewMs: SAML_CLOCK_SKEW_MS,
      validateInResponseTo: ValidateInResponseTo.always,
      requestIdExpirationPeriodMs: LOGIN_TTL_MS,
      cacheProvider: cache,
    });
  }

  /**
   * Starts a sign-in: the AuthnRequest (a redirect address, or an auto-submitting form for HTTP-POST) and the value
   * the browser keeps in a cookie, bound server-side to the request id the answer must name.
   */
  async start(connection: Connection): Promise<{ state: string; redirect: string | null; form: string | null }> {
    let requestId: string | null = null;
    const cache: CacheProvider = {
      saveAsync: async (key, value) => {
        requestId = key;
        return { value, createdAt: this.deps.clock.now() };
      },
      getAsync: async () => null,
      removeAsync: async () => null,
    };
    const saml = await this.samlFor(connection.id, cache);
    const isPost =
      (await this.deps.db.selectFrom("sso_saml").select("idp_sso_binding").where("connection_id", "=", connection.id).executeTakeFirst())?.idp_sso_binding ===
      "post";
    const redirect = isPost ? null : await saml.getAuthorizeUrlAsync("", undefined, {});
    const form = isPost ? await saml.getAuthorizeFormAsync("") : null;
    if (requestId === null) throw new Error("node-saml made no AuthnRequest id");
    const state = randomToken(32);
    const now = this.deps.clock.now();
    await this.deps.db.deleteFrom("sso_saml_requests").where("expires_at", "<=", now).execute();
    await this.deps.db
      .insertInto("sso_saml_requests")
      .values({ state_hash: sha256Hex(state), connection_id: connection.id, request_id: requestId, expires_at: now + LOGIN_TTL_MS })
      .execute();
    return { state, redirect, form };
  }

  /** The Response posted to the connection's ACS: the account it vouches for (a member of the owner's team). */
  async acs(connectionId: string, samlResponse: string, cookieState: string | undefined): Promise<UserRow> {
    const { db, clock } = this.deps;
    // The request this browser started, taken once: a response to another browser's request names another id.
    if (!cookieState) throw fail("state", "This sign-in was not started in this browser (no cookie); start signing in again");
    const taken = await db
      .deleteFrom("sso_saml_requests")
      .where("state_hash", "=", sha256Hex(cookieState))
      .where("connection_id", "=", connectionId)
      .returningAll()
      .executeTakeFirst();
    if (!taken || Number(taken.expires_at) <= clock.now()) throw fail("state", "This sign-in expired or was already used; start signing in again");
    const connection = await db.selectFrom("sso_connections").selectAll().where("id", "=", connectionId).executeTakeFirst();
    if (!connection || connection.protocol !== "saml") throw fail("provider", "SAML sign-in is not set up on this connection");
    // As node-saml keeps it: the request's instant (its age is checked against LOGIN_TTL_MS).
    const startedAt = new Date(Number(taken.expires_at) - LOGIN_TTL_MS).toISOString();
    const cache: CacheProvider = {
      saveAsync: async () => null,
      getAsync: async (key) => (key === taken.request_id ? startedAt : null),
      removeAsync: async () => null,
    };
    const saml = await this.samlFor(connectionId, cache);
    let profile: Profile | null;
    try {
      ({ profile } = await saml.validatePostResponseAsync({ SAMLResponse: samlResponse }));
    } catch (e) {
      const message = (e as Error).message ?? "";
      const reason = reasonOf(message);
      throw fail(reason, `The identity provider's answer was refused (${reason}): start signing in again`);
    }
    if (!profile) throw fail("malformed", "The identity provider's answer holds no assertion");
    const urls = samlUrls(this.deps.origin, connectionId);
    const assertionXml = profile.getAssertionXml?.();
    if (!assertionXml) throw fail("malformed", "The identity provider's answer holds no signed assertion");
    const checked = this.checkAssertion(samlResponse, assertionXml, urls.acs);
    await this.useOnce(connectionId, checked.id, checked.expiresAt);
    const attrs = (profile.attributes ?? {}) as Record<string, unknown>;
    const nameId = profile.nameID;
    if (!nameId) throw fail("malformed", "The assertion names no subject (NameID)");
    const rawEmail = first(attrs, EMAIL_ATTRIBUTES) ?? (profile.nameIDFormat === NAMEID_EMAIL ? nameId : undefined);
    if (!rawEmail) throw fail("email_missing", "The identity provider gave no email address (an email attribute, or a NameID of the emailAddress format)");
    let email: string;
    try {
      email = normalizeEmail(rawEmail);
    } catch {
      throw fail("email_missing", "The identity provider's email address is not valid");
    }
    const given = [first(attrs, GIVEN), first(attrs, FAMILY)].filter(Boolean).join(" ");
    const name = (first(attrs, NAME_ATTRIBUTES) ?? given).replace(/[\u0000-\u001f\u007f]/g, "").slice(0, 100);
    // The provider's entity id (checked by node-saml against its metadata), apart from OpenID issuers.
    return this.memberOf(connection, { issuer: `saml:${String(profile.issuer)}`, subject: nameId }, email, name);
  }

  /**
   * What node-saml leaves to the service: the response's Destination (when present) and the bearer confirmation's
   * Recipient are this ACS; the signed assertion's id, and until when it could be used (its latest NotOnOrAfter).
   */
  private checkAssertion(samlResponse: string, assertionXml: string, acs: string): { id: string; expiresAt: number } {
    const parse = (xml: string) =>
      new DOMParser({ errorHandler: { warning: () => undefined, error: () => undefined, fatalError: () => undefined } }).parseFromString(xml, "text/xml");
    const response = parse(Buffer.from(samlResponse, "base64").toString("utf8")).documentElement;
    const destination = response?.localName === "Response" && response.namespaceURI === PROTOCOL ? response.getAttribute("Destination") : null;
    if (destination && destination !== acs) throw fail("recipient", "The answer was sent to another service (Destination)");
    const assertion = parse(assertionXml).documentElement;
    if (!assertion || assertion.localName !== "Assertion" || assertion.namespaceURI !== ASSERTION)
      throw fail("malformed", "The signed assertion cannot be read");
    const id = assertion.getAttribute("ID");
    if (!id || id.length > 256) throw fail("malformed", "The assertion has no ID");
    const bearer = Array.from(assertion.getElementsByTagNameNS(ASSERTION, "SubjectConfirmation")).filter((s) => s.getAttribute("Method") === BEARER);
    const data = bearer.flatMap((s) => Array.from(s.getElementsByTagNameNS(ASSERTION, "SubjectConfirmationData")));
    if (data.length === 0 || !data.some((d) => d.getAttribute("Recipient") === acs))
      throw fail("recipient", "The assertion is for another service (its bearer confirmation names another Recipient)");
    const ends = [...data, ...Array.from(assertion.getElementsByTagNameNS(ASSERTION, "Conditions"))]
      .map((e) => e.getAttribute("NotOnOrAfter"))
      .filter((v): v is string => !!v)
      .map((v) => Date.parse(v))
      .filter((t) => Number.isFinite(t));
    if (ends.length === 0) throw fail("expired", "The assertion has no validity window (NotOnOrAfter)");
    const expiresAt = Math.max(...ends) + SAML_CLOCK_SKEW_MS;
    if (expiresAt - this.deps.clock.now() > MAX_ASSERTION_LIFETIME_MS) throw fail("expired", "The assertion is valid for more than a day: refused");
    return { id, expiresAt };
  }

  /** Each assertion id once per connection, kept until it expires (the primary key decides between racing requests). */
  private async useOnce(connectionId: string, assertionId: string, expiresAt: number): Promise<void> {
    const { db, clock } = this.deps;
    await db.deleteFrom("sso_saml_assertions").where("expires_at", "<=", clock.now()).execute();
    const r = await db
      .insertInto("sso_saml_assertions")
      .values({ connection_id: connectionId, assertion_id: assertionId, expires_at: expiresAt })
      .onConflict((oc) => oc.columns(["connection_id", "assertion_id"]).doNothing())
      .returning("assertion_id")
      .executeTakeFirst();
    if (!r) throw fail("replay", "This assertion was already used; start signing in again");
  }
}
