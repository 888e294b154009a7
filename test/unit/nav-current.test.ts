// Which navigation entry is the page shown: by path, and for an entry that names a section of a page (the Security
// page's #api-keys) by that section, the page's own entry yielding to it.
import { describe, expect, it } from "vitest";
import { NAV_GROUPS, isCurrentEntry, type NavEntry } from "../../web/src/shared/nav.js";

const entry = (testId: string): NavEntry => {
  const found = NAV_GROUPS.flatMap((g) => g.entries).find((e) => e.testId === testId);
  if (!found) throw new Error(`no entry ${testId}`);
  return found;
};
const current = (pathname: string, hash = "", search = "") =>
  NAV_GROUPS.flatMap((g) => g.entries)
    .filter((e) => isCurrentEntry(e, { pathname, hash, search }))
    .map((e) => e.testId);

describe("the navigation's current entry", () => {
  it("has an API keys entry in the settings, opening the Security page's #api-keys section", () => {
    const settings = NAV_GROUPS.find((g) => g.id === "settings")!;
    expect(settings.entries.map((e) => e.testId)).toEqual(["nav-profile", "nav-security", "nav-api-keys", "nav-sso"]);
    expect(entry("nav-api-keys")).toMatchObject({ to: "/app/security#api-keys", label: "API keys" });
  });

  it("marks exactly one entry: Security on the page, API keys on its section, Security again on any other fragment", () => {
    expect(current("/app/security")).toEqual(["nav-security"]);
    expect(current("/app/security", "#api-keys")).toEqual(["nav-api-keys"]);
    expect(current("/app/security", "#sessions")).toEqual(["nav-security"]);
  });

  it("matches paths as the router's links did: the links list exactly, other entries their pages below", () => {
    expect(current("/app")).toEqual(["nav-dashboard"]);
    expect(current("/app/links/new")).toEqual(["nav-new-link"]);
    expect(current("/app/links/abc/stats")).toEqual([]);
    expect(current("/app/admin/accounts")).toEqual(["nav-admin"]);
    expect(current("/app/securityx")).toEqual([]);
  });

  it("leaves the links list unmarked while a folder filters it (the sidebar marks the folder)", () => {
    expect(current("/app", "", "?folder_id=f1")).toEqual([]);
    expect(current("/app", "", "?q=shop")).toEqual(["nav-dashboard"]);
  });
});
