// App association per host (docs/deep-links.md) on every engine: a custom domain's apps set by its owner and the
// main host's by the operator; /.well-known/apple-app-site-association and /.well-known/assetlinks.json answered
// for each host with its own contents, as Apple and Google document them (JSON, application/json, no redirect);
// changes served at once; refused inputs change nothing; another account's domain is not found.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINES } from "../helpers/engines.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { account, auditRows, operator, type Account } from "../helpers/operator.js";
import { verifiedDomain } from "../helpers/verified-domain.js";
import { withHost } from "../helpers/host.js";
import { RESERVED_PATHS } from "../../src/deeplinks/association-files.js";

const AASA = "/.well-known/apple-app-site-association";
const ASSETLINKS = "/.well-known/assetlinks.json";
const FP = "14:6d:e9:83:c5:73:06:50:d8:ee:b9:95:2f:34:fc:64:16:a0:83:42:e6:1d:be:a8:8a:04:96:b2:3f:cf:44:e5";

const get = (base: string, path: string, host: string, method = "GET") => withHost(base, path, host, method);

const excluded = RESERVED_PATHS.map((p) => ({ "/": p, exclude: true }));

describe.each(ENGINES)("app association files on %s", (engine) => {
  let server: TestServer;
  let owner: Account;
  let other: Account;
  let op: Account;
  const shopHost = `go-${engine}.shop.test`;
  const otherHost = `go-${engine}.other.test`;
  const domainId = `dom_apps_${engine}`;
  const otherDomainId = `dom_apps_other_${engine}`;
  let mainHost: string;

  beforeAll(async () => {
    server = await startTestServer({ engine });
    mainHost = new URL(server.url).host;
    owner = await account(server, `apps-owner-${engine}@example.com`, { plan: "business" });
    other = await account(server, `apps-other-${engine}@example.com`, { plan: "business" });
    op = await operator(server, `apps-operator-${engine}@example.com`);
    await verifiedDomain(server, domainId, owner.id, shopHost);
    await verifiedDomain(server, otherDomainId, other.id, otherHost);
  });
  afterAll(async () => server?.close());

  const shopApps = {
    ios: [{ app_id: "ABCDE12345.com.example.shop" }, { app_id: "ABCDE12345.com.example.shop.beta", paths: ["/promo/*", "/p?"], webcredentials: true }],
    android: [{ package: "com.example.shop", sha256_cert_fingerprints: [FP] }],
  };

  it("a custom domain serves no file before its owner sets apps (404, JSON error)", async () => {
    for (const path of [AASA, ASSETLINKS]) {
      const r = await get(server.url, path, shopHost);
      expect([r.status, JSON.parse(r.body).code]).toEqual([404, "not_found"]);
    }
  });

  it("the owner sets the apps: the answer shows them and both files exactly as the systems read them", async () => {
    const r = await owner.client.put(`/api/domains/${domainId}/apps`, shopApps);
    expect(r.status, r.text).toBe(200);
    const apple = {
      applinks: {
        details: [
          { appIDs: ["ABCDE12345.com.example.shop"], components: [...excluded, { "/": "/*", comment: "every short link" }] },
          { appIDs: ["ABCDE12345.com.example.shop.beta"], components: [...excluded, { "/": "/promo/*" }, { "/": "/p?" }] },
        ],
      },
      webcredentials: { apps: ["ABCDE12345.com.example.shop.beta"] },
    };
    const android = [
      {
        relation: ["delegate_permission/common.handle_all_urls"],
        target: { namespace: "android_app", package_name: "com.example.shop", sha256_cert_fingerprints: [FP.toUpperCase()] },
      },
    ];
    expect(r.body).toEqual({
      status: "success",
      host: shopHost,
      apps: {
        ios: [
          { app_id: "ABCDE12345.com.example.shop", paths: [], webcredentials: false },
          { app_id: "ABCDE12345.com.example.shop.beta", paths: ["/promo/*", "/p?"], webcredentials: true },
        ],
        android: [{ package: "com.example.shop", sha256_cert_fingerprints: [FP.toUpperCase()] }],
        updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
      files: { apple_app_site_association: apple, assetlinks: android },
    });
    // Served at once, on the domain's host, as JSON without a redirect; HEAD and a query string alike.
    const a = await get(server.url, AASA, shopHost);
    expect([a.status, a.headers["content-type"], a.headers.location, a.headers["cache-control"]]).toEqual([
      200,
      "application/json",
      undefined,
      "public, max-age=300",
    ]);
    expect(JSON.parse(a.body)).toEqual(apple);
    const g = await get(server.url, ASSETLINKS, shopHost);
    expect([g.status, g.headers["content-type"]]).toEqual([200, "application/json"]);
    expect(JSON.parse(g.body)).toEqual(android);
    const head = await get(server.url, AASA, shopHost, "HEAD");
    expect([head.status, head.body, head.headers["content-length"]]).toEqual([200, "", String(Buffer.byteLength(a.body))]);
    const query = await get(server.url, `${AASA}?v=1`, shopHost);
    expect([query.status, query.headers["content-type"]]).toEqual([200, "application/json"]);
    expect(JSON.parse(query.body)).toEqual(apple);
    // The same host in upper case and with the trailing dot is the same host.
    expect(JSON.parse((await get(server.url, ASSETLINKS, `${shopHost.toUpperCase()}.`)).body)).toEqual(android);
    // GET shows the same.
    const read = await owner.client.get(`/api/domains/${domainId}/apps`);
    expect([read.status, read.body.apps, read.body.files]).toEqual([200, r.body.apps, r.body.files]);
  });

  it("the main host serves the operator's apps, each custom domain its own, a domain without apps nothing", async () => {
    expect((await get(server.url, AASA, mainHost)).status).toBe(404);
    const forbidden = await owner.client.put("/api/admin/apps", { ios: [{ app_id: "ZZZZZ99999.com.example.main" }] });
    expect([forbidden.status, forbidden.body.code]).toEqual([403, "forbidden"]);
    const set = await op.client.put("/api/admin/apps", { ios: [{ app_id: "ZZZZZ99999.com.example.main" }] });
    expect(set.status, set.text).toBe(200);
    expect([set.body.host, set.body.files.assetlinks]).toEqual([new URL(server.url).hostname, null]);
    const main = JSON.parse((await get(server.url, AASA, mainHost)).body);
    expect(main.applinks.details.map((d: { appIDs: string[] }) => d.appIDs)).toEqual([["ZZZZZ99999.com.example.main"]]);
    expect((await get(server.url, ASSETLINKS, mainHost)).status).toBe(404);
    // The shop's domain keeps its own; the other account's domain (no apps) serves nothing, not the main host's.
    expect(JSON.parse((await get(server.url, AASA, shopHost)).body).applinks.details).toHaveLength(2);
    expect((await get(server.url, AASA, otherHost)).status).toBe(404);
    // In the audit log, before and after.
    const [entry] = await auditRows(server, 1);
    expect([entry!.action, entry!.target_type, entry!.target_id, entry!.actor_email, entry!.after.ios[0].app_id]).toEqual([
      "apps.update",
      "host",
      "main",
      op.email,
      "ZZZZZ99999.com.example.main",
    ]);
    const removed = await op.client.delete("/api/admin/apps");
    expect(removed.status).toBe(200);
    expect((await get(server.url, AASA, mainHost)).status).toBe(404);
    expect((await auditRows(server, 1))[0]!.action).toBe("apps.remove");
  });

  it("another account's domain is not found (read, set, remove), and its files are untouched", async () => {
    for (const [method, body] of [
      ["GET", undefined],
      ["PUT", shopApps],
      ["DELETE", undefined],
    ] as const) {
      const r = await other.client.request(method, `/api/domains/${domainId}/apps`, body);
      expect([method, r.status, r.body.code]).toEqual([method, 404, "not_found"]);
    }
    expect((await get(server.url, ASSETLINKS, shopHost)).status).toBe(200);
    const signedOut = await get(server.url, `/api/domains/${domainId}/apps`, mainHost);
    expect(signedOut.status).toBe(401);
  });

  it.each([
    ["a malformed app id", { ios: [{ app_id: "com.example.shop" }] }, "ios.0.app_id"],
    ["a lower-case team id", { ios: [{ app_id: "abcde12345.com.example.shop" }] }, "ios.0.app_id"],
    ["a path without its slash", { ios: [{ app_id: "ABCDE12345.com.x", paths: ["promo/*"] }] }, "ios.0.paths.0"],
    ["a path with a space", { ios: [{ app_id: "ABCDE12345.com.x", paths: ["/a b"] }] }, "ios.0.paths.0"],
    ["the same path twice", { ios: [{ app_id: "ABCDE12345.com.x", paths: ["/a", "/a"] }] }, "ios.0.paths"],
    ["the same app twice", { ios: [{ app_id: "ABCDE12345.com.x" }, { app_id: "ABCDE12345.com.x" }] }, "ios"],
    ["a package without a dot", { android: [{ package: "shop", sha256_cert_fingerprints: [FP] }] }, "android.0.package"],
    ["a short fingerprint", { android: [{ package: "com.x", sha256_cert_fingerprints: ["14:6D:E9"] }] }, "android.0.sha256_cert_fingerprints.0"],
    ["a fingerprint twice", { android: [{ package: "com.x", sha256_cert_fingerprints: [FP, FP.toUpperCase()] }] }, "android.0.sha256_cert_fingerprints"],
    ["no fingerprint", { android: [{ package: "com.x", sha256_cert_fingerprints: [] }] }, "android.0.sha256_cert_fingerprints"],
    ["eleven iOS apps", { ios: Array.from({ length: 11 }, (_, i) => ({ app_id: `ABCDE12345.com.x${i}` })) }, "ios"],
    ["an unknown field", { ios: [], windows: [] }, "windows"],
    ["a 300-character path", { ios: [{ app_id: "ABCDE12345.com.x", paths: ["/" + "a".repeat(299)] }] }, "ios.0.paths.0"],
  ])("refuses %s (400 invalid_request naming the field) and changes nothing", async (_what, body, field) => {
    const before = (await get(server.url, ASSETLINKS, shopHost)).body;
    const r = await owner.client.put(`/api/domains/${domainId}/apps`, body);
    expect([r.status, r.body.code]).toEqual([400, "invalid_request"]);
    expect(JSON.stringify(r.body.details ?? r.body.message)).toContain(field);
    expect((await get(server.url, ASSETLINKS, shopHost)).body).toBe(before);
  });

  it("ten changes at once leave the stored apps and the served file agreeing on one of them", async () => {
    const bodies = Array.from({ length: 10 }, (_, i) => ({ android: [{ package: `com.example.shop${i}`, sha256_cert_fingerprints: [FP] }] }));
    const answers = await Promise.all(bodies.map((b) => owner.client.put(`/api/domains/${domainId}/apps`, b)));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    const stored = (await owner.client.get(`/api/domains/${domainId}/apps`)).body.apps.android[0].package;
    expect(bodies.map((b) => b.android[0]!.package)).toContain(stored);
    expect(JSON.parse((await get(server.url, ASSETLINKS, shopHost)).body)[0].target.package_name).toBe(stored);
  });

  it("removing the apps, then the domain, stops serving them", async () => {
    await owner.client.put(`/api/domains/${domainId}/apps`, shopApps);
    const removed = await owner.client.delete(`/api/domains/${domainId}/apps`);
    expect(removed.status).toBe(200);
    expect((await get(server.url, AASA, shopHost)).status).toBe(404);
    expect((await owner.client.get(`/api/domains/${domainId}/apps`)).body.apps).toEqual({ ios: [], android: [], updated_at: null });
    await owner.client.put(`/api/domains/${domainId}/apps`, shopApps);
    expect((await get(server.url, AASA, shopHost)).status).toBe(200);
    const gone = await owner.client.delete(`/api/domains/${domainId}`);
    expect(gone.status, gone.text).toBe(200);
    expect((await get(server.url, AASA, shopHost)).status).toBe(404);
    const rows = await server.ctx.storage.db.selectFrom("app_associations").select("id").where("id", "=", domainId).execute();
    expect(rows).toEqual([]);
  });
});
