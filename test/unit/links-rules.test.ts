// Unit checks of the link rules and the redirect cache: destination normalisation, aliases, LIKE escaping,
// device detection, negative caching and invalidation.
import { describe, expect, it } from "vitest";
import { DomainError } from "../../src/shared/errors.js";
import { checkAlias, normalizeDestination } from "../../src/links/validate.js";
import { containsPattern } from "../../src/shared/like.js";
import { LinkChanges } from "../../src/links/changes.js";
import { LinkCache } from "../../src/redirect/link-cache.js";
import { platformOf } from "../../src/redirect/device.js";
import type { ChangeFeed } from "../../src/storage/db.js";
import type { LinkRow } from "../../src/storage/schema.js";

const field = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return e instanceof DomainError ? `${e.code}:${e.details?.[0]?.field}` : "other";
  }
  return "ok";
};

describe("destination URLs", () => {
  it("normalises good ones", () => {
    expect(normalizeDestination(" https://Example.COM/a b".replace(" b", "%20b"), "url", "sn.ip")).toBe("https://example.com/a%20b");
    expect(normalizeDestination("http://bücher.example/ä?q=ü", "url", "sn.ip")).toBe("http://xn--bcher-kva.example/%C3%A4?q=%C3%BC");
    expect(normalizeDestination("https://10.0.0.1:8443/x", "url", "sn.ip")).toBe("https://10.0.0.1:8443/x");
    expect(normalizeDestination("https://[::1]/x", "url", "sn.ip")).toBe("https://[::1]/x");
  });
  it("refuses bad ones with the field name", () => {
    for (const bad of [
      "javascript:alert(1)",
      "JAVASCRIPT:alert(1)",
      "data:,x",
      "file:///x",
      "//example.com",
      "https://",
      "https://a b.com",
      "https://x@example.com",
      "https://localhost",
      "https://sn.ip/x",
      "https://SN.IP./x",
      "https://-bad-.com",
      "https://exa_mple",
      "http://example.com/a\nb",
    ]) {
      expect(
        field(() => normalizeDestination(bad, "ios_url", "sn.ip")),
        bad,
      ).toBe("invalid_request:ios_url");
    }
  });
});

describe("aliases", () => {
  it("syntax and reserved words", () => {
    expect(field(() => checkAlias("abc"))).toBe("ok");
    expect(field(() => checkAlias("HealthZ"))).toBe("invalid_request:alias");
    expect(field(() => checkAlias("a/b"))).toBe("invalid_request:alias");
  });
  it("LIKE patterns escape wildcards", () => {
    expect(containsPattern("50%_OFF\\")).toBe("%50\\%\\_off\\\\%");
  });
  it("device detection", () => {
    expect(platformOf("Mozilla/5.0 (iPod touch; CPU iPhone OS 12_0 like Mac OS X)")).toBe("ios");
    expect(platformOf("Mozilla/5.0 (Linux; Android 9)")).toBe("android");
    expect(platformOf("Mozilla/5.0 (Windows NT 10.0)")).toBeNull();
  });
});

describe("link cache", () => {
  const feed: ChangeFeed = { publish: async () => undefined, subscribe: () => undefined, onResync: () => undefined, listened: async () => undefined };
  const row = (alias: string): LinkRow => ({
    num: 1,
    id: `id-${alias}`,
    domain: "",
    alias,
    url: "https://example.com/",
    ios_url: null,
    android_url: null,
    expires_at: null,
    max_clicks: null,
    password_hash: null,
    click_count: 0,
    imported_clicks: 0,
    owner_id: null,
    created_at: 0,
    updated_at: 0,
    updated_by: null,
    disabled_at: null,
    disabled_status: null,
    disabled_reason: null,
    title: null,
    note: null,
    archived_at: null,
    expired_url: null,
    preview_title: null,
    preview_description: null,
    preview_image: null,
    last_click_at: null,
    rules: null,
    split: null,
    starts_at: null,
    redirect_status: null,
    crawlable: 0,
    split_goal: null,
    split_ends_at: null,
    split_min_visits: null,
    split_started_at: null,
    split_decision: null,
    track_conversions: null,
    app_ios_store_id: null,
    app_android_package: null,
    app_path: null,
    open_outside: null,
    folder_id: null,
  });

  it("reads the database once per link, coalesces concurrent misses, and forgets on change", async () => {
    const loads: string[] = [];
    const changes = new LinkChanges(feed);
    const cache = new LinkCache(10, async (_d, a) => (loads.push(a), a === "missing" ? null : row(a)), changes);
    await Promise.all([cache.get("", "hot"), cache.get("", "hot"), cache.get("", "hot")]);
    await cache.get("", "hot");
    expect(loads).toEqual(["hot"]);
    expect(await cache.get("", "missing")).toBeNull();
    expect(await cache.get("", "missing")).toBeNull();
    expect(loads).toEqual(["hot", "missing"]);
    await changes.publish([
      { domain: "", alias: "hot" },
      { domain: "", alias: "missing" },
    ]);
    await cache.get("", "hot");
    await cache.get("", "missing");
    expect(loads).toEqual(["hot", "missing", "hot", "missing"]);
  });

  it("size 0 disables caching", async () => {
    let n = 0;
    const cache = new LinkCache(0, async (_d, a) => (n++, row(a)), new LinkChanges(feed));
    await cache.get("", "x");
    await cache.get("", "x");
    expect(n).toBe(2);
  });
});
