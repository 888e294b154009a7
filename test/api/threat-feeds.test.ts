// THREAT_FEEDS (docs/operator.md, Threat feeds): URLhaus's and PhishTank's CSV formats parsed (comments, quotes,
// broken rows counted), entries keyed by site or exact address, a file read at start and an address fetched
// through the address guard; matching destinations refused at creation, links already pointing there answering
// as blocked once a feed lists them and filed once in the operators' queue; a failed read keeping the last good
// entries; the console's routes for operators only.
import { createServer, type Server } from "node:http";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseFeed } from "../../src/admin/threat-feed.js";
import { feedKey } from "../../src/links/host-blocklist.js";
import { startTestServer, testConfig, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { type ApiClient, signedInClient } from "../helpers/client.js";
import { UA } from "../helpers/visit.js";

const URLHAUS = `################################################################
# abuse.ch URLhaus Database Dump (CSV)                         #
################################################################
#
# id,dateadded,url,url_status,last_online,threat,tags,urlhaus_link,reporter
"3100001","2026-12-01 10:00:00","http://198.51.100.7/bins/mozi.m","online","2026-12-01 10:00:00","malware_download","elf,Mozi","https://urlhaus.abuse.ch/url/3100001/","lrz_urlhaus"
"3100002","2026-12-01 10:01:00","https://malware-site.example/","online","2026-12-01 10:01:00","malware_download","exe","https://urlhaus.abuse.ch/url/3100002/","abuse_ch"
"3100003","2026-12-01 10:02:00","https://Docs.Shared.example/file.exe?dl=1#top","offline","","malware_download","","https://urlhaus.abuse.ch/url/3100003/","anonymous"
"3100004","2026-12-01 10:03:00","javascript:alert(1)","online","","malware_download","","https://urlhaus.abuse.ch/url/3100004/","x"
"3100005","2026-12-01 10:04:00","http://bad"quote".example/x","online","","malware_download","","https://urlhaus.abuse.ch/url/3100005/","x"
`;

const phishtank = (urls: string[]) =>
  [
    "phish_id,url,phish_detail_url,submission_time,verified,verification_time,online,target",
    ...urls.map(
      (u, i) =>
        `${8000 + i},${u.includes(",") ? `"${u}"` : u},http://www.phishtank.com/phish_detail.php?phish_id=${8000 + i},2026-12-01T09:00:00+00:00,yes,2026-12-01T09:05:00+00:00,yes,Other`,
    ),
  ].join("\n") + "\n";

describe("threat feed formats", () => {
  it("keys a site's root as a host and any other address exactly", () => {
    expect(feedKey("https://Evil.Example/")).toEqual({ host: "evil.example", url: null });
    expect(feedKey("http://evil.example")).toEqual({ host: "evil.example", url: null });
    expect(feedKey("https://EVIL.example:8443/a/b?x=1#frag")).toEqual({ host: "evil.example", url: "https://evil.example:8443/a/b?x=1" });
    expect(feedKey("http://bücher.example/login")).toEqual({ host: "xn--bcher-kva.example", url: "http://xn--bcher-kva.example/login" });
    expect(feedKey("https://evil.example/?q=1")).toEqual({ host: "evil.example", url: "https://evil.example/?q=1" });
    for (const bad of ["javascript:alert(1)", "ftp://files.example/x", "not a url", "", "http://"]) expect(feedKey(bad), bad).toBeNull();
  });

  it("reads URLhaus's dump: comments skipped, the third column, broken rows counted", async () => {
    const feed = await parseFeed("urlhaus", Readable.from([URLHAUS]));
    expect([...feed.hosts]).toEqual(["malware-site.example"]);
    expect([...feed.urls].sort()).toEqual(["http://198.51.100.7/bins/mozi.m", "https://docs.shared.example/file.exe?dl=1"]);
    expect([feed.rows, feed.skipped]).toEqual([5, 2]);
  });

  it("reads PhishTank's CSV by its header, quoted addresses with commas included, across chunk boundaries", async () => {
    const text = phishtank(["https://login.bank-phish.example/verify?a=1,2", "http://phish-root.example/", "no address"]);
    const chunks = text.match(/[\s\S]{1,7}/g) as string[];
    const feed = await parseFeed("phishtank", Readable.from(chunks));
    expect([...feed.hosts]).toEqual(["phish-root.example"]);
    expect([...feed.urls]).toEqual(["https://login.bank-phish.example/verify?a=1,2"]);
    expect([feed.rows, feed.skipped]).toEqual([3, 1]);
  });
});

describe.each(ENGINES)("THREAT_FEEDS on %s", (engine) => {
  let dir: string;
  let server: TestServer;
  let ops: ApiClient;
  let owner: ApiClient;
  let receiver: Server;
  let answer = { status: 200, body: phishtank(["https://login.bank-phish.example/verify"]) };
  let feedUrl: string;

  const openStatus = async (alias: string) => (await fetch(`${server.url}/${alias}`, { redirect: "manual", headers: { "user-agent": UA.windows } })).status;
  const feeds = async () => (await ops.get("/api/admin/threat-feeds")).body.feeds;

  beforeAll(async () => {
    receiver = createServer((_req, res) => {
      res.writeHead(answer.status, { "content-type": "text/csv" });
      res.end(answer.body);
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    feedUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/data/online-valid.csv?key=secret`;
    dir = mkdtempSync(join(tmpdir(), "snip-feeds-"));
    const file = join(dir, "urlhaus.csv");
    writeFileSync(file, URLHAUS);
    server = await startTestServer({ engine, env: { THREAT_FEEDS: `urlhaus:${file},phishtank:${feedUrl}`, THREAT_FEED_ALLOW_PRIVATE: "true" } });
    ops = await signedInClient(server, `ops-${engine}@example.com`, "business");
    await server.ctx.storage.db.updateTable("users").set({ is_admin: 1 }).where("email", "=", `ops-${engine}@example.com`).execute();
    owner = await signedInClient(server, `owner-${engine}@example.com`, "business");
    // The address is read in the background at start: wait for it.
    await server.ctx.threatFeeds.reloadAll();
  });
  afterAll(async () => {
    await server?.close();
    receiver?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("shows each feed to operators only: rows, sites, addresses, skipped rows, no query of the address", async () => {
    const list = await feeds();
    expect(list.map((f: Record<string, unknown>) => ({ ...f, loaded_at: typeof f.loaded_at }))).toEqual([
      { format: "urlhaus", source: join(dir, "urlhaus.csv"), rows: 5, hosts: 1, urls: 2, skipped_rows: 2, loaded_at: "string", error: null },
      { format: "phishtank", source: feedUrl.replace("?key=secret", ""), rows: 1, hosts: 0, urls: 1, skipped_rows: 0, loaded_at: "string", error: null },
    ]);
    expect((await owner.get("/api/admin/threat-feeds")).status).toBe(403);
    expect((await owner.post("/api/admin/threat-feeds/reload")).status).toBe(403);
  });

  it("refuses listed destinations at creation: a listed site whole, a listed address exactly", async () => {
    for (const url of [
      "https://malware-site.example/any/path",
      "https://cdn.malware-site.example/",
      "http://198.51.100.7/bins/mozi.m",
      "https://docs.shared.example/file.exe?dl=1",
      "https://login.bank-phish.example/verify",
    ]) {
      const r = await owner.post("/api/links", { url });
      expect([r.status, r.body.code], url).toEqual([400, "destination_blocked"]);
    }
    // The same hosts at addresses no feed lists are another matter.
    for (const url of ["https://docs.shared.example/other.pdf", "https://login.bank-phish.example/", "http://198.51.100.7/index.html"]) {
      expect((await owner.post("/api/links", { url })).status, url).toBe(201);
    }
    // A rule's destination counts like the main one.
    const rules = await owner.post("/api/links", {
      url: "https://fine.example/",
      rules: [{ if: { country: ["DE"] }, url: "https://login.bank-phish.example/verify" }],
    });
    expect([rules.status, rules.body.code]).toEqual([400, "destination_blocked"]);
  });

  it("blocks a link once a feed lists its destination, files one report, keeps the entries when a read fails", async () => {
    const made = await owner.post("/api/links", { url: "https://later.example/landing?utm=1" });
    expect(made.status).toBe(201);
    const alias = made.body.link.alias as string;
    expect(await openStatus(alias)).toBe(302);

    answer = { status: 200, body: phishtank(["https://login.bank-phish.example/verify", "https://later.example/landing?utm=1"]) };
    const reloaded = (await ops.post("/api/admin/threat-feeds/reload")).body.feeds;
    expect(reloaded[1]).toMatchObject({ rows: 2, urls: 2, error: null });
    expect(await openStatus(alias)).toBe(410);
    const shown = await owner.get(`/api/links/${made.body.link.id}`);
    expect(shown.body.link.destination_blocked).toBe(true);

    const queue = async () => (await ops.get("/api/admin/reports?state=open")).body.reports.filter((r: { alias: string }) => r.alias === alias);
    const reports = await queue();
    expect(reports.map((r: Record<string, unknown>) => [r.source, r.reason, r.reporter_email, r.url, r.details])).toEqual([
      ["feed", "phishing", null, "https://later.example/landing?utm=1", "Listed by the PhishTank threat feed: https://later.example/landing?utm=1"],
    ]);
    // Read again (and by every instance): still one open report.
    await ops.post("/api/admin/threat-feeds/reload");
    answer = { status: 200, body: phishtank(["https://later.example/landing?utm=1", "https://login.bank-phish.example/verify", "https://x.example/y"]) };
    await ops.post("/api/admin/threat-feeds/reload");
    expect((await queue()).length).toBe(1);

    // The feed's address fails: the error is shown, the last good entries stay.
    answer = { status: 500, body: "oops" };
    const failed = (await ops.post("/api/admin/threat-feeds/reload")).body.feeds[1];
    expect(failed).toMatchObject({ rows: 3, urls: 3, error: expect.stringMatching(/answered HTTP 500/) });
    expect(await openStatus(alias)).toBe(410);

    // Delisted: the link redirects again.
    answer = { status: 200, body: phishtank(["https://login.bank-phish.example/verify"]) };
    await ops.post("/api/admin/threat-feeds/reload");
    expect(await openStatus(alias)).toBe(302);
  });
});

describe("THREAT_FEEDS refused", () => {
  it("names the setting for a bad entry, a missing file or an address the guard refuses", async () => {
    expect(() => testConfig({ THREAT_FEEDS: "spamhaus:/tmp/x.csv" })).toThrow(/THREAT_FEEDS.*urlhaus:/);
    expect(() => testConfig({ THREAT_FEEDS: "urlhaus:/nowhere/feed.csv" })).toThrow(/THREAT_FEEDS.*file not found/);
    expect(() => testConfig({ THREAT_FEEDS: "phishtank:ftp://x.example/feed.csv" })).toThrow(/THREAT_FEEDS/);
    // Loopback without THREAT_FEED_ALLOW_PRIVATE: the read fails with the guard's words, nothing is listed.
    const server = await startTestServer({ env: { THREAT_FEEDS: "phishtank:http://127.0.0.1:9/feed.csv" } });
    try {
      const [feed] = await server.ctx.threatFeeds.reloadAll();
      expect(feed).toMatchObject({ rows: 0, loaded_at: null, error: expect.stringMatching(/is refused: .*loopback/) });
    } finally {
      await server.close();
    }
  });
});
