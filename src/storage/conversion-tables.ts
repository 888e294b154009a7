// Tables of conversions (migration 042, docs/conversions.md): tracked clicks named by their click id, the
// customers an account reports, and their leads, sales and refunds.
import type { Generated, Selectable } from "kysely";

/** A visit of a tracked link; `id` is the click id sent to the destination (128 random bits, base64url). */
export interface TrackedClicksTable {
  id: string;
  owner_id: string;
  link_id: string;
  /** null: the link's url; else rule:N, ios, android or variant:N (contract/targeting.ts). */
  destination: string | null;
  country: string | null;
  /** desktop, mobile, tablet, bot, ... as clicks describe it. */
  device: string;
  referrer_host: string | null;
  /** Browser and operating system as clicks describe them (migration 047; null for clicks stored before). */
  browser: string | null;
  os: string | null;
  /** The visit's UTM values as clicks/utm-values.ts normalises them, null without any. */
  utm: string | null;
  at: number;
  /** "ios" or "android": the redirect sent the click to the store listing of the link's app (migration 048); null otherwise. */
  store: string | null;
}

export interface ConversionCustomersTable {
  id: string;
  owner_id: string;
  /** The account's own id for the customer: unique per account. */
  external_id: string;
  name: string | null;
  email: string | null;
  /** The click of the first lead (first lead wins), its link and destination. */
  click_id: string | null;
  link_id: string | null;
  destination: string | null;
  created_at: number;
}

export interface ConversionLeadsTable {
  id: string;
  owner_id: string;
  /** null once the customer was erased. */
  customer_id: string | null;
  event_name: string;
  click_id: string | null;
  link_id: string | null;
  destination: string | null;
  /** A JSON object, or null. */
  metadata: string | null;
  created_at: number;
}

export interface ConversionSalesTable {
  id: string;
  owner_id: string;
  customer_id: string | null;
  click_id: string | null;
  link_id: string | null;
  destination: string | null;
  event_name: string;
  /** Minor units of `currency`. */
  amount: number;
  /** ISO 4217, upper case. */
  currency: string;
  /** Sum of the refunds recorded against the sale, at most `amount`. */
  refunded: Generated<number>;
  /** Unique per account when set. */
  invoice_id: string | null;
  payment_processor: string;
  metadata: string | null;
  created_at: number;
}

export interface ConversionRefundsTable {
  id: string;
  owner_id: string;
  sale_id: string;
  amount: number;
  created_at: number;
}

/** Leads, sales and revenue a source counted before the link was imported (migration 047), shown beside snip's own. */
export interface LinkImportedConversionsTable {
  link_id: string;
  leads: Generated<number>;
  sales: Generated<number>;
  /** JSON object: currency -> minor units. */
  revenue: Generated<string>;
}

export interface ConversionTables {
  tracked_clicks: TrackedClicksTable;
  conversion_customers: ConversionCustomersTable;
  conversion_leads: ConversionLeadsTable;
  conversion_sales: ConversionSalesTable;
  conversion_refunds: ConversionRefundsTable;
  link_imported_conversions: LinkImportedConversionsTable;
}

export type TrackedClickRow = Selectable<TrackedClicksTable>;
export type CustomerRow = Selectable<ConversionCustomersTable>;
export type LeadRow = Selectable<ConversionLeadsTable>;
export type SaleRow = Selectable<ConversionSalesTable>;
export type RefundRow = Selectable<ConversionRefundsTable>;
