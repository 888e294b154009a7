// A connection's SAML settings (docs/sso.md, SAML): snip's side per connection (entity id, Assertion Consumer
// Service, metadata and start addresses, a key pair whose private key is sealed like the client secrets) and the
// identity provider's, read from the metadata its owner pastes or gives the address of. Every change is audited.
import { generateServiceProviderMetadata } from "@node-saml/node-saml";
import type { SsoSamlRow, UserRow } from "../storage/schema.js";
import type { SamlPutBody, SamlSettings } from "../contract/sso.js";
import { DomainError, invalid } from "../shared/errors.js";
import { iso } from "../shared/clock.js";
import { requireCapability } from "../accounts/plans.js";
import { isLoopbackHost } from "../config-sso.js";
import type { SsoDeps } from "./deps.js";
import { guardedFetch } from "./oidc-client.js";
import { METADATA_MAX_BYTES, describeCert, newSpKeyPair, parseIdpMetadata, type IdpSettings } from "./saml-metadata.js";

export const SAML_PATH = "/api/sso/saml";

/** snip's addresses for a connection: its entity id is its metadata's address (stable, one per connection). */
export function samlUrls(origin: string, connectionId: string) {
  const base = `${origin}${SAML_PATH}/${encodeURIComponent(connectionId)}`;
  return { entityId: `${base}/metadata`, acs: `${base}/acs`, metadata: `${base}/metadata`, start: `${base}/start` };
}

/** What the sealed SP key is bound to: never mistaken for the connection's client secret. */
export const spKeyBinding = (connectionId: string) => `saml-sp-key:${connectionId}`;

export async function newSamlRow(deps: Pick<SsoDeps, "box" | "clock" | "ownHost">, connectionId: string): Promise<SsoSamlRow> {
  const { cert, key } = await newSpKeyPair(connectionId, deps.ownHost);
  const now = deps.clock.now();
  return {
    connection_id: connectionId,
    idp_entity_id: null,
    idp_sso_url: null,
    idp_sso_binding: null,
    idp_certs: null,
    idp_metadata_url: null,
    sp_cert: cert,
    sp_key_sealed: deps.box.seal(key, spKeyBinding(connectionId)),
    created_at: now,
    updated_at: now,
  };
}

export function idpOf(row: SsoSamlRow): IdpSettings | null {
  if (row.idp_entity_id === null || row.idp_sso_url === null || row.idp_certs === null || row.idp_sso_binding === null) return null;
  return { entityId: row.idp_entity_id, ssoUrl: row.idp_sso_url, binding: row.idp_sso_binding, certs: JSON.parse(row.idp_certs) as string[] };
}

export function samlView(origin: string, row: SsoSamlRow): SamlSettings {
  const urls = samlUrls(origin, row.connection_id);
  const idp = idpOf(row);
  return {
    entity_id: urls.entityId,
    acs_url: urls.acs,
    metadata_url: urls.metadata,
    start_url: urls.start,
    certificate: row.sp_cert,
    idp: idp
      ? {
          entity_id: idp.entityId,
          sso_url: idp.ssoUrl,
          binding: idp.binding,
          metadata_url: row.idp_metadata_url,
          certificates: idp.certs.map(describeCert),
          updated_at: iso(Number(row.updated_at)),
        }
      : null,
  };
}

export class SamlSettingsService {
  constructor(private readonly deps: SsoDeps) {}

  private allowHttp = (u: URL) => this.deps.check.allowPrivate && isLoopbackHost(u.hostname);

  /** The connection's SAML row by connection id (the public metadata route). */
  byConnection(connectionId: string): Promise<SsoSamlRow | undefined> {
    return this.deps.db.selectFrom("sso_saml").selectAll().where("connection_id", "=", connectionId).executeTakeFirst();
  }

  /**
   * snip's service-provider metadata for a connection (XML, as node-saml writes it: AuthnRequestsSigned with the
   * signing certificate, the ACS by HTTP-POST), or null when the connection has no SAML side.
   */
  async spMetadata(connectionId: string): Promise<string | null> {
    const row = await this.byConnection(connectionId);
    const key = row ? this.deps.box.open(row.sp_key_sealed, spKeyBinding(connectionId)) : null;
    if (!row || key === null) return null;
    const urls = samlUrls(this.deps.origin, connectionId);
    return generateServiceProviderMetadata({
      issuer: urls.entityId,
      callbackUrl: urls.acs,
      identifierFormat: null,
      wantAssertionsSigned: true,
      privateKey: key,
      publicCerts: row.sp_cert,
    });
  }

