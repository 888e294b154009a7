// Abuse reports (docs/operator.md): the public form's fields, and reports as the operators' queue shows them.
import { Type, type Static } from "typebox";
import { Body, Nullable, PageQuery } from "./common.js";
import { AdminLinkSchema } from "./admin.js";

import { REPORT_STATES } from "./tables.js";

export { REPORT_STATES };
export type ReportState = (typeof REPORT_STATES)[number];

export const ReportSchema = Type.Object({
  id: Type.String(),
  link: Nullable(AdminLinkSchema),
  domain: Nullable(Type.String({ description: "The custom domain, null for the main host" })),
  alias: Type.String(),
  url: Type.String({ description: "The destination when reported" }),
  reason: Type.String(),
  details: Type.String(),
  reporter_email: Nullable(Type.String()),
  source: Type.Union([Type.Literal("form"), Type.Literal("feed")], {
    description: "Who filed it: the public form, or a threat feed (THREAT_FEEDS) listing the destination",
  }),
  state: Type.String(),
  created_at: Type.String(),
  resolved_at: Nullable(Type.String()),
  resolved_by_email: Nullable(Type.String()),
  reports_for_link: Type.Integer({ description: "Reports of this link in every state, this one included" }),
});
export type AbuseReport = Static<typeof ReportSchema>;
export const ReportReply = Type.Object({ status: Type.Literal("success"), report: ReportSchema });
export type ReportReply = Static<typeof ReportReply>;
export const ReportPageReply = Type.Object({ status: Type.Literal("success"), reports: Type.Array(ReportSchema), next_cursor: Nullable(Type.String()) });
export type ReportPageReply = Static<typeof ReportPageReply>;

export const ReportListQuery = Type.Object(
  { state: Type.Optional(Type.Unsafe<ReportState>(Type.Union(REPORT_STATES.map((s) => Type.Literal(s))))), ...PageQuery },
  { additionalProperties: false },
);
export const ReportDisableLinkBody = Body({
  reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'Shown to the owner; by default "Reported as <reason>"' })),
  status: Type.Optional(Type.Union([Type.Literal(410), Type.Literal(451)])),
});
export const BanOwnerBody = Body({ reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })) });

// The public form's fields (GET /report?link=, POST /report). Lengths here only stop absurd input early;
// the reports feature owns the real rules and their messages.
export const ReportFormBody = Type.Object(
  {
    link: Type.Optional(Type.String({ maxLength: 8192 })),
    reason: Type.Optional(Type.String({ maxLength: 100 })),
    details: Type.Optional(Type.String({ maxLength: 20_000 })),
    email: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);
export const ReportFormQuery = Type.Object({ link: Type.Optional(Type.String({ maxLength: 8192 })) }, { additionalProperties: false });
