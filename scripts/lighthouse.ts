// `npm run lighthouse`: Lighthouse 12 on the built service (dist/), the way a visitor meets it. Starts `snip serve`
// from dist/ on a fresh SQLite file, seeds a Business account with 100 links (one of them with clicks), signs in
// through the API, then audits four pages on desktop (Lighthouse's desktop preset) and mobile (its default
// throttled phone): performance, accessibility and best practices. Prints a table (docs/testing.md, Lighthouse)
// and exits 1 when a score is below its threshold (scripts/lighthouse-table.ts).
//
// Chromium: CHROME_PATH, else SNIP_CHROMIUM, else /usr/bin/chromium. The JSON reports go to
// SNIP_LIGHTHOUSE_DIR (default /tmp/snip-lighthouse), one per page and form factor.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { setPriority, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import lighthouse, { desktopConfig, type Flags, type Result } from "lighthouse";
import { chromium } from "playwright-core";
import { CATEGORIES, type Category, type FormFactor, FORM_FACTORS, bestPerformance, failures, type Measured, table, THRESHOLDS } from "./lighthouse-table.js";

const root = join(import.meta.dirname, "..");
const cli = join(root, "dist", "src", "cli.js");
const chromePath = process.env.CHROME_PATH || process.env.SNIP_CHROMIUM || "/usr/bin/chromium";
const reportDir = process.env.SNIP_LIGHTHOUSE_DIR || "/tmp/snip-lighthouse";
const EMAIL = "lighthouse@example.com";
const PASSWORD = "lighthouse-pass-1";
const LINKS = 100;
const CLICKS = 60;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Runs a child to completion, or starts it and resolves once `ready` shows in its output (then it keeps running). */
function run(
  cmd: string,
  args: string[],
  env: Record<string, string>,
  ready?: RegExp,
  detached = false,
): Promise<{ child: ChildProcess; match: RegExpMatchArray | null }> {
  const child = spawn(cmd, args, {
    cwd: root,
    detached,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? tmpdir(), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  return new Promise((resolve, reject) => {
    const look = (d: Buffer) => {
      out += d.toString();
      const m = ready ? out.match(ready) : null;
      if (m) resolve({ child, match: m });
    };
    child.stdout?.on("data", look);
    child.stderr?.on("data", look);
    child.once("exit", (code) =>
      code === 0 && !ready ? resolve({ child, match: null }) : reject(new Error(`${cmd} ${args.join(" ")} exited ${code}: ${out}`)),
    );
  });
}

interface Session {
  cookie: string;
  csrf: string;
}

async function api(base: string, s: Session, method: string, path: string, body?: unknown): Promise<Response> {
  const res = await fetch(base + path, {
    method,
    headers: { cookie: s.cookie, "x-csrf-token": s.csrf, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const set = res.headers.getSetCookie().map((c) => c.split(";")[0]);
  if (set.length > 0) s.cookie = set.join("; ");
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res;
}

/** Signs in through the API (the session cookie, then the login that rotates it) and seeds the links and clicks. */
async function seed(base: string): Promise<{ session: Session; linkId: string }> {
  const s: Session = { cookie: "", csrf: "" };
  s.csrf = ((await (await api(base, s, "GET", "/api/auth/session")).json()) as { csrf_token: string }).csrf_token;
  s.csrf = ((await (await api(base, s, "POST", "/api/auth/login", { email: EMAIL, password: PASSWORD })).json()) as { csrf_token: string }).csrf_token;
  const urls = Array.from({ length: LINKS - 1 }, (_, i) => `https://shop.example.com/collections/spring-${i}?utm_source=newsletter&utm_campaign=launch`);
  await api(base, s, "POST", "/api/links/bulk", { urls: urls.join("\n") });
  const made = (await (await api(base, s, "POST", "/api/links", { url: "https://www.example.com/spring/lookbook", alias: "spring-lookbook" })).json()) as {
    link: { id: string; alias: string };
  };
  const agents = [
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
  ];
  const referrers = ["https://mail.google.com/", "https://t.co/abc", "https://www.linkedin.com/feed/", ""];
  for (let i = 0; i < CLICKS; i++) {
    const headers: Record<string, string> = { "user-agent": agents[i % agents.length]! };
    if (referrers[i % referrers.length]) headers.referer = referrers[i % referrers.length]!;
    await fetch(`${base}/${made.link.alias}`, { redirect: "manual", headers });
  }
  // The clicks are written in batches: wait until the link counts them all (API.md: within a second).
  for (let i = 0; i < 100; i++) {
    const { link } = (await (await api(base, s, "GET", `/api/links/${made.link.id}`)).json()) as { link: { click_count: number } };
    if (link.click_count >= CLICKS) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return { session: s, linkId: made.link.id };
}

async function startChromium(): Promise<{ child: ChildProcess; port: number; profile: string }> {
  const profile = mkdtempSync(join(tmpdir(), "snip-lh-chrome-"));
  const flags = ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check", "--disable-extensions"];
  flags.push("--disable-background-networking", "--disable-sync", "--disable-default-apps", "--mute-audio", "--password-store=basic");
  const { child, match } = await run(
    chromePath,
    [...flags, "--remote-debugging-port=0", `--user-data-dir=${profile}`, "about:blank"],
    {},
    /DevTools listening on ws:\/\/[^:]+:(\d+)\//,
    true, // its own process group, so that stopChromium() ends the renderers too
  );
  return { child, port: Number(match![1]), profile };
}

/** Ends Chromium and every process it started, then removes its profile (a renderer still writing there made rmdir fail). */
async function stopChromium(chrome: { child: ChildProcess; profile: string }): Promise<void> {
  const exited = chrome.child.exitCode !== null ? Promise.resolve() : new Promise((r) => chrome.child.once("exit", r));
  try {
    process.kill(-chrome.child.pid!, "SIGKILL");
  } catch {
    chrome.child.kill("SIGKILL"); // the group is gone already
  }
  await exited;
  rmSync(chrome.profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
}

interface Page {
  name: string;
  path: string;
  signedIn: boolean;
}

/**
 * Puts the session cookie in the browser's jar, as signing in does. (Lighthouse's extraHeaders Cookie reaches the
 * navigation but not the dashboard's fetch of /api/auth/session, so the page would sign out.) Lighthouse clears an
 * origin's storage before each run, but not its cookies.
 */
async function signInBrowser(port: number, base: string, cookie: string): Promise<void> {
  const browser = await chromium.connectOverCDP(`http://127.0.0.1:${port}`);
  const cookies = cookie.split("; ").map((c) => {
    const at = c.indexOf("=");
    return { name: c.slice(0, at), value: c.slice(at + 1), url: base, httpOnly: true, sameSite: "Lax" as const };
  });
  await browser.contexts()[0]!.addCookies(cookies);
  await browser.close();
}

async function audit(port: number, url: string, formFactor: FormFactor): Promise<Result> {
  const flags: Flags = { port, output: "json", logLevel: "error", onlyCategories: [...CATEGORIES] };
  // A run that could not record the page (NO_NAVSTART, a trace lost on a loaded machine) is run again, at most twice.
  for (let attempt = 1; ; attempt++) {
    const result = await lighthouse(url, flags, formFactor === "desktop" ? desktopConfig : undefined);
    if (!result) throw new Error(`Lighthouse returned nothing for ${url}`);
    const err = result.lhr.runtimeError;
    if (!err) return result.lhr;
    if (attempt === 3) throw new Error(`Lighthouse on ${url}: ${err.code} ${err.message}`);
    console.log(`    ${url} ${formFactor}: ${err.code}, running it again`);
  }
}

const score = (lhr: Result, c: Category) => Math.round((lhr.categories[c]?.score ?? 0) * 100);

/** What pulled a category below 100: the audits that count toward it and did not pass, with their figures. */
function why(lhr: Result): string[] {
  const lines: string[] = [];
  const m = (id: string) => lhr.audits[id]?.displayValue ?? "?";
  lines.push(
    `    metrics: FCP ${m("first-contentful-paint")}, LCP ${m("largest-contentful-paint")}, TBT ${m("total-blocking-time")}, CLS ${m("cumulative-layout-shift")}, SI ${m("speed-index")}`,
  );
  for (const c of CATEGORIES)
    for (const ref of lhr.categories[c]?.auditRefs ?? []) {
      const a = lhr.audits[ref.id];
      if (!a || a.score === null || a.score >= 0.9 || (ref.weight === 0 && c !== "performance")) continue;
      if (c === "performance" && ref.weight === 0 && a.details?.type !== "opportunity") continue;
      lines.push(`    ${c}: ${a.id} (${Math.round(a.score * 100)})${a.displayValue ? ": " + a.displayValue : ""}`);
    }
  return lines;
}

const args = parseArgs({ options: { page: { type: "string", multiple: true }, "report-performance": { type: "boolean" } } }).values;

async function main(): Promise<number> {
  if (!existsSync(cli) || !existsSync(join(root, "dist", "web", "index.html"))) {
    console.error("lighthouse: dist/ is not built: run npm run build first");
    return 2;
  }
  // Timing is what performance scores: the server and the browser (children inherit this) ahead of other work on a
  // shared machine, where allowed (root; elsewhere the run goes on at the usual priority and says so).
  try {
    setPriority(-10);
  } catch {
    console.log("lighthouse: could not raise the priority (not root): on a busy machine performance reads low");
  }
  const dataDir = mkdtempSync(join(tmpdir(), "snip-lh-data-"));
  const env = { DATA_DIR: dataDir, LOG_LEVEL: "warn" };
  await run(
    process.execPath,
    [cli, "user", "create", "--email", EMAIL, "--password", PASSWORD, "--plan", "business", "--verified", "--name", "Lena Lighthouse"],
    env,
  );
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = await run(process.execPath, [cli, "serve"], { ...env, LOG_LEVEL: "info", PORT: String(port), BASE_URL: base }, /"msg":"snip is listening"/);
  const chrome = await startChromium();
  mkdirSync(reportDir, { recursive: true });
  const results: Measured[] = [];
  let signedIn = false;
  try {
    const { session, linkId } = await seed(base);
    const pages: Page[] = [
      { name: "/", path: "/", signedIn: false },
      { name: "/app", path: "/app", signedIn: true },
      { name: "/app/links/{id}/stats", path: `/app/links/${linkId}/stats`, signedIn: true },
      { name: "/app/links/new", path: "/app/links/new", signedIn: true },
    ];
    // `--page /app --page /` audits those pages only (while fixing one); CI runs them all.
    const only = args.page;
    for (const page of pages.filter((p) => !only || only.includes(p.name))) {
      // The pages in order, the signed-out one first: from the first signed-in page on, the browser has the session.
      if (page.signedIn && !signedIn) await signInBrowser(chrome.port, base, session.cookie);
      signedIn ||= page.signedIn;
      for (const formFactor of FORM_FACTORS) {
        const started = Date.now();
        const lhr = await audit(chrome.port, base + page.path, formFactor);
        if (new URL(lhr.finalDisplayedUrl).pathname !== page.path) throw new Error(`${page.path} ended at ${lhr.finalDisplayedUrl} (signed out?)`);
        const scores = Object.fromEntries(CATEGORIES.map((c) => [c, score(lhr, c)])) as Record<Category, number>;
        let performanceRuns = 1;
        // Performance alone is timing and moves with the machine's load: below the threshold, a second run, the better counts.
        if (scores.performance < THRESHOLDS[formFactor].performance) {
          const again = await audit(chrome.port, base + page.path, formFactor);
          scores.performance = bestPerformance(scores.performance, score(again, "performance"));
          performanceRuns = 2;
        }
        results.push({ page: page.name, formFactor, scores, performanceRuns });
        writeFileSync(join(reportDir, `${page.name.replace(/[^a-z0-9]+/gi, "_")}-${formFactor}.json`), JSON.stringify(lhr));
        console.log(
          `${page.name} ${formFactor}: ${CATEGORIES.map((c) => `${c} ${scores[c]}`).join(", ")} (${((Date.now() - started) / 1000).toFixed(0)} s; CPU benchmark index ${lhr.environment.benchmarkIndex}, a quiet desktop reads over 1000)`,
        );
        for (const line of why(lhr)) console.log(line);
      }
    }
  } finally {
    server.child.kill("SIGTERM");
    await Promise.all([stopChromium(chrome), new Promise((r) => server.child.once("exit", r))]);
    rmSync(dataDir, { recursive: true, force: true });
  }
  console.log(`\nLighthouse ${results.length} runs (reports in ${reportDir}):\n\n${table(results)}\n`);
  // `--report-performance` (CI): performance printed and marked, not failed (see failures()).
  const failed = failures(results, args["report-performance"] ? CATEGORIES.filter((c) => c !== "performance") : CATEGORIES);
  for (const f of failed) console.error(`below threshold: ${f.page} ${f.formFactor} ${f.category} ${f.score} < ${f.threshold}`);
  return failed.length === 0 ? 0 : 1;
}

process.exitCode = await main();
