// Browser test of the Import page (issue 30): a CSV file picked on the page with one alias already taken, its
// preview, the job to done, the report downloaded and the links on the Links page, the export; a Shlink import
// seen running (a page held back by the fake Shlink), cancelled mid-way and resumed to done with its visits;
// the form's own checks, a refused source and the past imports' error state. Light and dark, 1280 and 390.
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Download, Page } from "playwright-core";
import { parse } from "csv-parse/sync";
import { browserAvailable, screenshotModes, signInPage, startBrowserFixture, type BrowserFixture } from "./browser.js";
import { startFakeShlink, type FakeShlink, type FakeShortUrl } from "./fake-shlink.js";

const available = browserAvailable();
const PASSWORD = "import-password-1";
const SHLINK_KEY = "e2e-shlink-key";
const text = async (page: Page, testId: string) => ((await page.getByTestId(testId).first().textContent()) ?? "").trim();

/** The file a click starts downloading, as text. */
async function download(page: Page, click: () => Promise<void>): Promise<{ name: string; body: string }> {
  const [dl] = (await Promise.all([page.waitForEvent("download"), click()])) as [Download, void];
  return { name: dl.suggestedFilename(), body: await readFile(await dl.path(), "utf8") };
}

/** Screenshots from the top of the page (a sticky header would otherwise sit mid-page). */
async function shots(page: Page, name: string): Promise<void> {
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.mouse.move(0, 0);
  await screenshotModes(page, name);
}

/** Every data-state the job card takes, in order (recorded in the page, so no state is missed between polls). */
async function recordJobStates(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { jobStates: string[] };
    w.jobStates = [];
    const note = () => {
      const s = document.querySelector('[data-testid="import-job"]')?.getAttribute("data-state");
      if (s && w.jobStates[w.jobStates.length - 1] !== s) w.jobStates.push(s);
    };
    new MutationObserver(note).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-state"] });
  });
}
const jobStates = (page: Page) => page.evaluate(() => (window as unknown as { jobStates: string[] }).jobStates);
const waitState = (page: Page, state: string) => page.locator(`[data-testid="import-job"][data-state="${state}"]`).waitFor({ timeout: 20_000 });

