// Roll-up rows and the groups held between roll-ups, against a plain reference: every row summed by its
// whole key in one map and sorted by the key's string (the order writers lock rows in).
import { describe, expect, it } from "vitest";
import { BREAKDOWNS, DIMENSIONS, type Group } from "../../src/clicks/click-groups.js";
import { GroupSet } from "../../src/clicks/group-set.js";
import { rollUp } from "../../src/clicks/rollup-rows.js";

type Row = { key: string; clicks: number; bots?: number } & Record<string, unknown>;

/** What rollUp must give: sums by full key, sorted by "link \0 day|month \0 dimension \0 value". */
function reference(groups: Group[], live: Map<string, string | null>, keepsMonth: (linkId: string, month: string) => boolean) {
  const inc = new Map<string, number>();
  const last = new Map<string, number>();
  const daily = new Map<string, Row>();
  const hourly = new Map<string, Row>();
  const breakdown = new Map<string, Row>();
  const monthly = new Map<string, Row>();
  const bump = (m: Map<string, Row>, key: string, row: Record<string, unknown>, g: Group, bots = 0) => {
    const r: Row = m.get(key) ?? { key, ...row, clicks: 0, visitors: 0 };
    r.clicks += g.clicks;
    (r.visitors as number) += g.visitors;
    if (r.bots !== undefined) r.bots += bots;
    if (r.qr !== undefined) (r.qr as number) += g.qr * g.clicks;
    m.set(key, r);
  };
  const valueOf = (g: Group, dim: (typeof BREAKDOWNS)[number]) =>
    dim === "source"
      ? g.qr === 1
        ? "qr"
        : null
      : dim.startsWith("utm_")
        ? g.utm === null
          ? null
          : new URLSearchParams(g.utm).get(dim)
        : g[dim as "country"];
  for (const g of groups) {
    if (!live.has(g.link_id)) continue;
    if (g.clicks > g.counted) inc.set(g.link_id, (inc.get(g.link_id) ?? 0) + g.clicks - g.counted);
    last.set(g.link_id, Math.max(last.get(g.link_id) ?? 0, g.last_at));
    bump(daily, `${g.link_id}\0${g.day}`, { link_id: g.link_id, day: g.day, bots: 0, qr: 0 }, g, g.is_bot * g.clicks);
    bump(hourly, `${g.link_id}\0${String(g.hour).padStart(15, "0")}`, { link_id: g.link_id, hour: g.hour, bots: 0, qr: 0 }, g, g.is_bot * g.clicks);
    const month = g.day.slice(0, 7);
    // The default destination (null) and clicks not from a QR code have no row: derived at read time.
    for (const dim of BREAKDOWNS) {
      const value = valueOf(g, dim);
      if (value === null) continue;
      bump(breakdown, `${g.link_id}\0${g.day}\0${dim}\0${value}`, { link_id: g.link_id, day: g.day, dimension: dim, value }, g);
      if (keepsMonth(g.link_id, month)) bump(monthly, `${g.link_id}\0${month}\0${dim}\0${value}`, { link_id: g.link_id, month, dimension: dim, value }, g);
    }
  }
  const sorted = (m: Map<string, Row>) =>
    [...m.keys()].sort().map((k) => {
      const { key: _key, ...rest } = m.get(k)!;
      return rest;
    });
  // Owner rows: every link row of an owned link summed per owner and the rest of its key.
  const ownerDaily = new Map<string, Row>();
  const ownerHourly = new Map<string, Row>();
  const ownerBreakdown = new Map<string, Row>();
  const ownerMonthly = new Map<string, Row>();
  const toOwner = (from: Map<string, Row>, to: Map<string, Row>, keyOf: (r: Row) => string, fields: string[]) => {
    for (const r of from.values()) {
      const owner = live.get(r.link_id as string);
      if (!owner) continue;
      const key = `${owner}\0${keyOf(r)}`;
      const o: Row = to.get(key) ?? {
        key,
        owner_id: owner,
        ...Object.fromEntries(fields.map((f) => [f, r[f]])),
        clicks: 0,
        visitors: 0,
        ...(r.bots !== undefined ? { bots: 0, qr: 0 } : {}),
      };
      o.clicks += r.clicks;
      (o.visitors as number) += r.visitors as number;
      if (o.bots !== undefined) {
        o.bots += r.bots as number;
        (o.qr as number) += r.qr as number;
      }
      to.set(key, o);
    }
  };
  toOwner(daily, ownerDaily, (r) => r.day as string, ["day"]);
  toOwner(hourly, ownerHourly, (r) => String(r.hour).padStart(16, "0"), ["hour"]);
  toOwner(breakdown, ownerBreakdown, (r) => `${r.dimension}\0${r.day}\0${r.value}`, ["day", "dimension", "value"]);
  toOwner(monthly, ownerMonthly, (r) => `${r.dimension}\0${r.month}\0${r.value}`, ["month", "dimension", "value"]);
  return {
    increments: [...inc.keys()].sort().map((id) => [id, inc.get(id), last.get(id)]),
    daily: sorted(daily),
    hourly: sorted(hourly),
    breakdown: sorted(breakdown),
    monthly: sorted(monthly),
    ownerDaily: sorted(ownerDaily),
    ownerHourly: sorted(ownerHourly),
    ownerBreakdown: sorted(ownerBreakdown),
    ownerMonthly: sorted(ownerMonthly),
  };
}

