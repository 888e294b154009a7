// A flush of clicks described for the writers: raw rows in (link number, time) order, identical clicks grouped.
import { describe, expect, it } from "vitest";
import { type Group, describeBatch, groupsOf } from "../../src/clicks/click-groups.js";
import { MessageChannel } from "node:worker_threads";
import { ClickBatchBuilder, type PostedBatch, batchOf, mergeBatches, postedBatch, receivedBatch } from "../../src/clicks/click-buffer.js";
import { CountryResolver } from "../../src/clicks/describe.js";
import { UA } from "../helpers/visit.js";

const countries = new CountryResolver(null);
const T = Date.UTC(2026, 10, 21, 23, 59, 59, 998);

/** Link numbers in another order than the ids, and than their decimal strings: 9 < 10 < 200. */
const NUMS: Record<string, number> = { c: 9, a: 10, b: 200 };

function click(linkId: string, at: number, userAgent: string = UA.windows, country: string | null = "DE", destination: string | null = null) {
  return { linkId, linkNum: NUMS[linkId]!, at, userAgent, referer: "https://news.example.org/x", ip: "203.0.113.9", country, counted: false, destination };
}

describe("describeBatch", () => {
  it("puts the raw rows in link number order, each link's clicks in the order they came", () => {
    const b = describeBatch(batchOf([click("c", T), click("a", T + 1), click("c", T + 2), click("b", T + 3), click("a", T + 4), click("c", T + 5)]), countries);
    expect(b.rows.map((r) => `${r.link_id}#${r.link_num}@${r.at - T}`)).toEqual(["c#9@0", "c#9@2", "c#9@5", "a#10@1", "a#10@4", "b#200@3"]);
    expect(b.linkIds).toEqual(["c", "a", "b"]);
    // Groups in the rows' order (T + 2 is the next UTC day).
    expect(b.groups.map((g) => `${g.link_id}#${g.link_num} ${g.day}`)).toEqual([
      "c#9 2026-11-21",
      "c#9 2026-11-22",
      "a#10 2026-11-21",
      "a#10 2026-11-22",
      "b#200 2026-11-22",
    ]);
  });

  it("describes every click and groups identical ones per link and UTC day", () => {
    const b = describeBatch(
      batchOf([
        click("a", T),
        { ...click("a", T + 1), clickId: "AZPw8HkLJq3v0Xb9yQ2mN8cL" },
        click("a", T + 2, UA.iphone),
        click("a", T + 3, UA.windows, "FR"),
        click("b", T + 1),
        click("a", T + 4, UA.googlebot, null),
      ]),
      countries,
    );
    expect(b.rows[0]).toEqual({
      link_id: "a",
      link_num: 10,
      at: T,
      country: "DE",
      device: "desktop",
      os: "Windows",
      browser: "Chrome",
      referrer: "news.example.org",
      is_bot: 0,
      counted: 0,
      destination: null,
      new_visitor: 0,
      qr: 0,
      region: null,
      city: null,
      referrer_url: "https://news.example.org/x",
      utm: null,
      click_id: null,
      app: null,
    });
    // A click id rides on its row (the tracked-clicks listener stores it) and does not split a group.
    expect([b.rows[1]!.at, b.rows[1]!.click_id, b.rows[1]!.country]).toEqual([T + 1, "AZPw8HkLJq3v0Xb9yQ2mN8cL", "DE"]);
    expect(b.rows.filter((r) => r.click_id !== null)).toHaveLength(1);
    const groups = b.groups.map((g) => [g.link_id, g.day, g.country, g.device, g.is_bot, g.clicks].join(" ")).sort();
    expect(groups).toEqual([
      "a 2026-11-21 DE desktop 0 2",
      // From T + 2 on it is the next day (UTC).
      "a 2026-11-22 DE mobile 0 1",
      "a 2026-11-22 FR desktop 0 1",
      "a 2026-11-22 unknown bot 1 1",
      "b 2026-11-21 DE desktop 0 1",
    ]);
    // Rows share a values number exactly when they share their values, whatever their link or day.
    expect(b.rows.map((r) => `${r.link_id} ${r.country} ${r.device}`)).toEqual([
      "a DE desktop",
      "a DE desktop",
      "a DE mobile",
      "a FR desktop",
      "a unknown bot",
      "b DE desktop",
    ]);
    expect(b.rowValues).toEqual([0, 0, 1, 2, 3, 0]);
  });

  it("keeps each click's destination (null: the link's url) on its row, and groups and values apart by it", () => {
    const b = describeBatch(
      batchOf([
        click("a", T),
        click("a", T + 1, UA.windows, "DE", "rule:2"),
        click("a", T + 1, UA.windows, "DE", "rule:2"),
        click("a", T + 1, UA.windows, "DE", "variant:1"),
        click("a", T + 1),
      ]),
      countries,
    );
    expect(b.rows.map((r) => r.destination)).toEqual([null, "rule:2", "rule:2", "variant:1", null]);
    expect(b.rowValues).toEqual([0, 1, 1, 2, 0]);
    expect(b.groups.map((g) => `${g.destination} ${g.clicks}`)).toEqual(["null 2", "rule:2 2", "variant:1 1"]);
  });

  it("keeps each click's QR flag on its row and groups QR scans apart", () => {
    const b = describeBatch(batchOf([click("a", T), { ...click("a", T), qr: true }, { ...click("a", T + 2), qr: true }, click("b", T)]), countries);
    expect(b.rows.map((r) => `${r.link_id} ${r.qr}`)).toEqual(["a 0", "a 1", "a 1", "b 0"]);
    expect(b.rowValues).toEqual([0, 1, 1, 0]);
    expect(b.groups.map((g) => `${g.link_id} ${g.day} ${g.qr} ${g.clicks}`)).toEqual([
      "a 2026-11-21 0 1",
      "a 2026-11-21 1 1",
      "a 2026-11-22 1 1",
      "b 2026-11-21 0 1",
    ]);
    expect(groupsOf(batchOf([{ ...click("a", T), qr: true }, click("a", T)]), new Set([NUMS.a!]), countries).map((g) => `${g.qr} ${g.clicks}`)).toEqual([
      "1 1",
      "0 1",
    ]);
  });

  it("keeps each click's UTM values and referrer URL on its row, grouped apart by UTM values, also for reads of clicks not committed", () => {
    const utm = "utm_source=news&utm_campaign=spring";
    const b = describeBatch(batchOf([click("a", T), { ...click("a", T), utm }, { ...click("a", T), utm }, { ...click("a", T), referer: "" }]), countries);
    expect(b.rows.map((r) => `${r.utm} ${r.referrer_url}`)).toEqual([
      "null https://news.example.org/x",
      `${utm} https://news.example.org/x`,
      `${utm} https://news.example.org/x`,
      "null null",
    ]);
    expect(b.rowValues).toEqual([0, 1, 1, 2]);
    expect(b.groups.map((g) => `${g.utm} ${g.clicks}`)).toEqual(["null 1", `${utm} 2`, "null 1"]);
    const read = groupsOf(batchOf([{ ...click("a", T), utm }, click("a", T), { ...click("a", T), utm }]), new Set([NUMS.a!]), countries);
    expect(read.map((g) => `${g.utm} ${g.referrer_url} ${g.clicks}`)).toEqual([`${utm} https://news.example.org/x 2`, "null https://news.example.org/x 1"]);
  });

  it("gives each row a visitor key from the keyer (day, link, address, agent) and none without one", () => {
    const inputs = [click("a", T), { ...click("a", T + 2), ip: "198.51.100.7" }, click("b", T)];
    const seen: string[] = [];
    const b = describeBatch(batchOf(inputs), countries, (day, num, ip, ua) => {
      seen.push(`${day} ${num}`);
      return num * 1000 + ip * 10 + ua;
    });
    expect(seen).toEqual(["2026-11-21 10", "2026-11-22 10", "2026-11-21 200"]);
    expect(new Set(b.visitorKeys).size).toBe(3);
    expect(b.rowGroups.map((g) => g.link_id)).toEqual(["a", "a", "b"]);
    expect(describeBatch(batchOf(inputs), countries).visitorKeys).toEqual([0, 0, 0]);
  });
});

