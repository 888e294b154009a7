// Browser harness for the e2e tests: Debian's chromium driven by playwright-core, one fresh profile per launch.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { AxeBuilder } from "@axe-core/playwright";
import { startTestServer, type TestServer, type TestServerOptions } from "../helpers/server.js";

export const CHROMIUM_PATH = process.env.SNIP_CHROMIUM ?? "/usr/bin/chromium";
export const SKIP_REASON = `browser tests skipped: ${CHROMIUM_PATH} not found`;
export const SHOTS_DIR = process.env.SNIP_SHOTS_DIR ?? "/tmp/snip-shots";

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export function hasChromium(): boolean {
  const found = existsSync(CHROMIUM_PATH);
  if (!found && process.env.SNIP_REQUIRE_BROWSER) throw new Error(`SNIP_REQUIRE_BROWSER is set but ${CHROMIUM_PATH} is missing`);
  return found;
}

export interface BrowserSession {
  context: BrowserContext;
  page: Page;
  /** Closes the browser and removes its temporary profile directory. */
  close(): Promise<void>;
}

export interface LaunchOptions {
  baseURL?: string;
  viewport?: { width: number; height: number };
}

/** Starts chromium headless with a fresh temporary user-data-dir and opens one page. */
export async function launchBrowser(opts: LaunchOptions = {}): Promise<BrowserSession> {
  const userDataDir = mkdtempSync(join(tmpdir(), "snip-chromium-"));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: ARGS,
      baseURL: opts.baseURL,
      viewport: opts.viewport ?? { width: 1280, height: 900 },
      locale: "en-US",
      timezoneId: "UTC",
      acceptDownloads: true,
    });
  } catch (err) {
    rmSync(userDataDir, { recursive: true, force: true });
    throw err;
  }
  // A wait that normally takes well under a second; CI's machine, shared and sometimes loaded 2-3x, gets twice the margin.
  context.setDefaultTimeout(process.env.CI ? 30_000 : 15_000);
  const page = context.pages()[0] ?? (await context.newPage());
  trackRequests(page);
  let closed: Promise<void> | null = null;
  return {
    context,
    page,
    close() {
      closed ??= (async () => {
        await context.close().catch(() => undefined);
        rmSync(userDataDir, { recursive: true, force: true });
      })();
      return closed;
    },
  };
}

/**
 * Whether screenshots are taken: SNIP_SHOTS=off skips them (.ci/run: nobody looks at a CI machine's files, and
 * several hundred full-page PNGs cost minutes of its two cores).
 */
export const SHOTS = process.env.SNIP_SHOTS !== "off";

/**
 * Saves a full-page screenshot to SHOTS_DIR/<name>.png (for people to look at; never asserted). `fullPage` false
 * keeps what the window shows: taking a full page resizes the window, which closes open menus.
 */
export async function screenshot(page: Page, name: string, fullPage = true): Promise<string> {
  const path = join(SHOTS_DIR, `${name}.png`);
  if (!SHOTS) return path;
  mkdirSync(SHOTS_DIR, { recursive: true });
  await page.screenshot({ path, fullPage });
  return path;
}

/** The page in light and dark at 1280 and 390 px wide: SHOTS_DIR/<name>-<width>-<scheme>.png; back to light, 1280 after. */
export async function screenshotModes(page: Page, name: string): Promise<void> {
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await screenshot(page, `${name}-${width}-${scheme}`);
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** The four looks a public page is checked in: light and dark, at a phone's width and a desktop's. */
export const SCHEMES_AND_WIDTHS = [
  ["light", 390],
  ["dark", 390],
  ["light", 1280],
  ["dark", 1280],
] as const;

/** axe's serious and critical WCAG 2.1 A/AA violations on the page (contrast among them), as "rule: first node". */
export async function seriousAxeProblems(page: Page): Promise<string[]> {
  // Colours still moving (a button's 0.15 s transition after a change of colour scheme) would be measured halfway.
  await settledAnimations(page);
  const result = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return result.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes[0]?.target.join(" ")}`);
}

/** Waits for the page's running CSS transitions and animations to end (infinite ones are left running). */
export async function settledAnimations(page: Page): Promise<void> {
  await page.evaluate(() =>
    Promise.all(
      document
        .getAnimations()
        .filter((a) => a.effect?.getComputedTiming().iterations !== Infinity)
        .map((a) => a.finished.catch(() => undefined)),
    ),
  );
}

/** True when the browser tests can run; prints why not once per file otherwise. */
export function browserAvailable(): boolean {
  const ok = hasChromium();
  if (!ok) console.warn(SKIP_REASON);
  return ok;
}

/** The server serves dist/web: build it once when `npm test`'s build step has not. */
export async function ensureWebBuilt(): Promise<void> {
  const index = fileURLToPath(new URL("../../dist/web/index.html", import.meta.url));
  if (existsSync(index)) return;
  const { build } = await import("vite");
  // vitest's NODE_ENV=test would build React's development files, the size the bundle budgets forbid.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = "production";
  await build({ configFile: fileURLToPath(new URL("../../web/vite.config.ts", import.meta.url)), logLevel: "warn", mode: "production" }).finally(
    () => (process.env.NODE_ENV = nodeEnv),
  );
}

export interface BrowserFixture {
  server: TestServer;
  browser: BrowserSession;
  close(): Promise<void>;
}

/** A built dashboard, a fresh snip server on SQLite and a browser pointed at it. */
export async function startBrowserFixture(opts: TestServerOptions = {}): Promise<BrowserFixture> {
  await ensureWebBuilt();
  const server = await startTestServer(opts);
  const browser = await launchBrowser({ baseURL: server.url });
  return {
    server,
    browser,
    async close() {
      await browser.close();
      await server.close();
    },
  };
}

/** Signs in through the login page and waits for the dashboard. */
export async function signInPage(page: Page, email: string, password: string): Promise<void> {
  await page.goto("/app/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByTestId("login-submit").click();
  await page.waitForURL((u) => u.pathname === "/app");
}

const inFlight = new WeakMap<Page, { open: number; lastEnd: number }>();

/** Counts the page's requests in flight, for networkQuiet (launchBrowser does it for its page). */
export function trackRequests(page: Page): void {
  if (inFlight.has(page)) return;
  const s = { open: 0, lastEnd: performance.now() };
  const end = () => ((s.open = Math.max(0, s.open - 1)), (s.lastEnd = performance.now()));
  page.on("request", () => s.open++);
  page.on("requestfinished", end);
  page.on("requestfailed", end);
  inFlight.set(page, s);
}

/**
 * Resolves once the page has had no request in flight for quietMs: Playwright's "networkidle" with a shorter
 * quiet window (its 500 ms, taken some 150 times in every-page's walks, was most of that file's time).
 */
export async function networkQuiet(page: Page, quietMs = 150): Promise<void> {
  const state = inFlight.get(page);
  if (!state) throw new Error("networkQuiet: the page's requests are not tracked (trackRequests)");
  const deadline = performance.now() + 30_000;
  while (performance.now() < deadline) {
    if (state.open === 0 && performance.now() - state.lastEnd >= quietMs) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`the page still had ${state.open} requests in flight after 30 s`);
}