/** A small deterministic generator, so a failure can be replayed. */
function lcg(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
}

function randomGroups(rand: () => number, n: number): Group[] {
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)] as T;
  // Ids chosen so that their string order differs from their numbers' (num = the id's position here).
  const links = ["k9", "k10", "a", "ab", "b", "Z", "k1"];
  return Array.from({ length: n }, () => {
    const link_id = pick(links);
    const clicks = 1 + Math.floor(rand() * 5);
    const day = pick(["2026-10-31", "2026-11-01", "2026-11-02"]);
    return {
      link_id,
      link_num: links.indexOf(link_id) + 1,
      day,
      hour: Date.parse(day) + pick([0, 5, 23]) * 3_600_000,
      country: pick(["DE", "FR", "unknown"]),
      device: pick(["desktop", "mobile"]),
      os: pick(["Windows", "iOS"]),
      browser: pick(["Chrome", "Safari"]),
      referrer: pick(["direct", "news.example.org"]),
      is_bot: rand() < 0.2 ? 1 : 0,
      destination: pick([null, null, null, "rule:1", "variant:2"]),
      qr: rand() < 0.3 ? 1 : 0,
      region: pick([null, null, "FR-IDF|Île-de-France"]),
      city: pick([null, null, "FR-IDF|Paris", "SG|Singapore"]),
      referrer_url: pick([null, "https://news.example.org/a/b"]),
      utm: pick([null, null, "utm_source=news&utm_campaign=spring", "utm_medium=email%20x"]),
      clicks,
      counted: rand() < 0.3 ? clicks : 0,
      visitors: Math.floor(rand() * (clicks + 1)),
      last_at: Date.UTC(2026, 10, 1) + Math.floor(rand() * 1_000_000),
    };
  });
}

