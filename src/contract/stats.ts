// Statistics (docs/api.md, Statistics): the query of a range and the answer, per link and per account.
import { Type, type Static, type TInteger, type TString } from "typebox";

import { RANGE_NAMES } from "./tables.js";

export { RANGE_NAMES };
const RangeName = (description: string) =>
  Type.Union(
    [
      Type.Literal("24h"),
      Type.Literal("7d"),
      Type.Literal("30d"),
      Type.Literal("90d"),
      Type.Literal("mtd"),
      Type.Literal("lastmonth"),
      Type.Literal("12mo"),
      Type.Literal("all"),
    ],
    { description },
  );
const Day = Type.String({ pattern: "^(\\d{4}-\\d{2}-\\d{2})?$", description: "Day in the time zone `tz`, YYYY-MM-DD; both ends included" });

const RangeProperties = {
  from: Type.Optional(Day),
  to: Type.Optional(Day),
  range: Type.Optional(
    RangeName(
      "Instead of from/to: 24h (the current hour and the 23 before it), 7d, 30d, 90d (days ending today), mtd (this month), lastmonth, 12mo (this month and the 11 before it), all (since the first click)",
    ),
  ),
  tz: Type.Optional(Type.String({ maxLength: 64, description: "IANA time zone of days, hours and months (e.g. Europe/Paris); default UTC" })),
};

export const RangeQuery = Type.Object(RangeProperties, {
  additionalProperties: false,
  description:
    "Default: the last 30 days ending today. range and from/to are not given together. Points are hourly up to two days, daily up to 366 days, monthly beyond.",
});
export type StatsRange = Static<typeof RangeQuery>;

/** Leads, sales and revenue of the range (Business and up: docs/conversions.md, Statistics). */
const Revenue = Type.Record(Type.String(), Type.Integer(), {
  description: "Currency (ISO 4217) to minor units, net of refunds; never summed across currencies",
});
/** A row's conversions (Business and up): those attributed to clicks with the row's value, or made in the point's time. */
export const ConversionRowProperties = {
  leads: Type.Optional(Type.Integer({ description: "Leads (Business and up) of the range attributed to the row's clicks" })),
  sales: Type.Optional(Type.Integer({ description: "Sales (refunded ones included)" })),
  revenue: Type.Optional(Revenue),
};
const RateProperties = {
  leads_per_click: Type.Optional(Type.Union([Type.Number(), Type.Null()], { description: "leads / clicks (Business and up); null without clicks" })),
  sales_per_lead: Type.Optional(Type.Union([Type.Number(), Type.Null()], { description: "sales / leads; null without leads" })),
};
export const ConversionRateProperties = { ...ConversionRowProperties, ...RateProperties };

/** A breakdown: `[{ <key>: value, clicks, visitors }]`, most clicks first. */
const Top = <K extends string>(key: K, description?: string) =>
  Type.Array(
    Type.Object({ [key]: Type.String(), clicks: Type.Integer(), visitors: Type.Integer(), ...ConversionRowProperties } as { [P in K]: TString } & {
      clicks: TInteger;
      visitors: TInteger;
    } & typeof ConversionRowProperties),
    description === undefined ? {} : { description },
  );

const Granularity = Type.Union([Type.Literal("hour"), Type.Literal("day"), Type.Literal("month")]);
const Point = Type.Object({
  start: Type.String({ description: "ISO instant of the point's start" }),
  label: Type.String({ description: "The point in the time zone: YYYY-MM-DDTHH:00 (hour), YYYY-MM-DD (day) or YYYY-MM (month)" }),
  clicks: Type.Integer(),
  visitors: Type.Integer({ description: "Visitors new that UTC day (a day's visitors summed over its hours)" }),
  qr: Type.Integer({ description: "Clicks from QR codes" }),
  ...ConversionRowProperties,
});
const Totals = Type.Object({ clicks: Type.Integer(), visitors: Type.Integer(), qr: Type.Integer() });
const Change = Type.Union([Type.Number(), Type.Null()], { description: "(this - previous) / previous; null when the previous period had none" });

