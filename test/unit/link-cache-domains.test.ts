// The link cache on custom domains: entries keyed by host and alias, dropped per domain, and still
// right after the hostname tags are forgotten (a flood of made-up Host headers).
import { describe, expect, it } from "vitest";
import { LinkCache } from "../../src/redirect/link-cache.js";
import { LinkChanges } from "../../src/links/changes.js";
import type { LinkRow } from "../../src/storage/schema.js";

const feed = { publish: async () => undefined, subscribe: () => undefined, onResync: () => undefined, listened: async () => undefined };

function row(domain: string, alias: string, url: string): LinkRow {
  return {
    num: 1,
    id: `${domain}:${alias}`,
    domain,
    alias,
    url,
    ios_url: null,
    android_url: null,
    expires_at: null,
    max_clicks: null,
    password_hash: null,
    click_count: 0,
    imported_clicks: 0,
    owner_id: "o",
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
  };
}

describe("LinkCache with custom domains", () => {
  it("keeps the same alias apart per host, drops one domain's entries only, and survives forgetting its tags", async () => {
    const db = new Map<string, string>([
      ["/promo", "https://example.com/main"],
      ["a.example/promo", "https://example.com/a"],
      ["b.example/promo", "https://example.com/b"],
    ]);
    let loads = 0;
    const cache = new LinkCache(
      100_000,
      async (d, a) => {
        loads++;
        const url = db.get(`${d}/${a}`);
        return url ? row(d, a, url) : null;
      },
      new LinkChanges(feed),
    );
    expect((await cache.get("", "promo"))?.url).toBe("https://example.com/main");
    expect((await cache.get("a.example", "promo"))?.url).toBe("https://example.com/a");
    expect((await cache.get("b.example", "promo"))?.url).toBe("https://example.com/b");
    expect(cache.peek("a.example", "promo")?.url).toBe("https://example.com/a");
    expect(loads).toBe(3);

    // a.example goes away: its entries only.
    db.delete("a.example/promo");
    cache.invalidateDomain("a.example");
    expect(cache.peek("a.example", "promo")).toBeUndefined();
    expect(cache.peek("b.example", "promo")?.url).toBe("https://example.com/b");
    expect(cache.peek("", "promo")?.url).toBe("https://example.com/main");
    expect(await cache.get("a.example", "promo")).toBeNull();

    // 10,001 made-up hosts: the tags are forgotten; old entries are unreachable, never another host's.
    for (let i = 0; i < 10_001; i++) expect(cache.peek(`h${i}.example`, "promo")).toBeUndefined();
    expect(cache.peek("b.example", "promo")).toBeUndefined();
    expect((await cache.get("b.example", "promo"))?.url).toBe("https://example.com/b");
    expect(cache.peek("", "promo")?.url).toBe("https://example.com/main");
    db.set("b.example/promo", "https://example.com/b2");
    cache.invalidateDomain("b.example");
    expect((await cache.get("b.example", "promo"))?.url).toBe("https://example.com/b2");
  });
});
