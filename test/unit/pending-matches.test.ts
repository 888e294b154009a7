// The pieces of a pending match (src/deeplinks/pending-matches.ts): what a user agent tells of the device, the
// click's app string there and back (tabs and control characters kept out), the address hash, and the score of a
// candidate against a first launch (a contradiction leaves it out).
import { describe, expect, it } from "vitest";
import { addressHash, addressKey, appVisit, deviceOfAgent, languageTag, matchScore, pendingOf } from "../../src/deeplinks/pending-matches.js";
import { storeOf } from "../../src/conversions/tracked-clicks.js";

describe("pending matches", () => {
  it.each([
    [
      "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1.2 Mobile/15E148 Safari/604.1",
      "17.1.2",
      "iPhone",
    ],
    ["Mozilla/5.0 (iPad; CPU OS 16_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.5 Mobile/15E148 Safari/604.1", "16.5", "iPad"],
    ["Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36", "14", "Pixel 8"],
    ["Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.0.0 Mobile Safari/537.36", "10", null],
    ["Mozilla/5.0 (Linux; Android 13; SM-S911B Build/TP1A.220624.014; wv) AppleWebKit/537.36", "13", "SM-S911B"],
    // iOS 26 freezes the agent's version at 18_6: Safari's Version/26.1 gives the major; a web view's frozen version is not known.
    ["Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.1 Mobile/15E148 Safari/604.1", "26", "iPhone"],
    [
      "Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.6 Mobile/15E148 Safari/604.1",
      "18.6",
      "iPhone",
    ],
    ["Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 309.1.0.28.108", null, "iPhone"],
    ["Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.0.0 Safari/537.36", null, null],
  ])("reads %s", (ua, os, model) => {
    expect(deviceOfAgent(ua)).toEqual({ os_version: os, device_model: model });
  });

  it("keeps a click's app string whole there and back, without tabs or control characters from what visitors sent", () => {
    const pending = {
      address: "h".repeat(43),
      expiresAt: 1_800_003_600_000,
      os_version: "17.1",
      device_model: "iP\thone\u0000",
      language: "fr-fr",
      params: "a=1&b=\t2",
    };
    const s = appVisit("store", "ios", pending);
    expect(s.split("\t")).toHaveLength(8);
    expect(pendingOf(s)).toEqual({ ...pending, platform: "ios", device_model: "iPhone", params: "a=1&b=2" });
    expect(storeOf(s)).toBe("ios");
    expect(storeOf(appVisit("offer", "ios", pending))).toBeNull();
    expect(storeOf(appVisit("store", "android", null))).toBe("android");
    expect(pendingOf(appVisit("store", "android", null))).toBeNull();
    expect([pendingOf(null), pendingOf("store\tios\tx\ty\t\t\t\t"), storeOf("stored\tios")]).toEqual([null, null, null]);
  });

  it("hashes an address under the server's key: stable, not the address, another secret another hash", () => {
    const k = addressKey("s".repeat(32));
    expect(addressHash(k, "203.0.113.7")).toBe(addressHash(addressKey("s".repeat(32)), "203.0.113.7"));
    expect(addressHash(k, "203.0.113.7")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(addressHash(k, "203.0.113.7")).not.toBe(addressHash(k, "203.0.113.8"));
    expect(addressHash(k, "203.0.113.7")).not.toBe(addressHash(addressKey("t".repeat(32)), "203.0.113.7"));
    expect([languageTag("pt_BR"), languageTag("EN"), languageTag("english!"), languageTag(undefined)]).toEqual(["pt-br", "en", null, null]);
  });

  it("scores agreement and leaves out a contradiction", () => {
    const c = { os_version: "17.1.2", device_model: "iPhone", language: "fr-fr" };
    expect(matchScore(c, { os_version: "17.1.2", device_model: "iPhone15,2", language: "fr-fr" })).toBe(4 + 2 + 2);
    expect(matchScore(c, { os_version: "17.1.2", device_model: "iPhone", language: "fr-ca" })).toBe(4 + 3 + 1);
    expect(matchScore(c, { os_version: "17.1", device_model: null, language: null })).toBe(2);
    expect(matchScore(c, { os_version: "17.4", device_model: null, language: null })).toBe(1);
    expect(matchScore(c, { os_version: null, device_model: null, language: null })).toBe(0);
    expect(matchScore(c, { os_version: "16.5", device_model: null, language: null })).toBeNull();
    // The agent's "26" (iOS 26's frozen agent, read through Safari's version) agrees with the app's 26.0.1 on the major.
    expect(matchScore({ ...c, os_version: "26" }, { os_version: "26.0.1", device_model: null, language: null })).toBe(2);
    expect(matchScore(c, { os_version: null, device_model: "iPad13,4", language: null })).toBeNull();
    expect(matchScore(c, { os_version: null, device_model: null, language: "de-de" })).toBeNull();
  });
});