describe("rollUp", () => {
  it("sums every row by its key and gives them in key order, for sorted and unsorted groups", () => {
    const rand = lcg(7);
    for (let round = 0; round < 40; round++) {
      const groups = randomGroups(rand, 1 + Math.floor(rand() * 60));
      // "ab" was deleted; "Z" has no owner.
      const live = new Map<string, string | null>([
        ["k9", "o1"],
        ["k10", "o2"],
        ["a", "o1"],
        ["b", "o2"],
        ["Z", null],
        ["k1", "o1"],
      ]);
      const keepsMonth = (linkId: string, month: string) => month === "2026-11" || linkId < "b";
      const expected = reference(groups, live, keepsMonth);
      expect(rollUp(groups, live, keepsMonth)).toEqual(expected);
      const byId = [...groups].sort((x, y) => (x.link_id < y.link_id ? -1 : x.link_id > y.link_id ? 1 : 0));
      expect(rollUp(byId, live, keepsMonth)).toEqual(expected);
    }
  });

  it("gives a link with one group its five breakdown rows in dimension-name order", () => {
    const g: Group = {
      link_id: "x",
      link_num: 1,
      day: "2026-11-22",
      hour: Date.UTC(2026, 10, 22, 7),
      country: "DE",
      device: "mobile",
      os: "iOS",
      browser: "Safari",
      referrer: "direct",
      is_bot: 1,
      destination: null,
      qr: 0,
      region: null,
      city: null,
      referrer_url: null,
      utm: null,
      clicks: 3,
      counted: 1,
      visitors: 2,
      last_at: 1_700_000_000_000,
    };
    const u = rollUp([g], new Map([["x", null]]));
    expect(u.increments).toEqual([["x", 2, 1_700_000_000_000]]);
    expect(u.daily).toEqual([{ link_id: "x", day: "2026-11-22", clicks: 3, bots: 3, visitors: 2, qr: 0 }]);
    expect(u.hourly).toEqual([{ link_id: "x", hour: Date.UTC(2026, 10, 22, 7), clicks: 3, bots: 3, visitors: 2, qr: 0 }]);
    expect(u.breakdown.map((r) => `${r.dimension}=${r.value}`)).toEqual(["browser=Safari", "country=DE", "device=mobile", "os=iOS", "referrer=direct"]);
    expect(u.monthly.map((r) => `${r.month} ${r.dimension} ${r.clicks}`)).toEqual([
      "2026-11 browser 3",
      "2026-11 country 3",
      "2026-11 device 3",
      "2026-11 os 3",
      "2026-11 referrer 3",
    ]);
    expect(rollUp([g], new Map())).toEqual({
      increments: [],
      daily: [],
      hourly: [],
      breakdown: [],
      monthly: [],
      ownerDaily: [],
      ownerHourly: [],
      ownerBreakdown: [],
      ownerMonthly: [],
    });
  });

  it("gives a destination row only to clicks not sent to the link's url, in key order", () => {
    const g: Group = {
      link_id: "x",
      link_num: 1,
      day: "2026-11-22",
      hour: Date.UTC(2026, 10, 22),
      country: "DE",
      device: "mobile",
      os: "iOS",
      browser: "Safari",
      referrer: "direct",
      is_bot: 0,
      destination: "rule:3",
      qr: 0,
      region: null,
      city: null,
      referrer_url: null,
      utm: null,
      clicks: 2,
      counted: 0,
      visitors: 0,
      last_at: 1,
    };
    const u = rollUp([g], new Map([["x", null]]));
    expect(u.breakdown.map((r) => `${r.dimension}=${r.value} ${r.clicks}`)).toEqual([
      "browser=Safari 2",
      "country=DE 2",
      "destination=rule:3 2",
      "device=mobile 2",
      "os=iOS 2",
      "referrer=direct 2",
    ]);
    expect(u.monthly.map((r) => `${r.dimension}=${r.value}`)).toEqual([
      "browser=Safari",
      "country=DE",
      "destination=rule:3",
      "device=mobile",
      "os=iOS",
      "referrer=direct",
    ]);
    const two = rollUp([g, { ...g, destination: null, clicks: 5 }, { ...g, destination: "variant:1", clicks: 1 }], new Map([["x", null]]));
    expect(two.breakdown.filter((r) => r.dimension === "destination").map((r) => `${r.value} ${r.clicks}`)).toEqual(["rule:3 2", "variant:1 1"]);
    expect(two.daily).toEqual([{ link_id: "x", day: "2026-11-22", clicks: 8, bots: 0, visitors: 0, qr: 0 }]);
  });

  it("gives a source row only to QR scans, with their visitors, and counts them on the day and hour", () => {
    const g: Group = {
      link_id: "x",
      link_num: 1,
      day: "2026-11-22",
      hour: Date.UTC(2026, 10, 22, 9),
      country: "DE",
      device: "mobile",
      os: "iOS",
      browser: "Safari",
      referrer: "direct",
      is_bot: 0,
      destination: null,
      qr: 1,
      region: null,
      city: null,
      referrer_url: null,
      utm: null,
      clicks: 4,
      counted: 0,
      visitors: 3,
      last_at: 1,
    };
    const u = rollUp([g, { ...g, qr: 0, clicks: 6, visitors: 1 }, { ...g, hour: Date.UTC(2026, 10, 22, 10), clicks: 1, visitors: 0 }], new Map([["x", null]]));
    expect(u.breakdown.filter((r) => r.dimension === "source")).toEqual([
      { link_id: "x", day: "2026-11-22", dimension: "source", value: "qr", clicks: 5, visitors: 3 },
    ]);
    expect(u.daily).toEqual([{ link_id: "x", day: "2026-11-22", clicks: 11, bots: 0, visitors: 4, qr: 5 }]);
    expect(u.hourly.map((h) => `${new Date(h.hour).getUTCHours()}h ${h.clicks} ${h.visitors} ${h.qr}`)).toEqual(["9h 10 4 4", "10h 1 0 1"]);
  });
});

