// A SAML 2.0 identity provider on loopback for the SAML tests (docs/sso.md, SAML): its own RSA key and certificate,
// metadata served at /metadata, and /sso (HTTP-Redirect) that reads snip's AuthnRequest and answers with an
// auto-posting form carrying a Response signed with xml-crypto, for the person and the faults the test sets.
import { createServer, type Server } from "node:http";
import { randomUUID } from "node:crypto";
import { inflateRawSync } from "node:zlib";
import { SignedXml } from "xml-crypto";
import { DOMParser } from "@xmldom/xmldom";
import { newSpKeyPair } from "../../src/sso/saml-metadata.js";

export interface SamlPerson {
  nameId: string;
  nameIdFormat?: string;
  attributes?: Record<string, string>;
}

/** What the next answer does wrong (or differently). */
export interface SamlAnswer {
  sign?: "assertion" | "response" | "none";
  audience?: string;
  /** Minutes from now the assertion stops being valid (negative: expired). */
  validMinutes?: number;
  assertionId?: string;
  inResponseTo?: string;
  recipient?: string;
}

export interface AuthnRequest {
  id: string;
  acs: string;
  issuer: string;
}

const RSA_SHA256 = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256";
const SHA256 = "http://www.w3.org/2001/04/xmlenc#sha256";
const EXC_C14N = "http://www.w3.org/2001/10/xml-exc-c14n#";
const ENVELOPED = "http://www.w3.org/2000/09/xmldsig#enveloped-signature";

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const b64 = (pem: string) => pem.replace(/-----[^-]+-----/g, "").replace(/\s+/g, "");

export class TestSamlIdp {
  person: SamlPerson = { nameId: "nobody" };
  answer: SamlAnswer = {};
  /** The requests /sso received, newest last. */
  readonly requests: AuthnRequest[] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
    readonly cert: string,
    private readonly key: string,
  ) {}

  get entityId(): string {
    return `${this.url}/entity`;
  }

  static async start(): Promise<TestSamlIdp> {
    const { cert, key } = await newSpKeyPair("test-idp", "idp.test");
    let idp: TestSamlIdp | null = null;
    const server = createServer((req, res) => {
      const u = new URL(req.url ?? "/", "http://x");
      if (!idp) return res.writeHead(503).end();
      if (u.pathname === "/metadata") return res.writeHead(200, { "content-type": "application/samlmetadata+xml" }).end(idp.metadata());
      if (u.pathname === "/sso") {
        const request = idp.readRequest(u.searchParams.get("SAMLRequest") ?? "");
        idp.requests.push(request);
        const response = idp.respond(request);
        const html = `<form method="post" action="${esc(request.acs)}"><input type="hidden" name="SAMLResponse" value="${esc(response)}"></form>`;
        return res.writeHead(200, { "content-type": "text/html" }).end(html);
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as { port: number }).port;
    idp = new TestSamlIdp(server, `http://127.0.0.1:${port}`, cert, key);
    return idp;
  }

  close(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }

  metadata(): string {
    return `<?xml version="1.0"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${esc(this.entityId)}">
  <md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol" WantAuthnRequestsSigned="true">
    <md:KeyDescriptor use="signing"><ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data><ds:X509Certificate>${b64(this.cert)}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>
    <md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${esc(this.url)}/sso"/>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${esc(this.url)}/sso"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>`;
  }

  /** snip's AuthnRequest from the HTTP-Redirect binding's SAMLRequest (deflated, base64). */
  readRequest(samlRequest: string): AuthnRequest {
    const xml = inflateRawSync(Buffer.from(samlRequest, "base64")).toString("utf8");
    const doc = new DOMParser().parseFromString(xml, "text/xml").documentElement as unknown as Element;
    const issuer = doc.getElementsByTagNameNS("urn:oasis:names:tc:SAML:2.0:assertion", "Issuer")[0]?.textContent ?? "";
    return { id: doc.getAttribute("ID") ?? "", acs: doc.getAttribute("AssertionConsumerServiceURL") ?? "", issuer };
  }

  /** A base64 Response to `request` for the current person, as `answer` says (the answer is then reset). */
  respond(request: AuthnRequest, answer: SamlAnswer = this.answer): string {
    this.answer = {};
    return Buffer.from(this.responseXml(request, answer)).toString("base64");
  }

  responseXml(request: AuthnRequest, a: SamlAnswer): string {
    const now = Date.now();
    const iso = (t: number) => new Date(t).toISOString();
    const notOnOrAfter = iso(now + (a.validMinutes ?? 5) * 60_000);
    const notBefore = iso(Math.min(now, now + (a.validMinutes ?? 5) * 60_000 - 10 * 60_000));
    const inResponseTo = a.inResponseTo ?? request.id;
    const p = this.person;
    const attrs = Object.entries(p.attributes ?? {})
      .map(([k, v]) => `<saml:Attribute Name="${esc(k)}"><saml:AttributeValue>${esc(v)}</saml:AttributeValue></saml:Attribute>`)
      .join("");
    const assertionId = a.assertionId ?? `_a${randomUUID()}`;
    const assertion =
      `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${esc(assertionId)}" Version="2.0" IssueInstant="${iso(now)}">` +
      `<saml:Issuer>${esc(this.entityId)}</saml:Issuer>` +
      `<saml:Subject><saml:NameID Format="${esc(p.nameIdFormat ?? "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress")}">${esc(p.nameId)}</saml:NameID>` +
      `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData InResponseTo="${esc(inResponseTo)}" NotOnOrAfter="${notOnOrAfter}" Recipient="${esc(a.recipient ?? request.acs)}"/></saml:SubjectConfirmation></saml:Subject>` +
      `<saml:Conditions NotBefore="${notBefore}" NotOnOrAfter="${notOnOrAfter}"><saml:AudienceRestriction><saml:Audience>${esc(a.audience ?? request.issuer)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
      `<saml:AuthnStatement AuthnInstant="${iso(now)}" SessionIndex="_s${randomUUID()}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
      (attrs ? `<saml:AttributeStatement>${attrs}</saml:AttributeStatement>` : "") +
      `</saml:Assertion>`;
    const sign = a.sign ?? "assertion";
    const signedAssertion = sign === "assertion" ? this.sign(assertion, "Assertion") : assertion;
    const response =
      `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_r${randomUUID()}" Version="2.0" IssueInstant="${iso(now)}" Destination="${esc(request.acs)}" InResponseTo="${esc(inResponseTo)}">` +
      `<saml:Issuer>${esc(this.entityId)}</saml:Issuer>` +
      `<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
      signedAssertion +
      `</samlp:Response>`;
    return sign === "response" ? this.sign(response, "Response") : response;
  }

  /** Signs the document's `element` (the root Response, or the Assertion) enveloped, after its Issuer. */
  private sign(xml: string, element: "Assertion" | "Response"): string {
    const sig = new SignedXml({ privateKey: this.key, publicCert: this.cert, signatureAlgorithm: RSA_SHA256, canonicalizationAlgorithm: EXC_C14N });
    const target = element === "Response" ? "/*[local-name(.)='Response']" : "//*[local-name(.)='Assertion']";
    sig.addReference({ xpath: target, digestAlgorithm: SHA256, transforms: [ENVELOPED, EXC_C14N] });
    sig.computeSignature(xml, { location: { reference: `${target}/*[local-name(.)='Issuer']`, action: "after" } });
    return sig.getSignedXml();
  }
}
