// The threat feeds' key tables (src/links/feed-table.ts): every key found and nothing else, each key once,
// non-ASCII and long keys, a table rebuilt from its transferred arrays, equality for an unchanged reload; and the
// feed parser on its worker thread (src/admin/threat-feed.ts): what it reads, and a failing input refused whole.
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { FeedTable } from "../../src/links/feed-table.js";
import { parseFeed } from "../../src/admin/threat-feed.js";

describe("FeedTable", () => {
  it("finds each of 200,000 keys and none of 200,000 others", () => {
    const keys = Array.from({ length: 200_000 }, (_, i) => `http://198.18.${(i >> 8) & 255}.${i & 255}/bins/${i.toString(36)}.sh`);
    const table = FeedTable.build(keys);
    expect(table.size).toBe(200_000);
    let found = 0;
    for (const k of keys) if (table.has(k)) found++;
    expect(found).toBe(200_000);
    let wrong = 0;
    for (const k of keys) if (table.has(k + "x") || table.has(k.slice(0, -1))) wrong++;
    expect(wrong).toBe(0);
  });

  it("keeps a key given twice once, and reads non-ASCII and keys longer than its scratch buffer", () => {
    const long = "https://evil.example/" + "a".repeat(20_000);
    const table = FeedTable.build(["b.example", "a.example", "b.example", "bücher.example", long]);
    expect([...table]).toEqual(["b.example", "a.example", "bücher.example", long]);
    expect(table.has("bücher.example")).toBe(true);
    expect(table.has("bucher.example")).toBe(false);
    expect(table.has(long)).toBe(true);
    expect(table.has(long + "a")).toBe(false);
    expect(table.has("")).toBe(false);
  });

  it("is empty when built of nothing, and the empty key is a key like another", () => {
    expect(FeedTable.EMPTY.size).toBe(0);
    expect(FeedTable.EMPTY.has("a.example")).toBe(false);
    expect(FeedTable.build([""]).has("")).toBe(true);
  });

  it("is rebuilt from its arrays as another thread gets them, and tells an unchanged table from a changed one", () => {
    const table = FeedTable.build(["a.example", "b.example"]);
    const parts = structuredClone(table.parts());
    const copy = FeedTable.from(parts);
    expect([...copy]).toEqual(["a.example", "b.example"]);
    expect(copy.has("b.example")).toBe(true);
    expect(copy.equals(table)).toBe(true);
    expect(FeedTable.build(["a.example", "c.example"]).equals(table)).toBe(false);
    expect(FeedTable.build(["a.example"]).equals(table)).toBe(false);
    expect(() => FeedTable.from({ ...parts, slots: new Uint32Array(3) })).toThrow("not a feed table");
  });
});

describe("parseFeed on its worker thread", () => {
  it("reads a URLhaus dump given as strings and as bytes alike", async () => {
    const text = '# comment\n"1","2026-12-01","https://site.example/","online"\n"2","2026-12-01","http://198.51.100.7/x.sh","online"\n';
    for (const input of [Readable.from([text]), Readable.from([Buffer.from(text.slice(0, 30)), Buffer.from(text.slice(30))])]) {
      const feed = await parseFeed("urlhaus", input);
      expect([...feed.hosts]).toEqual(["site.example"]);
      expect([...feed.urls]).toEqual(["http://198.51.100.7/x.sh"]);
      expect([feed.rows, feed.skipped]).toEqual([2, 0]);
    }
  });

  it("refuses the whole feed when its input fails halfway", async () => {
    const input = new Readable({ read() {} });
    input.push('"1","2026-12-01","https://site.example/","online"\n');
    setTimeout(() => input.destroy(new Error("the connection dropped")), 20);
    await expect(parseFeed("urlhaus", input)).rejects.toThrow("the connection dropped");
  });
});
