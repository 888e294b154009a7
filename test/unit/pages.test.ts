// The public pages share the dashboard's palette (light and dark values alike), say what happened in words,
// and carry no inline script (their CSP allows scripts from 'self' only).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { HTML_CSP, NOT_FOUND_PAGE, PALETTE, PASSWORD_FORM_CSP, PASSWORD_SCRIPT_PATH, errorPage, passwordForm } from "../../src/http/pages.js";
import { REPORT_THANKS_PAGE, reportFormPage } from "../../src/http/report-page.js";

/** The custom properties of the stylesheet's first :root block. */
function dashboardPalette(): Map<string, string> {
  const css = readFileSync(new URL("../../web/src/styles.css", import.meta.url), "utf8");
  const root = /:root\s*\{([^}]*)\}/.exec(css)?.[1] ?? "";
  return new Map([...root.matchAll(/(--[a-z0-9-]+)\s*:\s*([^;]+);/g)].map((m) => [m[1]!, m[2]!.trim().replace(/\s+/g, " ")]));
}

describe("public pages", () => {
  it("use the dashboard's colours and type: every variable with the same light and dark values", () => {
    const dashboard = dashboardPalette();
    expect(Object.keys(PALETTE).length).toBeGreaterThan(15);
    for (const [name, value] of Object.entries(PALETTE)) expect(dashboard.get(name), name).toBe(value);
    // Both themes: each colour has a dark value that differs from its light one.
    expect(PALETTE["--bg"]).toMatch(/^light-dark\(#[0-9a-f]{6}, #[0-9a-f]{6}\)$/);
  });

  it("follow the system's light or dark setting, without any script of their own but the password control's file", () => {
    const pages = [
      errorPage(404, NOT_FOUND_PAGE),
      errorPage(410, { title: "Link expired", heading: "This link has expired", text: "Ask for a new one." }, "abc"),
      reportFormPage({ link: "", reason: "", details: "", email: "" }),
      REPORT_THANKS_PAGE,
      passwordForm(true),
    ];
    for (const html of pages) {
      expect(html).toContain('<meta name="color-scheme" content="light dark">');
      expect(html).toContain("color-scheme:light dark");
      // The dashboard's header: the logo and the name.
      expect(html).toContain('<a class="logo" href="/"><span class="logo-mark" aria-hidden="true">✂</span>snip</a>');
      expect(html).not.toMatch(/<script>|<script [^>]*>[^<]/);
      expect(html).not.toMatch(/ on[a-z]+=/);
    }
    expect(HTML_CSP).toContain("script-src 'self';");
    expect(PASSWORD_FORM_CSP).toContain("script-src 'self';");
  });

  it("headline in words, the status only as a small error code", () => {
    const html = errorPage(410, { title: "Link expired", heading: "This link has expired", text: "Its owner set it to stop working." }, "abc");
    expect(html).toContain("<h1>This link has expired</h1>");
    expect(html).toContain('<p class="fine">Error code 410</p>');
    expect(html).toContain('<a href="/report?link=abc">Report this link</a>');
    expect(html).toContain('<a class="btn" href="/">Go to the home page</a>');
  });

  it("the password field has a visible label and a show/hide control that the script reveals", () => {
    const html = passwordForm(false);
    expect(html).toContain('<label for="password">Password</label><input type="password" name="password" id="password"');
    expect(html).toContain('<label class="show" hidden><input type="checkbox" id="show-password">Show</label>');
    expect(html).toContain(`<script src="${PASSWORD_SCRIPT_PATH}" defer></script>`);
    expect(html).not.toContain('role="alert"');
    expect(passwordForm(true)).toContain('<p class="err" role="alert">Wrong password. Try again.</p>');
  });
});
