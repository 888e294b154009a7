// Moving off Firebase Dynamic Links (docs/deep-links.md, docs/import.md): a CSV of short links and their long
// Dynamic Links imported on every engine; the short path kept on the account's custom domain, the long link's
// parameters mapped to the link's fields or reported on its line, bad lines failed alone, a re-run idempotent.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { signedInClient } from "../helpers/client.js";
import { importFile, linkByAlias, report } from "../helpers/imports.js";
import { verifiedDomain } from "../helpers/verified-domain.js";
import { withHost } from "../helpers/host.js";

const enc = encodeURIComponent;

describe.each(ENGINES)("Firebase Dynamic Links import on %s", (engine) => {
  let server: TestServer;
  const host = `go-${engine}.shop.test`;
  beforeAll(async () => {
    server = await startTestServer({ engine });
  });
  afterAll(async () => server?.close());

  const full =
    `https://shop.page.link/?link=${enc("https://shop.example/product/42?ref=poster")}` +
    `&apn=com.example.shop&afl=${enc("https://shop.example/android")}&amv=120&ibi=com.example.Shop&isi=1234567890` +
    `&ifl=${enc("https://shop.example/ios")}&efr=1&ofl=${enc("https://shop.example/desktop")}` +
    `&st=${enc("Spring sale")}&sd=${enc("Up to 40 % off")}&si=${enc("https://shop.example/sale.png")}&utm_source=poster&utm_campaign=spring`;

  it("imports the console's CSV: fields mapped, the rest reported, bad lines failed alone, a re-run skips", async () => {
    const c = await signedInClient(server, `firebase-${engine}@example.com`, "business");
    const me = await c.get("/api/auth/session");
    await verifiedDomain(server, `dom_fdl_${engine}`, me.body.user.id, host);
    const csv = [
      "Link name,Short link,Long link",
      `Spring poster,https://${host}/spring,"${full}"`,
      `,https://shop.page.link/Xy12,"https://shop.page.link/?link=${enc("https://shop.example/t")}"`,
      "Broken,https://shop.page.link/zz,https://shop.page.link/?apn=com.example.shop",
    ].join("\r\n");

    const preview = await c.post("/api/imports/preview", { source: "firebase", file: csv });
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body.rows.map((r: { action: string }) => r.action)).toEqual(["create", "create", "fail"]);

    const job = await importFile(c, csv, "skip", "firebase");
    expect(job).toMatchObject({ source: "firebase", state: "done", total: 3, counts: { read: 3, created: 2, skipped: 0, failed: 1, visits: 0 } });

    const spring = await linkByAlias(c, "spring");
    expect(spring).toMatchObject({
      short_url: `http://${host}/spring`,
      title: "Spring poster",
      url: "https://shop.example/desktop?utm_source=poster&utm_campaign=spring",
      ios_url: "https://shop.example/ios",
      android_url: "https://shop.example/android",
      app_ios_store_id: "1234567890",
      app_android_package: "com.example.shop",
      app_path: "/product/42?ref=poster",
      preview: { title: "Spring sale", description: "Up to 40 % off", image: "https://shop.example/sale.png" },
    });
    const other = await linkByAlias(c, "Xy12");
    expect(other).toMatchObject({ url: "https://shop.example/t", app_ios_store_id: null, app_android_package: null, app_path: null });
    expect(other!.short_url).toBe(`${server.url}/Xy12`);

    const lines = await report(c, job.id);
    expect(lines.map((l) => [l.line, l.status, l.code])).toEqual([
      ["1", "created", ""],
      ["2", "created", ""],
      ["3", "failed", "invalid_request"],
    ]);
    expect(lines[0]!.notes!.split("; ")).toEqual([
      "utm_source, utm_campaign added to the destination's query",
      "afl and apn both given: Android phones without the app go to apn's Play Store listing, and afl is kept as the link's Android address",
      "ifl and isi both given: iPhones without the app go to isi's App Store listing, and ifl is kept as the link's iOS address",
      "amv: the minimum Android version code is not carried: snip opens whatever version is installed",
      "ibi: the iOS bundle id belongs in the domain's app association (Domains, Apps: TEAMID.bundle.id), not on the link",
      "efr: skipping the app preview page needs nothing: snip shows no app preview page",
    ]);
    expect(lines[1]!.notes).toBe(`was on shop.page.link, not a verified domain of this account: created on ${new URL(server.url).hostname}`);
    expect(lines[2]!.notes).toMatch(/the long link has no link= parameter/);

    // A desktop visitor of the kept short path goes where Firebase sent desktops (ofl).
    const r = await withHost(server.url, "/spring", host);
    expect(r.status).toBe(302);
    expect(r.location).toBe("https://shop.example/desktop?utm_source=poster&utm_campaign=spring");

    const again = await importFile(c, csv, "skip", "firebase");
    expect(again.counts).toEqual({ read: 3, created: 0, skipped: 2, failed: 1, visits: 0 });
  });

  it("refuses a file without the two columns, and hostile lines, with a 4xx or a failed line, never a 5xx", async () => {
    const c = await signedInClient(server, `firebase-bad-${engine}@example.com`, "business");
    const noColumns = await c.post("/api/imports/preview", { source: "firebase", file: "url,alias\nhttps://a.example/,a" });
    expect(noColumns.status).toBe(400);
    expect(noColumns.body).toMatchObject({
      code: "invalid_request",
      details: [{ field: "file", message: 'the header row needs a short link column ("Short link") and a long link column ("Long link", longDynamicLink)' }],
    });
    const missing = await c.post("/api/imports", { source: "firebase" });
    expect(missing.status).toBe(400);
    expect(missing.body.details).toEqual([{ field: "file", message: "Choose a CSV file" }]);
    // A control character anywhere in the file is refused with the body, before any line is read.
    const nul = await c.post("/api/imports", { source: "firebase", file: `Short link,Long link\nhttps://shop.page.link/a\u0000b,https://a.example/` });
    expect(nul.status).toBe(400);
    expect(nul.body.details).toEqual([{ field: "body.file", message: "contains a control character or an unpaired surrogate" }]);
    const hostile = [
      "Short link,Long link",
      `https://shop.page.link/js,https://shop.page.link/?link=${enc("javascript:alert(1)")}`,
      `https://shop.page.link/long,https://shop.page.link/?link=${enc("https://a.example/")}&x=${"a".repeat(9000)}`,
      `https://shop.page.link/okay,https://shop.page.link/?link=${enc("https://a.example/ok")}&st=${enc("<script>alert(1)</script>")}`,
    ].join("\n");
    const job = await importFile(c, hostile, "skip", "firebase");
    expect(job.counts).toMatchObject({ read: 3, created: 1, failed: 2 });
    expect((await report(c, job.id)).map((l) => l.notes)).toEqual([
      "long_link: the long link's link= parameter is not an http or https address",
      "long_link: the long link is longer than 8192 characters",
      `was on shop.page.link, not a verified domain of this account: created on ${new URL(server.url).hostname}`,
    ]);
    const ok = await linkByAlias(c, "okay");
    expect(ok!.preview.title).toBe("<script>alert(1)</script>");
  });
});
