// SAML metadata (docs/sso.md, SAML): the identity provider's, read from the XML its owner pastes or from the
// address it is fetched at (through the webhooks' address guard); and snip's own key pair per connection, a
// self-signed RSA certificate the service-provider metadata publishes and AuthnRequests are signed with.
import { X509Certificate, webcrypto } from "node:crypto";
import { DOMParser } from "@xmldom/xmldom";
// @peculiar/x509 resolves its services through tsyringe, which needs the Reflect metadata polyfill loaded first.
import "reflect-metadata";
import * as x509 from "@peculiar/x509";
import { invalid } from "../shared/errors.js";

/** Pasted or fetched IdP metadata above this size is refused. */
export const METADATA_MAX_BYTES = 256 * 1024;
/** Signing certificates kept from one metadata document (a provider rotating keys lists two or three). */
const MAX_IDP_CERTS = 5;
const MD = "urn:oasis:names:tc:SAML:2.0:metadata";
const DS = "http://www.w3.org/2000/09/xmldsig#";
const BINDING_REDIRECT = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect";
const BINDING_POST = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST";

export interface IdpSettings {
  entityId: string;
  ssoUrl: string;
  binding: "redirect" | "post";
  /** PEM, each a certificate Node reads. */
  certs: string[];
}

function pemOf(base64: string): string {
  const body = base64.replace(/\s+/g, "");
  return `-----BEGIN CERTIFICATE-----\n${body.replace(/(.{64})/g, "$1\n").replace(/\n$/, "")}\n-----END CERTIFICATE-----\n`;
}

/** The identity provider's entity id, single sign-on address and signing certificates, or 400 on `field`. */
export function parseIdpMetadata(xml: string, field: string, allowHttp: (u: URL) => boolean): IdpSettings {
  if (Buffer.byteLength(xml, "utf8") > METADATA_MAX_BYTES) throw invalid(field, `must be at most ${METADATA_MAX_BYTES / 1024} KB`);
  // No document type: entity declarations have no place in metadata (and are the way to expand a small document).
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw invalid(field, "must not contain a document type declaration");
  const errors: string[] = [];
  const doc = new DOMParser({
    errorHandler: { warning: () => undefined, error: (m: string) => errors.push(m), fatalError: (m: string) => errors.push(m) },
  }).parseFromString(xml, "text/xml");
  const root = doc?.documentElement;
  if (errors.length || !root) throw invalid(field, "is not well-formed XML");
  const entities = root.localName === "EntityDescriptor" && root.namespaceURI === MD ? [root] : Array.from(root.getElementsByTagNameNS(MD, "EntityDescriptor"));
  const idps = entities.filter((e) => e.getElementsByTagNameNS(MD, "IDPSSODescriptor").length > 0);
  if (idps.length === 0) throw invalid(field, "holds no identity provider (an EntityDescriptor with an IDPSSODescriptor)");
  if (idps.length > 1) throw invalid(field, "holds several identity providers: give the metadata of one");
  const entity = idps[0] as Element;
  const entityId = (entity.getAttribute("entityID") ?? "").trim();
  if (!entityId || entityId.length > 500) throw invalid(field, "has no entityID (or one longer than 500 characters)");
  const descriptor = entity.getElementsByTagNameNS(MD, "IDPSSODescriptor")[0] as Element;
  const services = Array.from(descriptor.getElementsByTagNameNS(MD, "SingleSignOnService"));
  const pick = (binding: string) =>
    services
      .find((s) => s.getAttribute("Binding") === binding)
      ?.getAttribute("Location")
      ?.trim();
  const redirect = pick(BINDING_REDIRECT);
  const post = pick(BINDING_POST);
  const location = redirect ?? post;
  if (!location) throw invalid(field, "has no SingleSignOnService with the HTTP-Redirect or HTTP-POST binding");
  let ssoUrl: URL;
  try {
    ssoUrl = new URL(location);
  } catch {
    throw invalid(field, "has a SingleSignOnService Location that is not an absolute URL");
  }
  if (ssoUrl.protocol !== "https:" && !(ssoUrl.protocol === "http:" && allowHttp(ssoUrl)))
    throw invalid(field, "has a SingleSignOnService Location that is not https://");
  const certs: string[] = [];
  for (const key of Array.from(descriptor.getElementsByTagNameNS(MD, "KeyDescriptor"))) {
    const use = key.getAttribute("use");
    if (use && use !== "signing") continue;
    for (const c of Array.from(key.getElementsByTagNameNS(DS, "X509Certificate"))) {
      const pem = pemOf(c.textContent ?? "");
      try {
        new X509Certificate(pem);
      } catch {
        throw invalid(field, "has a signing certificate that cannot be read");
      }
      if (!certs.includes(pem)) certs.push(pem);
    }
  }
  if (certs.length === 0) throw invalid(field, 'has no signing certificate (KeyDescriptor use="signing" with an X509Certificate)');
  if (certs.length > MAX_IDP_CERTS) throw invalid(field, `has more than ${MAX_IDP_CERTS} signing certificates`);
  return { entityId, ssoUrl: ssoUrl.href, binding: redirect ? "redirect" : "post", certs };
}

/** What the dashboard shows of a certificate. */
export function describeCert(pem: string): { subject: string; not_after: string; sha256: string } {
  const c = new X509Certificate(pem);
  return { subject: c.subject.replace(/\n/g, ", "), not_after: new Date(c.validTo).toISOString(), sha256: c.fingerprint256 };
}

const ALG = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256", publicExponent: new Uint8Array([1, 0, 1]), modulusLength: 2048 };

/** A new RSA key pair and a ten-year self-signed certificate naming the connection (PEM both). */
export async function newSpKeyPair(connectionId: string, host: string): Promise<{ cert: string; key: string }> {
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ["sign", "verify"])) as CryptoKeyPair;
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)))
        .toString("hex")
        .replace(/^[89a-f]/, "1"),
      name: `CN=${host.replace(/[,=+<>#;"\\]/g, "")} SAML ${connectionId}`,
      notBefore: new Date(now - 60_000),
      notAfter: new Date(now + 10 * 365 * 86_400_000),
      keys,
      signingAlgorithm: ALG,
    },
    webcrypto as unknown as Crypto,
  );
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey("pkcs8", keys.privateKey)).toString("base64");
  const key = `-----BEGIN PRIVATE KEY-----\n${pkcs8.replace(/(.{64})/g, "$1\n").replace(/\n$/, "")}\n-----END PRIVATE KEY-----\n`;
  return { cert: cert.toString("pem") + "\n", key };
}