describe.skipIf(!available)("import page in the browser", () => {
  let fixture: BrowserFixture;
  let shlink: FakeShlink;
  const stamp = Date.now().toString(36);
  const email = `importer-${stamp}@example.com`;
  const alias = { one: `imp-one-${stamp}`, two: `imp-two-${stamp}`, taken: `imp-taken-${stamp}`, four: `imp-four-${stamp}` };
  // Shlink: a first page of 25 links (the preview's 20 rows come from it) and a second of 5, held back at first.
  const shortUrls: FakeShortUrl[] = Array.from({ length: 30 }, (_, i) => ({
    shortCode: `sh${i + 1}-${stamp}`,
    longUrl: `https://shlink.example.com/page/${i + 1}`,
    title: i === 0 ? "Shlink's first" : null,
    tags: i === 0 ? ["from-shlink"] : [],
    visits:
      i === 0
        ? [
            {
              date: "2024-03-02T08:00:00+00:00",
              referer: "https://news.example.com/",
              userAgent: "Mozilla/5.0 (Windows NT 10.0; Win64; x64)",
              countryCode: "de",
              cityName: "Berlin",
            },
            {
              date: "2024-03-03T09:30:00+00:00",
              referer: "",
              userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)",
              countryCode: "fr",
              cityName: "Paris",
            },
          ]
        : [],
  }));

  beforeAll(async () => {
    // The fake Shlink is on loopback: private source addresses are allowed on this server.
    fixture = await startBrowserFixture({ env: { IMPORT_ALLOW_PRIVATE: "true" } });
    const ctx = fixture.server.ctx;
    await ctx.accounts.create({ email, password: PASSWORD, plan: "business", verified: true });
    const other = await ctx.accounts.create({ email: `other-${stamp}@example.com`, password: PASSWORD, plan: "business", verified: true });
    await ctx.links.create(other, { url: "https://other.example.com/", alias: alias.taken });
    // Three pages: the job is cancelled while the second is held back, so a third is left for the resume
    // (a job whose last page comes in after a cancel is done).
    shlink = await startFakeShlink(SHLINK_KEY, [shortUrls.slice(0, 25), shortUrls.slice(25, 28), shortUrls.slice(28)]);
  });
  afterAll(async () => {
    await fixture?.close();
    await shlink?.close();
  });

  it("shows the empty page and checks the form before asking the server", async () => {
    const page = fixture.browser.page;
    await signInPage(page, email, PASSWORD);
    await page.getByTestId("nav-dashboard").click();
    await page.getByTestId("links-import").click();
    await page.waitForURL((u) => u.pathname === "/app/links/import");
    await page.getByTestId("import-history-empty").waitFor();
    // Bitly by default, its API address prefilled; Shlink needs one.
    expect(await page.getByTestId("import-base").inputValue()).toBe("https://api-ssl.bitly.com");
    expect(await page.getByLabel("Access token").getAttribute("type")).toBe("password");
    await page.getByTestId("import-source-dub").check();
    expect(await page.getByTestId("import-base").inputValue()).toBe("https://api.dub.co");
    await page.getByTestId("import-source-yourls").check();
    expect(await page.getByLabel("Signature token").getAttribute("type")).toBe("password");
    await page.getByTestId("import-source-shlink").check();
    expect(await page.getByTestId("import-base").inputValue()).toBe("");
    await page.getByTestId("import-preview-button").click();
    expect(await text(page, "import-base-error")).toBe("Enter the address of your Shlink.");
    expect(await text(page, "import-token-error")).toBe("Enter your Shlink API key.");
    await page.getByTestId("import-source-csv").check();
    expect(await text(page, "import-file-info")).toContain("up to 20.0 MB");
    await page.getByTestId("import-preview-button").click();
    expect(await text(page, "import-file-error")).toBe("Choose a file to import.");
    await shots(page, "issue30-import-empty");
  });

  it("imports a CSV picked on the page: preview, progress to done, report, the links listed, the export", async () => {
    const page = fixture.browser.page;
    const csv = [
      "url,alias,title,tags,clicks",
      `https://example.com/one,${alias.one},First import,"spring,promo",1234`,
      `https://example.com/two,${alias.two},,,`,
      `https://example.com/taken,${alias.taken},Taken alias,,`,
      `https://example.com/four,${alias.four},Fourth,promo,`,
    ].join("\n");
    await page.getByTestId("import-file").setInputFiles({ name: "links.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
    await page.getByTestId("import-file-info").filter({ hasText: "links.csv" }).waitFor();
    await page.getByTestId("import-preview-button").click();
    await page.getByTestId("import-preview").waitFor();
    const rows = page.getByTestId("import-preview-row");
    expect(await rows.count()).toBe(4);
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-action")))).toEqual(["create", "create", "skip", "create"]);
    expect(await rows.nth(0).getByTestId("import-preview-short").textContent()).toContain(`/${alias.one}`);
    expect(await rows.nth(2).getByTestId("import-preview-notes").textContent()).toContain("The alias is taken on this host.");
    expect(await rows.nth(0).textContent()).toContain("First import");
    await shots(page, "issue30-import-preview");

    await recordJobStates(page);
    await page.getByTestId("import-start").click();
    await waitState(page, "done");
    const seen = await jobStates(page);
    expect(["queued", "running"]).toContain(seen[0]);
    expect(seen[seen.length - 1]).toBe("done");
    expect(await page.getByTestId("import-progress").getAttribute("aria-valuenow")).toBe("100");
    // A CSV has click totals, not visits (issue 55, finding 7): no "Visits 0" beside the 1,234 clicks imported.
    const counts = { read: "4", created: "3", skipped: "1", failed: "0", visits: "—" };
    for (const [k, v] of Object.entries(counts)) expect(await text(page, `import-count-${k}`), k).toBe(v);
    expect(await text(page, "import-visits-note")).toBe(
      "No single visits: CSV or snip export gives click totals. Each link's total came along and shows beside its clicks as “imported”.",
    );
    // The form is fresh after the start, the file gone.
    expect(await page.getByTestId("import-preview").count()).toBe(0);
    expect(await text(page, "import-history-counts")).toBe("3 created · 1 skipped · 0 failed");
    await shots(page, "issue30-import-done");

    const report = await download(page, () => page.getByTestId("import-report").click());
    expect(report.name).toMatch(/\.csv$/);
    const lines = parse(report.body, { columns: true, skip_empty_lines: true, bom: true }) as Record<string, string>[];
    expect(Object.keys(lines[0] ?? {})).toEqual(["line", "source_id", "url", "alias", "short_url", "status", "code", "notes"]);
    expect(lines.map((l) => [l.alias, l.status])).toEqual([
      [alias.one, "created"],
      [alias.two, "created"],
      [alias.taken, "skipped"],
      [alias.four, "created"],
    ]);
    expect(lines[2]?.code).toBe("alias_taken");
    expect(lines[0]?.short_url).toBe(`${fixture.server.url}/${alias.one}`);

    await page.getByTestId("nav-dashboard").click();
    await page.getByTestId("link-list").waitFor();
    const listed = (await page.getByTestId("link-list").textContent()) ?? "";
    for (const a of [alias.one, alias.two, alias.four]) expect(listed).toContain(a);
    expect(listed).not.toContain(alias.taken);
    // The clicks the source had counted show beside those snip counts.
    const imported = page.getByTestId("link-row").filter({ hasText: alias.one }).getByTestId("link-imported-clicks");
    expect(await imported.textContent()).toBe("+ 1,234 imported");
    expect(await page.getByTestId("link-imported-clicks").count()).toBe(1);

    const exported = await download(page, () => page.getByTestId("export-csv").click());
    const out = parse(exported.body, { columns: true, skip_empty_lines: true, bom: true }) as Record<string, string>[];
    expect(out.map((l) => l.alias).sort()).toEqual([alias.four, alias.one, alias.two].sort());
    expect(out.find((l) => l.alias === alias.one)?.url).toBe("https://example.com/one");
    expect(exported.name).toMatch(/\.csv$/);
    const json = await download(page, () => page.getByTestId("export-json").click());
    expect(json.name).toMatch(/\.json$/);
    const links = (JSON.parse(json.body) as { links: { alias: string; url: string; title: string | null; tags: string[] }[] }).links;
    expect(links.map((l) => l.alias).sort()).toEqual([alias.four, alias.one, alias.two].sort());
    const one = links.find((l) => l.alias === alias.one);
    expect([one?.url, one?.title, [...(one?.tags ?? [])].sort()]).toEqual(["https://example.com/one", "First import", ["promo", "spring"]]);
  });

  it("follows a Shlink import running, cancels it mid-way and resumes it to done with its visits", async () => {
    const page = fixture.browser.page;
    shlink.hold(2);
    await page.getByTestId("nav-dashboard").click();
    await page.getByTestId("links-import").click();
    await page.getByTestId("import-source-shlink").check();
    await page.getByTestId("import-base").fill(shlink.url);
    await page.getByLabel("API key").fill(SHLINK_KEY);
    await page.getByTestId("import-preview-button").click();
    await page.getByTestId("import-preview").waitFor();
    expect(await page.getByTestId("import-preview-row").count()).toBe(20);
    expect(await text(page, "import-preview-summary")).toContain("30 links in the source.");

    await recordJobStates(page);
    await page.getByTestId("import-start").click();
    // The first page is in, the second held back by the source: the job is seen running at 25 of 30.
    await page.locator('[data-testid="import-job"][data-state="running"] [data-testid="import-count-read"]', { hasText: /^25$/ }).waitFor({ timeout: 20_000 });
    expect(await text(page, "import-progress-text")).toBe("25 of 30 read");
    expect(await page.getByTestId("import-progress").getAttribute("aria-valuenow")).toBe("83");
    await shots(page, "issue30-import-running");

    // A poll that reads the job cancelled (while the page in hand is still held back): the page must go on
    // following it, since the server is still working on it.
    const polledCancelled = page.waitForResponse(
      async (r) =>
        r.request().method() === "GET" &&
        /^\/api\/imports\/[^/]+$/.test(new URL(r.url()).pathname) &&
        ((await r.json()) as { import?: { state?: string } }).import?.state === "cancelled",
    );
    await page.getByTestId("import-cancel").click();
    await waitState(page, "cancelled");
    await polledCancelled;
    // The page in hand comes in after the cancel: the job stops with it (28 read), before the resume.
    shlink.release(2);
    await fixture.server.ctx.imports.runner.idle();
    // The page keeps following the cancelled job until it stops changing: the page in hand shows.
    await page
      .locator('[data-testid="import-job"][data-state="cancelled"] [data-testid="import-count-read"]', { hasText: /^28$/ })
      .waitFor({ timeout: 10_000 });
    await page.getByTestId("import-resume").waitFor();
    await shots(page, "issue30-import-cancelled");

    await page.getByTestId("import-resume").click();
    await waitState(page, "done");
    expect(await jobStates(page)).toEqual(expect.arrayContaining(["running", "cancelled", "done"]));
    // Resumed where it stopped: every link read once, none twice.
    expect(await text(page, "import-progress-text")).toBe("30 of 30 read");
    const counts = { read: "30", created: "30", skipped: "0", failed: "0", visits: "2" };
    for (const [k, v] of Object.entries(counts)) expect(await text(page, `import-count-${k}`), k).toBe(v);
    expect(await page.getByTestId("import-visits-note").count()).toBe(0);
    // Page 1 read by the preview and once by the job; the others once.
    expect(shlink.pagesAsked.filter((p) => p === 1)).toHaveLength(2);
    expect([2, 3].map((n) => shlink.pagesAsked.filter((p) => p === n).length)).toEqual([1, 1]);
    expect(await page.getByTestId("import-history-item").count()).toBe(2);
    expect(await page.getByTestId("import-history-item").first().getAttribute("data-state")).toBe("done");
  });

  it("shows a refused source, and the past imports' error state with a retry", async () => {
    const page = fixture.browser.page;
    await page.getByTestId("import-source-kutt").check();
    // Link-local (cloud metadata) addresses are refused even where private ones are allowed.
    await page.getByTestId("import-base").fill("http://169.254.169.254");
    await page.getByLabel("API key").fill("some-key");
    await page.getByTestId("import-preview-button").click();
    await page.locator('[data-testid="import-form-error"], [data-testid="import-base-error"]').first().waitFor();
    expect(await page.getByTestId("import-preview").count()).toBe(0);

    await page.route("**/api/imports", (route) =>
      route.fulfill({ status: 500, contentType: "application/json", body: '{"status":"error","code":"internal_error","message":"Internal error"}' }),
    );
    await page.goto("/app/links/import");
    await page.getByTestId("import-history-error").waitFor();
    await shots(page, "issue30-import-errors");
    await page.unroute("**/api/imports");
    await page.getByTestId("import-history-error").getByRole("button", { name: "Try again" }).click();
    await page.getByTestId("import-history-item").first().waitFor();
    expect(await page.getByTestId("import-history-item").count()).toBe(2);
  });
});