/** What every statistics answer (a link's, an account's) holds for its range. */
export const PeriodProperties = {
  range: Type.Optional(RangeName("The named range asked for")),
  tz: Type.String(),
  from: Type.String({ description: "First day of the range in `tz` (for 24h: the day of its first hour)" }),
  to: Type.String(),
  granularity: Type.Optional(Granularity),
  range_clicks: Type.Optional(Type.Integer({ description: "Clicks from `from` to `to`" })),
  range_visitors: Type.Optional(Type.Integer({ description: "Visitors: for a range of several days, the sum of each day's visitors" })),
  range_qr: Type.Optional(Type.Integer({ description: "Clicks from QR codes (the short URL with ?qr=1)" })),
  previous: Type.Optional(
    Type.Object(
      { from: Type.String(), to: Type.String(), ...Totals.properties },
      { description: "The period of the same length just before (absent for all)" },
    ),
  ),
  change: Type.Optional(Type.Object({ clicks: Change, visitors: Change, qr: Change })),
  series: Type.Optional(Type.Array(Point, { description: "Every point of the range, zero-filled, in `tz`" })),
  sources: Type.Optional(
    Type.Array(Type.Object({ source: Type.Union([Type.Literal("link"), Type.Literal("qr")]), clicks: Type.Integer(), visitors: Type.Integer() }), {
      description: "Clicks of the short link itself and from QR codes",
    }),
  ),
  countries: Type.Optional(Top("country")),
  devices: Type.Optional(Top("device")),
  browsers: Type.Optional(Top("browser")),
  os: Type.Optional(Top("os")),
  referrers: Type.Optional(Top("referrer")),
  regions: Type.Optional(
    Type.Array(
      Type.Object({
        region: Type.String({ description: "ISO 3166-2 code, e.g. FR-IDF" }),
        name: Type.String({ description: "English name" }),
        clicks: Type.Integer(),
        visitors: Type.Integer(),
      }),
      {
        description: "Regions (first subdivision) when GEOIP_DB is a City database; empty with a Country database",
      },
    ),
  ),
  cities: Type.Optional(
    Type.Array(
      Type.Object({
        city: Type.String({ description: "English name" }),
        country: Type.String({ description: "ISO 3166-1 code" }),
        region: Type.Union([Type.String(), Type.Null()], { description: "ISO 3166-2 code of its region, null when the database has none" }),
        clicks: Type.Integer(),
        visitors: Type.Integer(),
      }),
      { description: "Cities when GEOIP_DB is a City database; empty with a Country database" },
    ),
  ),
  referrer_urls: Type.Optional(
    Type.Array(
      Type.Object({
        referrer_url: Type.String({ description: "scheme://host/path, without query string or fragment" }),
        clicks: Type.Integer(),
        visitors: Type.Integer(),
      }),
      {
        description: "Referring pages (clicks with a referrer only)",
      },
    ),
  ),
  utm_sources: Type.Optional(Top("utm_source", "utm_source values of the short URL visited (clicks that had one only)")),
  utm_mediums: Type.Optional(Top("utm_medium", "utm_medium values of the short URL visited")),
  utm_campaigns: Type.Optional(Top("utm_campaign", "utm_campaign values of the short URL visited")),
  utm_terms: Type.Optional(Top("utm_term", "utm_term values of the short URL visited")),
  utm_contents: Type.Optional(Top("utm_content", "utm_content values of the short URL visited")),
  bots: Type.Optional(Type.Integer()),
  bot_share: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
};

/** A link's or account's app figures over the range (docs/deep-links.md, Store visits, installs and opens). */
export const AppCountsSchema = Type.Object(
  {
    store_visits: Type.Integer({ description: "Clicks the redirect sent to the App Store or Play Store listing of the link's app" }),
    installs: Type.Integer({ description: "First launches matched to the link (POST /api/deeplinks/open), once per click" }),
    opens: Type.Integer({ description: "Opens of the app through the link's address (universal links, app links)" }),
    installs_by_match: Type.Object({ deterministic: Type.Integer(), probabilistic: Type.Integer() }),
  },
  { description: "A link's: present when it has app fields or the range has app figures; the account's (analytics): when any figure is not zero" },
);

export const ConversionProperties = {
  leads: Type.Optional(Type.Integer({ description: "Leads of the range's conversions (Business and up)" })),
  sales: Type.Optional(Type.Integer({ description: "Sales of the range (refunded ones included)" })),
  revenue: Type.Optional(Revenue),
  ...RateProperties,
};

