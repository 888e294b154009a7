// SAML 2.0 single sign-on (docs/sso.md, SAML) against a real identity provider on loopback (test/helpers/saml-idp.ts:
// its own key, responses signed with xml-crypto): the owner's set-up (protocol saml, snip's metadata, the provider's
// metadata fetched through the address guard, audited), a sign-in that creates the team member through the one door,
// and the refusals: an unsigned response, a wrapped signature, another audience, an expired assertion, a replayed
// assertion id, a response to another browser's request, another recipient, malformed and oversized responses.
// On SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { ApiClient, signedInClient } from "../helpers/client.js";
import { TestDns } from "../helpers/dns.js";
import { Browser } from "../helpers/oidc.js";
import { auditRows } from "../helpers/operator.js";
import { TestSamlIdp, type AuthnRequest } from "../helpers/saml-idp.js";

describe.each(ENGINES)("SAML single sign-on on %s", (engine) => {
  let dns: TestDns;
  let idp: TestSamlIdp;
  let ent: TestServer;
  let owner: ApiClient;
  let connectionId: string;

  beforeAll(async () => {
    dns = await TestDns.start();
    idp = await TestSamlIdp.start();
    // WEBHOOK_ALLOW_PRIVATE: the provider's metadata on loopback (the address guard's test-only setting).
    ent = await startTestServer({ engine, env: { DNS_SERVERS: dns.address, WEBHOOK_ALLOW_PRIVATE: "true" } });
    owner = await signedInClient(ent, "owner@owner.test", "enterprise");
  }, 60_000);
  afterAll(async () => {
    await ent?.close();
    await idp?.close();
    await dns?.close();
  });

  const acsOf = () => `${ent.url}/api/sso/saml/${connectionId}/acs`;

  /** Starts at snip; the browser at the provider's /sso with snip's AuthnRequest read. */
  async function started(browser = new Browser(), email = "alice@acme.test") {
    const res = await browser.fetch(`${ent.url}/api/auth/sso/start?email=${encodeURIComponent(email)}`);
    expect(res.status, await res.clone().text()).toBe(302);
    const location = res.headers.get("location") as string;
    expect(location.startsWith(`${idp.url}/sso?SAMLRequest=`)).toBe(true);
    // Signed with snip's key (HTTP-Redirect binding: the signature in the query).
    expect(new URL(location).searchParams.get("SigAlg")).toBe("http://www.w3.org/2001/04/xmldsig-more#rsa-sha256");
    expect(new URL(location).searchParams.get("Signature")).toBeTruthy();
    return { browser, request: idp.readRequest(new URL(location).searchParams.get("SAMLRequest") as string), location };
  }

  /** Through the provider's page: the form it posts (action and SAMLResponse). */
  async function atProvider(browser: Browser, location: string) {
    const html = await (await browser.fetch(location)).text();
    const action = /action="([^"]+)"/.exec(html)?.[1] as string;
    const response = /name="SAMLResponse" value="([^"]+)"/.exec(html)?.[1] as string;
    return { action: action.replace(/&amp;/g, "&"), response };
  }

  const post = (browser: Browser, samlResponse: string, url = acsOf()) =>
    browser.fetch(url, { method: "POST", body: new URLSearchParams({ SAMLResponse: samlResponse }).toString(), headers: { accept: "application/json" } });

  async function refusal(res: Response) {
    const body = (await res.json()) as { code: string; reason?: string };
    return [res.status, body.code, body.reason];
  }

  async function sessionEmail(browser: Browser) {
    const r = await browser.fetch(`${ent.url}/api/auth/session`);
    return ((await r.json()) as { user: { email: string } | null }).user?.email ?? null;
  }

  const b64 = (s: string) => Buffer.from(s).toString("base64");

  it("sets a SAML connection: snip's metadata at a stable address, the provider's fetched through the guard, both audited", async () => {
    const created = await owner.put("/api/sso", { protocol: "saml", domains: ["acme.test"] });
    expect(created.status, created.text).toBe(200);
    const c = created.body.connection;
    connectionId = c.id;
    const base = `${ent.url}/api/sso/saml/${c.id}`;
    expect(c).toMatchObject({ protocol: "saml", issuer: "", client_id: "", client_secret_set: false });
    expect(c.saml).toMatchObject({
      entity_id: `${base}/metadata`,
      acs_url: `${base}/acs`,
      metadata_url: `${base}/metadata`,
      start_url: `${base}/start`,
      idp: null,
    });
    expect(c.saml.certificate).toMatch(/^-----BEGIN CERTIFICATE-----\n/);
    // The private key is sealed at rest; the certificate is public.
    const row = await ent.ctx.storage.db.selectFrom("sso_saml").selectAll().executeTakeFirstOrThrow();
    expect(row.sp_key_sealed).toMatch(/^v1\./);
    expect(row.sp_key_sealed).not.toContain("PRIVATE KEY");
    expect(JSON.stringify(created.body)).not.toContain("PRIVATE KEY");

    const md = await fetch(`${base}/metadata`);
    expect(md.status).toBe(200);
    expect(md.headers.get("content-type")).toContain("application/samlmetadata+xml");
    const xml = await md.text();
    expect(xml).toContain(`entityID="${base}/metadata"`);
    expect(xml).toContain(`Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${base}/acs"`);
    expect(xml).toContain(
      c.saml.certificate
        .replace(/-----[^-]+-----/g, "")
        .replace(/\s+/g, "")
        .slice(0, 60),
    );
    expect((await fetch(`${ent.url}/api/sso/saml/nope/metadata`)).status).toBe(404);

    // Refusals of the provider's metadata: neither or both given, not XML, a document type, no certificate, a hostile address.
    expect((await owner.put("/api/sso/saml", {})).body.code).toBe("invalid_request");
    expect((await owner.put("/api/sso/saml", { metadata_xml: "x", metadata_url: `${idp.url}/metadata` })).status).toBe(400);
    const notXml = await owner.put("/api/sso/saml", { metadata_xml: "<md:EntityDescriptor" });
    expect([notXml.status, notXml.body.details?.[0]?.field]).toEqual([400, "metadata_xml"]);
    const doctype = await owner.put("/api/sso/saml", { metadata_xml: `<!DOCTYPE x [<!ENTITY a "b">]>${idp.metadata().replace(/^<\?xml[^>]*>/, "")}` });
    expect(doctype.status).toBe(400);
    const noCert = await owner.put("/api/sso/saml", { metadata_xml: idp.metadata().replace(/<md:KeyDescriptor[\s\S]*?<\/md:KeyDescriptor>/, "") });
    expect([noCert.status, noCert.body.details?.[0]?.message]).toEqual([
      400,
      'has no signing certificate (KeyDescriptor use="signing" with an X509Certificate)',
    ]);
    const hostile = await owner.put("/api/sso/saml", { metadata_url: "http://169.254.169.254/latest/meta-data" });
    expect([hostile.status, hostile.body.details?.[0]?.field]).toEqual([400, "metadata_url"]);
    const oversized = await owner.put("/api/sso/saml", { metadata_xml: "x".repeat(300_000) });
    expect(oversized.status).toBe(400);

    const set = await owner.put("/api/sso/saml", { metadata_url: `${idp.url}/metadata` });
    expect(set.status, set.text).toBe(200);
    expect(set.body.connection.saml.idp).toMatchObject({
      entity_id: idp.entityId,
      sso_url: `${idp.url}/sso`,
      binding: "redirect",
      metadata_url: `${idp.url}/metadata`,
    });
    expect(set.body.connection.saml.idp.certificates).toHaveLength(1);
    expect(set.body.connection.saml.idp.certificates[0].subject).toBe("CN=idp.test SAML test-idp");

    const audit = await auditRows(ent, 10);
    expect(audit.find((a) => a.action === "sso.create")?.after).toEqual({
      protocol: "saml",
      issuer: "",
      client_id: "",
      require_sso: false,
      domains: ["acme.test"],
    });
    expect(audit.find((a) => a.action === "sso.saml_create")?.after).toMatchObject({
      entity_id: idp.entityId,
      sso_url: `${idp.url}/sso`,
      metadata_url: `${idp.url}/metadata`,
    });
    // Pasted metadata replaces it (audited as a change).
    const pasted = await owner.put("/api/sso/saml", { metadata_xml: idp.metadata() });
    expect(pasted.body.connection.saml.idp.metadata_url).toBeNull();
    expect((await auditRows(ent, 1))[0]?.action).toBe("sso.saml_update");

    // The domain proved by its TXT record: sign-ins through the connection may start.
    dns.txt("_snip-sso.acme.test", [c.domains[0].record.value]);
    expect((await owner.post("/api/sso/domains/acme.test/verify")).body.domain.status).toBe("verified");
  });

  it("signs in a person through the provider: created, bound to the entity id and NameID, a member of the owner's team", async () => {
    idp.person = {
      nameId: "00u-alice",
      nameIdFormat: "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent",
      attributes: { email: "Alice@Acme.test", displayName: "Alice A." },
    };
    const { browser, location, request } = await started();
    expect(request.acs).toBe(acsOf());
    expect(request.issuer).toBe(`${ent.url}/api/sso/saml/${connectionId}/metadata`);
    const { action, response } = await atProvider(browser, location);
    expect(action).toBe(acsOf());
    const res = await post(browser, response);
    expect(res.status, await res.clone().text()).toBe(303);
    expect(res.headers.get("location")).toBe("/app");
    expect(await sessionEmail(browser)).toBe("alice@acme.test");
    const user = await ent.ctx.accounts.byEmail("alice@acme.test");
    expect(user).toMatchObject({ name: "Alice A." });
    expect(user?.email_verified_at).not.toBeNull();
    const identity = await ent.ctx.storage.db
      .selectFrom("sso_identities")
      .selectAll()
      .where("user_id", "=", user?.id as string)
      .executeTakeFirstOrThrow();
    expect([identity.issuer, identity.subject]).toEqual([`saml:${idp.entityId}`, "00u-alice"]);
    expect((await owner.get("/api/team")).body.members.map((m: { email: string }) => m.email)).toEqual(["alice@acme.test"]);
    // The session says how it was made; the cookie of the sign-in is gone.
    expect(browser.cookie(ent.url, "snip_saml_state")).toBeUndefined();
    const sessions = await browser.fetch(`${ent.url}/api/auth/sessions`);
    expect(((await sessions.json()) as { sessions: { way: string }[] }).sessions.map((x) => x.way)).toEqual(["sso"]);
  });

  it("signs in with a signed response (not assertion) and the NameID as the address; the same response again is refused", async () => {
    idp.person = { nameId: "bob@acme.test" };
    idp.answer = { sign: "response" };
    const { browser, location } = await started(new Browser(), "bob@acme.test");
    const { response } = await atProvider(browser, location);
    expect((await post(browser, response)).status).toBe(303);
    expect(await sessionEmail(browser)).toBe("bob@acme.test");
    // Posted again (its request was used): refused.
    expect(await refusal(await post(browser, response))).toEqual([400, "sso_failed", "state"]);
  });

  /** A fresh request of a browser and the provider's answer to it, built with `make`. */
  async function answered(make: (request: AuthnRequest) => string) {
    idp.person = { nameId: "carol@acme.test" };
    const { browser, request } = await started(new Browser(), "carol@acme.test");
    return { browser, request, response: make(request) };
  }

  it("refuses an unsigned response", async () => {
    const { browser, response } = await answered((r) => idp.respond(r, { sign: "none" }));
    expect(await refusal(await post(browser, response))).toEqual([400, "sso_failed", "signature"]);
    expect(await sessionEmail(browser)).toBeNull();
  });

  it("refuses a wrapped signature (XSW): another assertion carrying a signed one's signature", async () => {
    const { browser, response } = await answered((r) => {
      idp.person = { nameId: "carol@acme.test" };
      const signed = idp.responseXml(r, {});
      const original = /<saml:Assertion[\s\S]*<\/saml:Assertion>/.exec(signed)?.[0] as string;
      // The evil assertion: another person, another id, the original's signature inside it; the original hidden in Extensions.
      const evil = original.replace(/ID="[^"]+"/, 'ID="_evil"').replace(/carol@acme\.test/g, "owner@owner.test");
      const wrapped = signed.replace(original, `<samlp:Extensions>${original}</samlp:Extensions>${evil}`);
      return b64(wrapped);
    });
    expect(await refusal(await post(browser, response))).toEqual([400, "sso_failed", "signature"]);
    // A signed assertion whose content was changed after signing: refused too.
    const { browser: b2, response: tampered } = await answered((r) => b64(idp.responseXml(r, {}).replace(/carol@acme\.test/g, "dave@acme.test")));
    expect(await refusal(await post(b2, tampered))).toEqual([400, "sso_failed", "signature"]);
    expect(await ent.ctx.accounts.byEmail("dave@acme.test")).toBeNull();
  });

  it("refuses another audience, an expired assertion and another recipient", async () => {
    const other = await answered((r) => idp.respond(r, { audience: "https://other.example/sp" }));
    expect(await refusal(await post(other.browser, other.response))).toEqual([400, "sso_failed", "audience"]);
    const expired = await answered((r) => idp.respond(r, { validMinutes: -5 }));
    expect(await refusal(await post(expired.browser, expired.response))).toEqual([400, "sso_failed", "expired"]);
    const recipient = await answered((r) => idp.respond(r, { recipient: "https://other.example/acs" }));
    expect(await refusal(await post(recipient.browser, recipient.response))).toEqual([400, "sso_failed", "recipient"]);
    expect(await ent.ctx.accounts.byEmail("carol@acme.test")).toBeNull();
  });

  it("uses an assertion id once: a new request answered with a used assertion id is refused", async () => {
    const first = await answered((r) => idp.respond(r, { assertionId: "_same-assertion" }));
    expect((await post(first.browser, first.response)).status).toBe(303);
    const second = await answered((r) => idp.respond(r, { assertionId: "_same-assertion" }));
    expect(await refusal(await post(second.browser, second.response))).toEqual([400, "sso_failed", "replay"]);
    expect(await sessionEmail(second.browser)).toBeNull();
    // Two racing posts of a fresh assertion id: one signs in, the other is refused.
    const a = await answered((r) => idp.respond(r, { assertionId: "_race" }));
    const b = await answered((r) => idp.respond(r, { assertionId: "_race" }));
    const statuses = (await Promise.all([post(a.browser, a.response), post(b.browser, b.response)])).map((r) => r.status).sort();
    expect(statuses).toEqual([303, 400]);
  });

  it("refuses a response to another browser's request, and a post without the sign-in's cookie", async () => {
    const mine = await answered((r) => idp.respond(r));
    const theirs = await answered((r) => idp.respond(r));
    // The first browser posts the response to the second one's request.
    expect(await refusal(await post(mine.browser, theirs.response))).toEqual([400, "sso_failed", "state"]);
    expect(await refusal(await post(new Browser(), mine.response))).toEqual([400, "sso_failed", "state"]);
  });

  it("answers to the same door: under Require SSO a member's password is refused, SAML still signs them in", async () => {
    const put = await owner.put("/api/sso", { protocol: "saml", domains: ["acme.test"], require_sso: true });
    expect([put.status, put.body.connection.require_sso, put.body.connection.protocol]).toEqual([200, true, "saml"]);
    await ent.ctx.accounts.create({ email: "erin@acme.test", password: "erin-password-1", verified: true });
    const login = await new ApiClient(ent.url).login("erin@acme.test", "erin-password-1");
    expect([login.status, login.body.code]).toEqual([403, "sso_required"]);
    idp.person = { nameId: "erin@acme.test" };
    const { browser, location } = await started(new Browser(), "erin@acme.test");
    const { response } = await atProvider(browser, location);
    expect((await post(browser, response)).status).toBe(303);
    expect(await sessionEmail(browser)).toBe("erin@acme.test");
  });

  it("refuses malformed and oversized responses with stable 4xx codes, never 5xx", async () => {
    for (const bad of [
      "not base64 at all!!",
      b64("<samlp:Response"),
      b64("plain text"),
      b64(`<x>${"<y>".repeat(5000)}</x>`),
      b64("<?xml version='1.0'?><!DOCTYPE r [<!ENTITY e SYSTEM 'file:///etc/passwd'>]><r>&e;</r>"),
    ]) {
      const { browser } = await started(new Browser(), "carol@acme.test");
      const r = await post(browser, bad);
      expect(r.status, bad.slice(0, 40)).toBe(400);
      expect(((await r.json()) as { code: string }).code).toBe("sso_failed");
    }
    const big = await post(new Browser(), "A".repeat(300_000));
    expect([big.status, ((await big.json()) as { code: string }).code]).toEqual([400, "invalid_request"]);
    const huge = await post(new Browser(), "A".repeat(1_100_000));
    expect([huge.status, ((await huge.json()) as { code: string }).code]).toEqual([413, "payload_too_large"]);
    const empty = await new Browser().fetch(acsOf(), { method: "POST", body: "RelayState=x", headers: { accept: "application/json" } });
    expect([empty.status, ((await empty.json()) as { code: string }).code]).toEqual([400, "invalid_request"]);
    // A browser without JSON is sent back to the sign-in page with the reason.
    const page = await new Browser().fetch(acsOf(), { method: "POST", body: `SAMLResponse=${b64("x")}` });
    expect([page.status, page.headers.get("location")]).toEqual([302, "/app/login?sso_error=sso_failed&reason=state"]);
  });
});
