// Account analytics (docs/api.md, Account analytics): every link of an owner over a range, filtered.
import { Type, type Static } from "typebox";
import { FolderIdFilter } from "./folders.js";
import { AppCountsSchema, ConversionProperties, ConversionRateProperties, PeriodProperties } from "./stats.js";

export const AnalyticsQuery = Type.Object(
  {
    from: Type.Optional(Type.String({ pattern: "^(\\d{4}-\\d{2}-\\d{2})?$" })),
    to: Type.Optional(Type.String({ pattern: "^(\\d{4}-\\d{2}-\\d{2})?$" })),
    range: Type.Optional(PeriodProperties.range),
    tz: Type.Optional(Type.String({ maxLength: 64 })),
    owner: Type.Optional(Type.String({ maxLength: 64, description: "A team owner's user id: that owner's links, for an active member (404 otherwise)" })),
    link: Type.Optional(Type.String({ maxLength: 200, description: "Only this link (its id)" })),
    domain: Type.Optional(Type.String({ maxLength: 253, description: "Only links on this host (the main host's name or a custom domain)" })),
    tag: Type.Optional(Type.String({ maxLength: 200, description: "Only links with this tag (its id)" })),
    folder_id: Type.Optional(FolderIdFilter),
  },
  { additionalProperties: false, description: "The range as for a link's statistics; filters combine (and)" },
);
export type AnalyticsQuery = Static<typeof AnalyticsQuery>;

export const TopLink = Type.Object({
  link_id: Type.String(),
  alias: Type.String(),
  short_url: Type.String(),
  url: Type.String(),
  title: Type.Union([Type.String(), Type.Null()]),
  clicks: Type.Integer(),
  visitors: Type.Integer(),
  ...ConversionRateProperties,
});

const AnalyticsProperties = {
  owner_id: Type.String(),
  ...PeriodProperties,
  ...ConversionProperties,
  apps: Type.Optional(AppCountsSchema),
  links: Type.Array(TopLink, { description: "The links with the most clicks in the range (at most 50), most first" }),
};

export const AnalyticsSchema = Type.Object(AnalyticsProperties);
export type Analytics = Static<typeof AnalyticsSchema>;
export const AnalyticsReply = Type.Object({ status: Type.Literal("success"), ...AnalyticsProperties });