const Interval = Type.Union([Type.Object({ low: Type.Number(), high: Type.Number() }), Type.Null()], { description: "95 % confidence interval of the rate" });
const SplitTest = Type.Object(
  {
    goal: Type.Union([Type.Literal("clicks"), Type.Literal("leads"), Type.Literal("sales"), Type.Literal("revenue"), Type.Null()]),
    started_at: Type.Union([Type.String(), Type.Null()]),
    ends_at: Type.Union([Type.String(), Type.Null()]),
    min_visits: Type.Union([Type.Integer(), Type.Null()]),
    currency: Type.Union([Type.String(), Type.Null()], { description: "The currency the revenue goal compares (most revenue), null without sales" }),
    variants: Type.Array(
      Type.Object({
        destination: Type.String({ description: "variant:N" }),
        url: Type.String(),
        weight: Type.Integer(),
        clicks: Type.Integer(),
        leads: Type.Integer(),
        sales: Type.Integer(),
        revenue: Revenue,
        rate: Type.Union([Type.Number(), Type.Null()], {
          description:
            "Toward the goal: leads or sales per click, revenue per click (minor units), or the share of the split's clicks for clicks (leads per click without a goal)",
        }),
        interval: Interval,
      }),
    ),
  },
  { description: "A running split's variants since it began (its goal set): their figures, rate and 95 % interval (docs/conversions.md)" },
);

const StatsProperties = {
  link_id: Type.String(),
  alias: Type.String(),
  ...PeriodProperties,
  total_clicks: Type.Integer({ description: "All-time clicks of the link" }),
  advanced: Type.Boolean({ description: "false on plans without advanced statistics: the keys below are then absent" }),
  message: Type.Optional(Type.String()),
  required_plan: Type.Optional(Type.String()),
  daily: Type.Optional(
    Type.Array(Type.Object({ date: Type.String(), clicks: Type.Integer(), visitors: Type.Integer(), qr: Type.Integer(), ...ConversionRowProperties }), {
      description: "Every day of the range in `tz`, zero-filled (day ranges only: not for hourly or monthly points)",
    }),
  ),
  hourly: Type.Optional(
    Type.Array(
      Type.Object({
        hour: Type.String({ description: "ISO time of the hour's start (UTC)" }),
        clicks: Type.Integer(),
        visitors: Type.Integer(),
        qr: Type.Integer(),
        ...ConversionRowProperties,
      }),
      {
        description: "range=24h only: 24 hours, oldest first, the last one the current hour; the breakdowns then cover these hours",
      },
    ),
  ),
  destinations: Type.Optional(
    Type.Array(
      Type.Object({
        destination: Type.String(),
        url: Type.Union([Type.String(), Type.Null()]),
        clicks: Type.Integer(),
        share: Type.Number({ minimum: 0, maximum: 1 }),
        ...ConversionRateProperties,
      }),
      {
        description:
          "Where the range's clicks went (contract/targeting.ts's codes: default, rule:N, ios, android, variant:N), most first; `url` is that destination's address today (null when the link no longer has it)",
      },
    ),
  ),
  destinations_daily: Type.Optional(
    Type.Array(Type.Object({ date: Type.String(), destination: Type.String(), clicks: Type.Integer() }), {
      description: "Clicks per UTC day and destination (days with none left out): a split's variants over time",
    }),
  ),
  ...ConversionProperties,
  tracks_conversions: Type.Optional(
    Type.Boolean({
      description: "Business and up: the link sends the click id to its destination (its own track_conversions, else its domain's, else the account's default)",
    }),
  ),
  imported_conversions: Type.Optional(
    Type.Object(
      { leads: Type.Integer(), sales: Type.Integer(), revenue: Revenue },
      { description: "All-time totals the source counted before the link was imported (Dub), beside the range's own; not in any range" },
    ),
  ),
  split_test: Type.Optional(SplitTest),
  apps: Type.Optional(AppCountsSchema),
};

export const StatsSchema = Type.Object(StatsProperties);
export type Stats = Static<typeof StatsSchema>;
export const StatsReply = Type.Object({ status: Type.Literal("success"), ...StatsProperties });
export type StatsReply = Static<typeof StatsReply>;
