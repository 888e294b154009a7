// A flush of clicks described for the writers: raw rows in (link, time) order, identical clicks grouped.
import { describe, expect, it } from "vitest";
import { describeBatch } from "../../src/clicks/click-batch.js";
import { batchOf } from "../../src/clicks/click-buffer.js";
import { CountryResolver } from "../../src/clicks/describe.js";
import { UA } from "../helpers/visit.js";

const countries = new CountryResolver(null);
const T = Date.UTC(2026, 10, 21, 23, 59, 59, 998);

function click(linkId: string, at: number, userAgent: string = UA.windows, country: string | null = "DE") {
  return { linkId, at, userAgent, referer: "https://news.example.org/x", ip: "203.0.113.9", country, counted: false };
}

describe("describeBatch", () => {
  it("puts the raw rows in link order, each link's clicks in the order they came", () => {
    const b = describeBatch(batchOf([click("c", T), click("a", T + 1), click("c", T + 2), click("b", T + 3), click("a", T + 4), click("c", T + 5)]), countries);
    expect(b.rows.map((r) => `${r.link_id}@${r.at - T}`)).toEqual(["a@1", "a@4", "b@3", "c@0", "c@2", "c@5"]);
    expect(b.linkIds).toEqual(["a", "b", "c"]);
  });

  it("describes every click and groups identical ones per link and UTC day", () => {
    const b = describeBatch(
      batchOf([click("a", T), click("a", T + 1), click("a", T + 2, UA.iphone), click("a", T + 3, UA.windows, "FR"), click("b", T + 1), click("a", T + 4, UA.googlebot, null)]),
      countries,
    );
    expect(b.rows[0]).toEqual({ link_id: "a", at: T, country: "DE", device: "desktop", os: "Windows", browser: "Chrome", referrer: "news.example.org", is_bot: 0, counted: 0 });
    const groups = b.groups.map((g) => [g.link_id, g.day, g.country, g.device, g.is_bot, g.clicks].join(" ")).sort();
    expect(groups).toEqual([
      "a 2026-11-21 DE desktop 0 2",
      // From T + 2 on it is the next day (UTC).
      "a 2026-11-22 DE mobile 0 1",
      "a 2026-11-22 FR desktop 0 1",
      "a 2026-11-22 unknown bot 1 1",
      "b 2026-11-21 DE desktop 0 1",
    ]);
    // Each row's group is the one that counts it.
    expect(b.rowGroups.map((g) => b.groups.indexOf(g))).toEqual([0, 0, 1, 2, 3, 4]);
  });
});
