// The TOTP code path sign-in uses (src/security/totp.ts) against RFC 6238's test vectors, with drift and
// the step it reports (what replay refusal keys on).
import { describe, expect, it } from "vitest";
import { matchTotp, newTotpSecret, secretBytes, totpCode, totpStep, totpUrl } from "../../src/security/totp.js";

// RFC 6238, Appendix B: SHA-1, the 20-byte ASCII secret "12345678901234567890", 8 digits, T0 = 0, X = 30.
const RFC_SECRET = new TextEncoder().encode("12345678901234567890");
const RFC_SHA1: Array<[number, string]> = [
  [59, "94287082"],
  [1111111109, "07081804"],
  [1111111111, "14050471"],
  [1234567890, "89005924"],
  [2000000000, "69279037"],
  [20000000000, "65353130"],
];

describe("TOTP (RFC 6238)", () => {
  it.each(RFC_SHA1)("at T=%i s the code is %s, and matchTotp accepts it for its own step", (seconds, code) => {
    const at = seconds * 1000;
    expect(totpCode(RFC_SECRET, at, 8)).toBe(code);
    expect(matchTotp({ secret: RFC_SECRET, token: code, at, digits: 8 })).toBe(Math.floor(seconds / 30));
  });

  it("one step of drift either way is accepted and reports the code's own step; two steps are refused", () => {
    const at = 1111111111 * 1000;
    const step = Math.floor(1111111111 / 30);
    const code = "14050471";
    expect(matchTotp({ secret: RFC_SECRET, token: code, at: at + 30_000, digits: 8 })).toBe(step);
    expect(matchTotp({ secret: RFC_SECRET, token: code, at: at - 30_000, digits: 8 })).toBe(step);
    expect(matchTotp({ secret: RFC_SECRET, token: code, at: at + 60_000, digits: 8 })).toBeNull();
    expect(matchTotp({ secret: RFC_SECRET, token: code, at: at - 60_000, digits: 8 })).toBeNull();
  });

  it("replay: the step matched is what the caller compares with the last step it accepted", () => {
    const at = 1_700_000_000_000;
    const secret = secretBytes(newTotpSecret());
    const now = totpCode(secret, at);
    const step = matchTotp({ secret, token: now, at });
    expect(step).toBe(totpStep(at));
    // The next step's code matches a later step: the caller accepts it after `step`, and refuses `now` again.
    const next = totpCode(secret, at + 30_000);
    expect(matchTotp({ secret, token: next, at })).toBe(totpStep(at) + 1);
  });

  it("refuses malformed tokens and a wrong code without throwing", () => {
    const secret = secretBytes(newTotpSecret());
    const at = 1_700_000_000_000;
    for (const token of ["", "12345", "1234567", "12a456", " 123456", "１２３４５６", "123456\n"]) expect(matchTotp({ secret, token, at })).toBeNull();
    const good = totpCode(secret, at);
    const wrong = String((Number(good) + 1) % 1_000_000).padStart(6, "0");
    expect(matchTotp({ secret, token: wrong, at })).toBeNull();
  });

  it("a new secret is 160 bits of base32 and its otpauth URL names issuer and account", () => {
    const s = newTotpSecret();
    expect(s).toMatch(/^[A-Z2-7]{32}$/);
    expect(secretBytes(s).length).toBe(20);
    const url = totpUrl(s, "a@example.com", "snip");
    expect(url).toBe(`otpauth://totp/snip:a%40example.com?issuer=snip&secret=${s}&algorithm=SHA1&digits=6&period=30`);
  });
});