describe("rollUp, finer breakdowns", () => {
  it("gives region, city, referrer URL and UTM rows only to groups that have them, in dimension-name order", () => {
    const base: Group = {
      link_id: "x",
      link_num: 1,
      day: "2026-11-22",
      hour: Date.UTC(2026, 10, 22, 9),
      country: "FR",
      device: "mobile",
      os: "iOS",
      browser: "Safari",
      referrer: "news.example.org",
      is_bot: 0,
      destination: null,
      qr: 0,
      region: null,
      city: null,
      referrer_url: null,
      utm: null,
      clicks: 2,
      counted: 0,
      visitors: 1,
      last_at: 1,
    };
    const finer: Group = {
      ...base,
      region: "FR-IDF|Île-de-France",
      city: "FR-IDF|Paris",
      referrer_url: "https://news.example.org/post",
      utm: "utm_source=news&utm_medium=e%26mail&utm_campaign=spring",
      clicks: 3,
      visitors: 2,
    };
    const plain = rollUp([base], new Map([["x", "owner1"]]));
    expect(plain.breakdown.map((r) => r.dimension)).toEqual(["browser", "country", "device", "os", "referrer"]);
    const u = rollUp([base, finer], new Map([["x", "owner1"]]));
    expect(u.breakdown.map((r) => `${r.dimension}=${r.value} ${r.clicks}/${r.visitors}`)).toEqual([
      "browser=Safari 5/3",
      "city=FR-IDF|Paris 3/2",
      "country=FR 5/3",
      "device=mobile 5/3",
      "os=iOS 5/3",
      "referrer=news.example.org 5/3",
      "referrer_url=https://news.example.org/post 3/2",
      "region=FR-IDF|Île-de-France 3/2",
      "utm_campaign=spring 3/2",
      "utm_medium=e&mail 3/2",
      "utm_source=news 3/2",
    ]);
    expect(u.monthly.filter((r) => r.dimension.startsWith("utm_")).map((r) => `${r.month} ${r.dimension} ${r.clicks}`)).toEqual([
      "2026-11 utm_campaign 3",
      "2026-11 utm_medium 3",
      "2026-11 utm_source 3",
    ]);
    // The owner's rows have them too (account analytics reads those).
    expect(
      u.ownerBreakdown
        .filter((r) => r.dimension === "city" || r.dimension === "utm_campaign")
        .map((r) => `${r.owner_id} ${r.dimension}=${r.value} ${r.clicks}`),
    ).toEqual(["owner1 city=FR-IDF|Paris 3", "owner1 utm_campaign=spring 3"]);
    expect(u.ownerMonthly.filter((r) => r.dimension === "country").map((r) => `${r.owner_id} ${r.month} ${r.value} ${r.clicks}/${r.visitors}`)).toEqual([
      "owner1 2026-11 FR 5/3",
    ]);
  });
});

describe("GroupSet", () => {
  it("merges groups of the same link, day and values across batches and keeps the others apart", () => {
    const rand = lcg(11);
    const set = new GroupSet();
    const all: Group[] = [];
    for (let batch = 0; batch < 5; batch++) {
      for (const g of randomGroups(rand, 30)) {
        all.push({ ...g });
        set.add(g);
      }
    }
    const held = set.byLinkId();
    // Nothing counted twice or lost, and no two held groups alike.
    const total = (gs: Group[]) => gs.reduce((a, g) => [a[0]! + g.clicks, a[1]! + g.counted], [0, 0]);
    expect(total(held)).toEqual(total(all));
    const keyOf = (g: Group) =>
      [g.link_id, g.hour, ...DIMENSIONS.map((d) => g[d]), g.is_bot, g.destination, g.qr, g.region, g.city, g.referrer_url, g.utm].join("|");
    expect(new Set(held.map(keyOf)).size).toBe(held.length);
    expect(set.size).toBe(held.length);
    // By link id, and the roll-up of the held groups is the roll-up of everything added.
    const ids = held.map((g) => g.link_id);
    expect(ids).toEqual([...ids].sort());
    const live = new Map(ids.map((id) => [id, id < "b" ? "o1" : "o2"]));
    expect(rollUp(held, live)).toEqual(rollUp(all, live));
  });

  it("counts rows read back one click each, by their time's UTC hour, with their visitors", () => {
    const set = new GroupSet();
    const row = {
      link_id: "a",
      link_num: 1,
      country: "DE",
      device: "desktop",
      os: "Windows",
      browser: "Chrome",
      referrer: "direct",
      is_bot: 0,
      destination: null,
      new_visitor: 0,
      qr: 0,
      region: null,
      city: null,
      referrer_url: null,
      utm: "utm_source=a",
    };
    set.addRows([
      { ...row, at: Date.UTC(2026, 10, 21, 23, 59, 59, 999), counted: 0 },
      { ...row, at: Date.UTC(2026, 10, 22), counted: 1, new_visitor: 1 },
      { ...row, at: Date.UTC(2026, 10, 22, 5), counted: 0 },
      { ...row, at: Date.UTC(2026, 10, 22, 6), counted: 0, country: "FR" },
    ]);
    expect(set.byLinkId().map((g) => `${g.day} ${g.country} ${g.clicks}/${g.counted} ${g.visitors}`)).toEqual([
      "2026-11-21 DE 1/0 0",
      "2026-11-22 DE 1/1 1",
      "2026-11-22 DE 1/0 0",
      "2026-11-22 FR 1/0 0",
    ]);
    expect(set.byLinkId().map((g) => g.utm)).toEqual(["utm_source=a", "utm_source=a", "utm_source=a", "utm_source=a"]);
    // Each group keeps its latest click's time, whatever the order the rows came in.
    expect(set.byLinkId().map((g) => g.last_at)).toEqual([
      Date.UTC(2026, 10, 21, 23, 59, 59, 999),
      Date.UTC(2026, 10, 22),
      Date.UTC(2026, 10, 22, 5),
      Date.UTC(2026, 10, 22, 6),
    ]);
  });
});
