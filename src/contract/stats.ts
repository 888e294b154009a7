// Per-link statistics (docs/api.md, Statistics): the query of a range and the answer.
import { Type, type Static, type TInteger, type TString } from "typebox";

/** clicks/range.ts's RANGES. */
const RangeName = (description: string) => Type.Union([Type.Literal("24h"), Type.Literal("7d"), Type.Literal("30d"), Type.Literal("90d")], { description });
const Day = Type.String({ pattern: "^(\\d{4}-\\d{2}-\\d{2})?$", description: "UTC day, YYYY-MM-DD; both ends included" });

export const RangeQuery = Type.Object(
  {
    from: Type.Optional(Day),
    to: Type.Optional(Day),
    range: Type.Optional(RangeName("Instead of from/to: 24h (the current UTC hour and the 23 before it, by hour), or 7d, 30d, 90d (days ending today)")),
  },
  { additionalProperties: false, description: "Default: the last 30 days ending today (UTC); at most 366 days. range and from/to are not given together." },
);
export type StatsRange = Static<typeof RangeQuery>;

/** A breakdown: `[{ <key>: value, clicks }]`, most clicks first. */
const Top = <K extends string>(key: K) =>
  Type.Array(Type.Object({ [key]: Type.String(), clicks: Type.Integer() } as { [P in K]: TString } & { clicks: TInteger }));

const StatsProperties = {
  link_id: Type.String(),
  alias: Type.String(),
  range: Type.Optional(RangeName("The named range asked for")),
  from: Type.String({ description: "First UTC day of the range (for 24h: the day of its first hour)" }),
  to: Type.String(),
  total_clicks: Type.Integer({ description: "All-time clicks of the link" }),
  advanced: Type.Boolean({ description: "false on plans without advanced statistics: the keys below are then absent" }),
  message: Type.Optional(Type.String()),
  required_plan: Type.Optional(Type.String()),
  range_clicks: Type.Optional(Type.Integer({ description: "Clicks from `from` to `to`" })),
  daily: Type.Optional(Type.Array(Type.Object({ date: Type.String(), clicks: Type.Integer() }), { description: "Every day of the range, zero-filled (not for range=24h)" })),
  hourly: Type.Optional(
    Type.Array(Type.Object({ hour: Type.String({ description: "ISO time of the hour's start (UTC)" }), clicks: Type.Integer() }), {
      description: "range=24h only: 24 hours, oldest first, the last one the current hour; the breakdowns then cover these hours",
    }),
  ),
  countries: Type.Optional(Top("country")),
  devices: Type.Optional(Top("device")),
  browsers: Type.Optional(Top("browser")),
  os: Type.Optional(Top("os")),
  referrers: Type.Optional(Top("referrer")),
  destinations: Type.Optional(
    Type.Array(Type.Object({ destination: Type.String(), url: Type.Union([Type.String(), Type.Null()]), clicks: Type.Integer(), share: Type.Number({ minimum: 0, maximum: 1 }) }), {
      description:
        "Where the range's clicks went (contract/targeting.ts's codes: default, rule:N, ios, android, variant:N), most first; `url` is that destination's address today (null when the link no longer has it)",
    }),
  ),
  destinations_daily: Type.Optional(
    Type.Array(Type.Object({ date: Type.String(), destination: Type.String(), clicks: Type.Integer() }), {
      description: "Clicks per day and destination (days with none left out): a split's variants over time",
    }),
  ),
  bots: Type.Optional(Type.Integer()),
  bot_share: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
};

export const StatsSchema = Type.Object(StatsProperties);
export type Stats = Static<typeof StatsSchema>;
export const StatsReply = Type.Object({ status: Type.Literal("success"), ...StatsProperties });
export type StatsReply = Static<typeof StatsReply>;