describe("groupsOf (a read's clicks not committed yet)", () => {
  const key = (g: Group) =>
    [g.link_id, g.link_num, g.day, g.country, g.device, g.os, g.browser, g.referrer, g.is_bot, g.destination, g.clicks, g.counted].join(" ");
  const agents = [UA.windows, UA.iphone, UA.googlebot, UA.ipad];

  it("makes describeBatch's groups of the links asked for, and none of the others", () => {
    const inputs = Array.from({ length: 400 }, (_, i) => ({
      ...click(
        ["a", "b", "c"][(i * 7) % 3]!,
        T - 5_000 + i * 20,
        agents[(i * 5) % 4],
        i % 11 === 0 ? null : i % 3 ? "DE" : "FR",
        [null, null, "ios", "variant:3"][i % 4]!,
      ),
      referer: i % 4 ? "https://news.example.org/x" : "",
      counted: i % 9 === 0,
    }));
    const all = describeBatch(batchOf(inputs), countries).groups;
    const picked = groupsOf(batchOf(inputs), new Set([NUMS.a!, NUMS.b!]), countries);
    expect(picked.map(key).sort()).toEqual(
      all
        .filter((g) => g.link_id !== "c")
        .map(key)
        .sort(),
    );
    expect(picked.reduce((n, g) => n + g.clicks, 0)).toBe(inputs.filter((c) => c.linkId !== "c").length);
    expect(picked.some((g) => g.counted > 0 && g.counted < g.clicks)).toBe(true);
    expect(new Set(picked.map((g) => g.destination))).toEqual(new Set([null, "ios", "variant:3"]));
    expect(groupsOf(batchOf(inputs), new Set([12345]), countries)).toEqual([]);
  });

  it("splits groups by UTC hour as describeBatch does", () => {
    const inputs = [click("a", T - 3_600_000), click("a", T - 3_599_999), click("a", T - 1_800_000), click("a", T - 5), click("a", T - 5, UA.iphone)];
    const picked = groupsOf(batchOf(inputs), new Set([NUMS.a!]), countries);
    expect(picked.map((g) => [new Date(g.hour!).toISOString(), g.day, g.device, g.clicks])).toEqual([
      ["2026-11-21T22:00:00.000Z", "2026-11-21", "desktop", 2],
      ["2026-11-21T23:00:00.000Z", "2026-11-21", "desktop", 2],
      ["2026-11-21T23:00:00.000Z", "2026-11-21", "mobile", 1],
    ]);
    const described = describeBatch(batchOf(inputs), countries).groups;
    expect(described.map((g) => [new Date(g.hour).toISOString(), g.device, g.clicks])).toEqual([
      ["2026-11-21T22:00:00.000Z", "desktop", 2],
      ["2026-11-21T23:00:00.000Z", "desktop", 2],
      ["2026-11-21T23:00:00.000Z", "mobile", 1],
    ]);
  });

  it("reads a batch being filled as far as it is", () => {
    const b = new ClickBatchBuilder();
    b.push(click("a", T));
    b.push(click("b", T));
    expect(groupsOf(b.view(), new Set([NUMS.a!]), countries).map((g) => [g.link_id, g.clicks])).toEqual([["a", 1]]);
    b.push(click("a", T + 2));
    expect(groupsOf(b.view(), new Set([NUMS.a!]), countries).map((g) => [g.link_id, g.day, g.clicks])).toEqual([
      ["a", "2026-11-21", 1],
      ["a", "2026-11-22", 1],
    ]);
  });
});

