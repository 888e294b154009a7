// Custom domains (docs/api.md, Custom domains): a domain with the DNS records its owner creates.
import { Type, type Static } from "typebox";
import { Body, Nullable, TeamOwnerParam } from "./common.js";

const RecordSchema = <T extends "CNAME" | "TXT">(type: T) => Type.Object({ type: Type.Literal(type), name: Type.String(), value: Type.String() });
export type DnsRecord = Static<ReturnType<typeof RecordSchema<"CNAME" | "TXT">>>;

export const DomainSchema = Type.Object({
  id: Type.String(),
  hostname: Type.String(),
  status: Type.Union([Type.Literal("pending"), Type.Literal("verified")]),
  records: Type.Tuple([RecordSchema("CNAME"), RecordSchema("TXT")]),
  next_action: Nullable(Type.String()),
  last_checked_at: Nullable(Type.String()),
  verified_at: Nullable(Type.String()),
  lost_at: Nullable(Type.String({ description: "when a re-check found the TXT record gone (the domain went back to pending)" })),
  link_count: Type.Integer({ description: "links on this domain (deleted with it)" }),
  created_at: Type.String(),
  track_conversions: Nullable(
    Type.Boolean({ description: "The default of its links that have none of their own (docs/conversions.md); null: the account's default" }),
  ),
});
export type Domain = Static<typeof DomainSchema>;

export const DomainReply = Type.Object({ status: Type.Literal("success"), domain: DomainSchema });
export type DomainReply = Static<typeof DomainReply>;
export const DomainListReply = Type.Object({ status: Type.Literal("success"), domains: Type.Array(DomainSchema) });
export type DomainListReply = Static<typeof DomainListReply>;
/** GET with it: the owner's domains for any role (links.view); POST: a domain of the owner's account (domains.manage). */
export const DomainOwnerQuery = TeamOwnerParam("that owner's custom domains");

export const AddDomainBody = Body({ hostname: Type.String({ maxLength: 300 }) });
export const UpdateDomainBody = Body({
  track_conversions: Nullable(Type.Boolean({ description: "true or false: the default of the domain's links that have none; null: inherit the account's" })),
});
export type UpdateDomainFields = Static<typeof UpdateDomainBody>;
