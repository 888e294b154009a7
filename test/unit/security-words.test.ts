// The Security page's words (web/src/security/activity-words.ts), the relative times of its activity
// (web/src/shared/dates.ts) and the wait a throttled "Confirm it's you" tells (web/src/shared/reauth-api.ts).
import { describe, expect, it } from "vitest";
import { activityInWords, refusalInWords, wayInWords } from "../../web/src/security/activity-words.js";
import { formatRelative, waitInWords } from "../../web/src/shared/dates.js";

describe("activity and session ways in words", () => {
  it("names every way a session is made, and shows a new one as it is", () => {
    expect(wayInWords("passkey")).toBe("with a passkey");
    expect(wayInWords("second_step")).toBe("with a password and a second factor");
    expect(wayInWords("sso_instance")).toBe("with this service's single sign-on");
    expect(wayInWords(null)).toBeNull();
    expect(wayInWords("magic_link")).toBe("with magic link");
  });

  it("says what happened, with the name of the key or passkey, and why a refusal was one", () => {
    expect(activityInWords({ kind: "api_key_created", outcome: "success", detail: "Deploy bot" })).toBe("API key “Deploy bot” created");
    expect(activityInWords({ kind: "passkey_removed", outcome: "success", detail: null })).toBe("Passkey removed");
    expect(activityInWords({ kind: "sign_in", outcome: "refused", detail: "invalid_credentials" })).toBe("Sign-in refused");
    expect(activityInWords({ kind: "reauth", outcome: "success", detail: "passkey" })).toBe("Confirmed it was you with a passkey");
    expect(activityInWords({ kind: "something_new", outcome: "success", detail: null })).toBe("Something new");
    expect(refusalInWords({ outcome: "refused", detail: "invalid_credentials", way: "passkey" })).toBe("passkey not accepted");
    expect(refusalInWords({ outcome: "refused", detail: "invalid_credentials", way: "password" })).toBe("wrong password");
    expect(refusalInWords({ outcome: "refused", detail: "sso_required", way: "password" })).toBe("this account must use single sign-on");
    expect(refusalInWords({ outcome: "success", detail: "password", way: null })).toBeNull();
  });
});

describe("formatRelative", () => {
  const now = Date.parse("2026-12-05T12:00:00Z");
  it("reads a moment ago as just now, then minutes, hours, days", () => {
    expect(formatRelative(now - 10_000, now)).toBe("just now");
    expect(formatRelative(now - 5 * 60_000, now)).toMatch(/5 minutes ago/);
    expect(formatRelative(now - 3 * 3_600_000, now)).toMatch(/3 hours ago/);
    expect(formatRelative(now - 86_400_000, now)).toMatch(/yesterday|1 day ago/);
    expect(formatRelative("not a date", now)).toBe("—");
  });
});

describe("waitInWords", () => {
  it("tells a Retry-After in seconds or minutes, and nothing for none", () => {
    expect(waitInWords("45")).toBe("in 45 seconds");
    expect(waitInWords("900")).toBe("in 15 minutes");
    expect(waitInWords(null)).toBeNull();
    expect(waitInWords("soon")).toBeNull();
  });
});