describe("mergeBatches", () => {
  it("is the batch of all their clicks in order, each string once, committed as the last one's journal segment", () => {
    const first = [click("a", T), click("b", T + 1, UA.iphone, null, "rule:1")];
    const second = [
      click("c", T + 2, UA.iphone, "FR"),
      { ...click("a", T + 3, UA.android, "DE", "variant:2"), utm: "utm_source=x", qr: true, clickId: "AZPw8HkLJq3v0Xb9yQ2mN8cL" },
    ];
    const third = [click("b", T + 4, UA.windows, null)];
    const batches = [batchOf(first), batchOf(second), batchOf(third)].map((b, i) => ({ ...b, journal: { journal: "j", segment: 4 + i } }));
    const merged = mergeBatches(batches);
    const whole = batchOf([...first, ...second, ...third]);
    expect(merged.length).toBe(5);
    expect(merged.links).toEqual(["a", "b", "c", "a", "b"]);
    expect(merged.strings).toEqual(whole.strings);
    expect([...merged.fields]).toEqual([...whole.fields]);
    expect(merged.journal).toEqual({ journal: "j", segment: 6 });
    expect(describeBatch(merged, countries).rows).toEqual(describeBatch(whole, countries).rows);
    expect(describeBatch(merged, countries).rows.map((r) => r.click_id)).toEqual([null, null, "AZPw8HkLJq3v0Xb9yQ2mN8cL", null, null]);
    // One batch is itself.
    expect(mergeBatches([batches[0]!])).toBe(batches[0]);
  });
});

describe("a batch posted to the writer thread", () => {
  it("arrives whole through a real message port, its numbers moved in a copy: the batch kept for a retry is untouched", async () => {
    const clicks = [click("a", T), click("b", T + 1, UA.iphone, null, "rule:1"), click("a", T + 2, UA.android, "FR")];
    const batch = { ...batchOf(clicks), journal: { journal: "j", segment: 7 } };
    const before = [...batch.fields];
    const { batch: posted, transfer } = postedBatch(batch);
    expect(typeof posted.links).toBe("string");
    const { port1, port2 } = new MessageChannel();
    const got = new Promise<PostedBatch>((resolve) => port2.once("message", resolve));
    port1.postMessage(posted, [transfer]);
    const received = receivedBatch(await got);
    port1.close();
    // Moved: the posted copy's buffer is detached here, the batch's own numbers are not.
    expect(posted.fields.length).toBe(0);
    expect([...batch.fields]).toEqual(before);
    expect(received).toEqual({ ...batch, fields: batch.fields });
    expect(describeBatch(received, countries).rows).toEqual(describeBatch(batch, countries).rows);
  });

  it("an empty batch stays empty, and an id list that does not split into one id per click is refused", () => {
    const empty = postedBatch(batchOf([])).batch;
    expect(receivedBatch(empty)).toMatchObject({ length: 0, links: [] });
    const two = postedBatch(batchOf([click("a", T), click("b", T + 1)])).batch;
    expect(() => receivedBatch({ ...two, links: "a\nb\nc" })).toThrow("a posted batch of 2 clicks carried 3 link ids");
    expect(() => receivedBatch({ ...two, links: "ab" })).toThrow("carried 1 link ids");
  });
});
