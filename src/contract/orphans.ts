// Orphan visits (docs/orphan-visits.md): requests that matched no link, counted per day, host, path,
// referrer host and device class; the operator reads every host's, a domain's owner that domain's.
import { Type, type Static } from "typebox";

export const ORPHAN_MAX_DAYS = 90;
export const ORPHAN_TOP = 20;

export const OrphanQuery = Type.Object(
  {
    days: Type.Optional(Type.Integer({ minimum: 1, maximum: ORPHAN_MAX_DAYS, description: "The last N UTC days, today included (default 30)" })),
  },
  { additionalProperties: false },
);
export type OrphanQueryFields = Static<typeof OrphanQuery>;

const Count = Type.Integer({ minimum: 0 });

export const OrphanReportSchema = Type.Object({
  days: Type.Integer(),
  total: Count,
  by_day: Type.Array(Type.Object({ day: Type.String({ description: "YYYY-MM-DD (UTC)" }), visits: Count }), {
    description: "Every day of the range, oldest first",
  }),
  top_paths: Type.Array(
    Type.Object({
      host: Type.Union([Type.String(), Type.Null()], { description: "The custom domain, or null for the main host" }),
      path: Type.String({ description: 'The path asked for, without its query; "(other)" past ORPHAN_PATHS_PER_DAY' }),
      alias: Type.Union([Type.String(), Type.Null()], { description: "The alias a new link would need to answer here, when the path can be one" }),
      visits: Count,
    }),
    { description: `The ${ORPHAN_TOP} most visited, most first` },
  ),
  referrers: Type.Array(Type.Object({ referrer_host: Type.String({ description: '"direct" without a referrer' }), visits: Count })),
  devices: Type.Array(Type.Object({ device: Type.String({ description: "desktop, mobile, tablet, bot or other" }), visits: Count })),
});
export type OrphanReport = Static<typeof OrphanReportSchema>;

export const OrphanReply = Type.Object({ status: Type.Literal("success"), orphans: OrphanReportSchema });
export type OrphanReply = Static<typeof OrphanReply>;