  /** The metadata XML: pasted as is, or fetched once from its https:// address through the address guard, bounded. */
  private async metadataOf(body: SamlPutBody): Promise<{ xml: string; url: string | null; field: string }> {
    if ((body.metadata_xml === undefined) === (body.metadata_url === undefined))
      throw new DomainError("invalid_request", "Give the identity provider's metadata: metadata_xml or metadata_url (one of them)", [
        { field: "metadata_xml", message: "give metadata_xml or metadata_url" },
      ]);
    if (body.metadata_xml !== undefined) return { xml: body.metadata_xml, url: null, field: "metadata_xml" };
    const raw = (body.metadata_url as string).trim();
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      throw invalid("metadata_url", "must be an absolute https:// URL");
    }
    if (u.username || u.password || u.hash) throw invalid("metadata_url", "must not carry credentials or a fragment");
    if (u.protocol !== "https:" && !(u.protocol === "http:" && this.allowHttp(u))) throw invalid("metadata_url", "must use https://");
    let res: Response;
    try {
      res = await guardedFetch(this.deps.check)(u.href, {
        method: "GET",
        headers: { accept: "application/samlmetadata+xml, application/xml, text/xml" },
        body: undefined,
        redirect: "manual",
      });
    } catch (e) {
      const why = e instanceof DomainError ? e.message : "it could not be fetched (or its answer was too large or too slow)";
      throw invalid("metadata_url", why);
    }
    if (res.status !== 200) throw invalid("metadata_url", `answered HTTP ${res.status}`);
    const xml = await res.text();
    if (Buffer.byteLength(xml) > METADATA_MAX_BYTES) throw invalid("metadata_url", `answered more than ${METADATA_MAX_BYTES / 1024} KB`);
    return { xml, url: u.href, field: "metadata_url" };
  }

  /** The owner gives the identity provider's metadata: the connection (protocol saml) must exist. */
  async setIdp(owner: UserRow, body: SamlPutBody): Promise<void> {
    requireCapability(owner.plan, "sso", "Single sign-on");
    if (owner.status !== "active") throw new DomainError("account_inactive", "This account is suspended");
    const { db, clock, audit } = this.deps;
    const c = await db.selectFrom("sso_connections").select(["id", "protocol"]).where("owner_id", "=", owner.id).executeTakeFirst();
    const before = c ? await this.byConnection(c.id) : undefined;
    if (!c || !before) throw new DomainError("not_found", 'There is no SAML connection: set up single sign-on with protocol "saml" first (PUT /api/sso)');
    const { xml, url, field } = await this.metadataOf(body);
    const idp = parseIdpMetadata(xml, field, this.allowHttp);
    const now = clock.now();
    const previous = idpOf(before);
    const auditIdp = (i: IdpSettings | null, metadataUrl: string | null) =>
      i
        ? { entity_id: i.entityId, sso_url: i.ssoUrl, binding: i.binding, metadata_url: metadataUrl, certificates: i.certs.map((p) => describeCert(p).sha256) }
        : null;
    await db.transaction().execute(async (trx) => {
      await trx
        .updateTable("sso_saml")
        .set({
          idp_entity_id: idp.entityId,
          idp_sso_url: idp.ssoUrl,
          idp_sso_binding: idp.binding,
          idp_certs: JSON.stringify(idp.certs),
          idp_metadata_url: url,
          updated_at: now,
        })
        .where("connection_id", "=", c.id)
        .execute();
      await audit.record(trx, { id: owner.id, email: owner.email }, now, {
        action: previous ? "sso.saml_update" : "sso.saml_create",
        teamId: owner.id,
        targetType: "sso_connection",
        targetId: c.id,
        summary: `${owner.email} ${previous ? "changed" : "set"} the SAML identity provider of single sign-on to ${idp.entityId}`,
        before: previous ? (auditIdp(previous, before.idp_metadata_url) ?? undefined) : undefined,
        after: auditIdp(idp, url) ?? undefined,
      });
    });
  }
}
