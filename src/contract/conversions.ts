// Conversions over the wire (docs/conversions.md): the tracking API's bodies (leads, sales, refunds) and the
// customers it builds, with their leads and sales. Amounts are integers in the currency's minor units.
import { Type, type Static } from "typebox";
import { Body, Nullable, PageQuery } from "./common.js";

const Metadata = Type.Record(Type.String({ maxLength: 100 }), Type.Unknown(), {
  description: "Any JSON object, at most 4096 bytes as JSON; never shown in statistics, erased with the customer",
});

export const TrackLeadBody = Body({
  click_id: Type.String({ minLength: 1, maxLength: 100, description: "The snip_id the destination received" }),
  customer_external_id: Type.String({ minLength: 1, maxLength: 200, description: "Your own id for the customer" }),
  event_name: Type.String({ minLength: 1, maxLength: 100, description: 'What happened, e.g. "Sign up"' }),
  customer_name: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  customer_email: Type.Optional(Nullable(Type.String({ maxLength: 320 }))),
  metadata: Type.Optional(Nullable(Metadata)),
});
export type TrackLeadBody = Static<typeof TrackLeadBody>;

export const TrackSaleBody = Body({
  customer_external_id: Type.String({ minLength: 1, maxLength: 200 }),
  amount: Type.Number({ description: "Minor units of currency (cents for EUR); negative: a refund of invoice_id's sale" }),
  currency: Type.String({ minLength: 1, maxLength: 10, description: "ISO 4217 code, e.g. EUR" }),
  event_name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Default "Purchase"' })),
  invoice_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200, description: "The sale is recorded once per invoice_id" }))),
  payment_processor: Type.Optional(Type.String({ minLength: 1, maxLength: 50, description: 'Default "custom"' })),
  metadata: Type.Optional(Nullable(Metadata)),
});
export type TrackSaleBody = Static<typeof TrackSaleBody>;

export const TrackRefundBody = Body({
  invoice_id: Type.String({ minLength: 1, maxLength: 200 }),
  amount: Type.Optional(Type.Number({ description: "Minor units refunded; absent: what is left of the sale" })),
});
export type TrackRefundBody = Static<typeof TrackRefundBody>;

export const LeadSchema = Type.Object({
  id: Type.String(),
  event_name: Type.String(),
  click_id: Nullable(Type.String()),
  link_id: Nullable(Type.String()),
  destination: Nullable(Type.String({ description: "null: the link's url; else rule:N, ios, android or variant:N" })),
  metadata: Nullable(Type.Record(Type.String(), Type.Unknown())),
  created_at: Type.String(),
});
export type Lead = Static<typeof LeadSchema>;

export const RefundSchema = Type.Object({ id: Type.String(), amount: Type.Integer(), created_at: Type.String() });
export type Refund = Static<typeof RefundSchema>;

export const SaleSchema = Type.Object({
  id: Type.String(),
  event_name: Type.String(),
  amount: Type.Integer(),
  currency: Type.String(),
  refunded: Type.Integer({ description: "Sum of the refunds recorded against the sale" }),
  invoice_id: Nullable(Type.String()),
  payment_processor: Type.String(),
  click_id: Nullable(Type.String()),
  link_id: Nullable(Type.String()),
  destination: Nullable(Type.String()),
  metadata: Nullable(Type.Record(Type.String(), Type.Unknown())),
  created_at: Type.String(),
});
export type Sale = Static<typeof SaleSchema>;

export const CustomerSchema = Type.Object({
  id: Type.String(),
  external_id: Type.String(),
  name: Nullable(Type.String()),
  email: Nullable(Type.String()),
  click_id: Nullable(Type.String({ description: "The click of the customer's first lead" })),
  link_id: Nullable(Type.String()),
  destination: Nullable(Type.String()),
  created_at: Type.String(),
});
export type Customer = Static<typeof CustomerSchema>;

export const TrackedClickSchema = Type.Object({
  id: Type.String(),
  link_id: Type.String(),
  destination: Nullable(Type.String()),
  country: Nullable(Type.String()),
  device: Type.String(),
  referrer_host: Nullable(Type.String()),
  at: Type.String(),
});
export type TrackedClick = Static<typeof TrackedClickSchema>;

export const CustomerDetailSchema = Type.Object({
  ...CustomerSchema.properties,
  click: Nullable(TrackedClickSchema),
  link: Nullable(Type.Object({ id: Type.String(), alias: Type.String(), domain: Nullable(Type.String()), url: Type.String() })),
  leads: Type.Array(LeadSchema),
  sales: Type.Array(SaleSchema),
});
export type CustomerDetail = Static<typeof CustomerDetailSchema>;

export const LeadReply = Type.Object({ status: Type.Literal("success"), lead: LeadSchema, customer: CustomerSchema, created: Type.Boolean() });
export type LeadReply = Static<typeof LeadReply>;
export const SaleReply = Type.Object({
  status: Type.Literal("success"),
  sale: SaleSchema,
  created: Type.Boolean({ description: "false: a sale with this invoice_id was recorded before (nothing doubled)" }),
  refund: Nullable(RefundSchema),
});
export type SaleReply = Static<typeof SaleReply>;
export const CustomerReply = Type.Object({ status: Type.Literal("success"), customer: CustomerDetailSchema });
export type CustomerReply = Static<typeof CustomerReply>;
export const CustomerListReply = Type.Object({ status: Type.Literal("success"), customers: Type.Array(CustomerSchema), next_cursor: Nullable(Type.String()) });
export type CustomerListReply = Static<typeof CustomerListReply>;
export const CustomerListQuery = Type.Object(PageQuery, { additionalProperties: false });
export const ExternalIdParams = Type.Object({ external_id: Type.String({ minLength: 1, maxLength: 200 }) });

export const ConversionSettingsSchema = Type.Object({
  track_conversions: Type.Boolean({ description: "The default of the account's links (a link's or its domain's own choice wins)" }),
  conversion_param: Type.String({ description: "The query parameter the click id goes to the destination in" }),
  attribution_days: Type.Integer({ description: "Days a click may lead to a lead" }),
});
export type ConversionSettings = Static<typeof ConversionSettingsSchema>;
export const ConversionSettingsReply = Type.Object({ status: Type.Literal("success"), settings: ConversionSettingsSchema });
export const UpdateConversionSettingsBody = Body({
  track_conversions: Type.Optional(Type.Boolean()),
  conversion_param: Type.Optional(Type.String({ maxLength: 100, description: "1 to 40 of A-Z a-z 0-9 _ -" })),
  attribution_days: Type.Optional(Type.Integer({ description: "1 to 3650" })),
});
export type UpdateConversionSettingsBody = Static<typeof UpdateConversionSettingsBody>;
