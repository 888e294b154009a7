// Tables of the Stripe integration (migration 043, docs/conversions.md, Stripe).
import type { Selectable } from "kysely";

/** An account's Stripe webhook endpoint: the token of its address and the signing secret, sealed (shared/secret-box.ts). */
export interface StripeEndpointsTable {
  owner_id: string;
  /** SHA-256 (hex) of the address's token: how a delivery finds its account. */
  token_hash: string;
  /** The token sealed (bound to owner_id), to show the address again. */
  token_sealed: string;
  /** The signing secret (whsec_...) sealed, bound to owner_id; never shown. */
  secret_sealed: string;
  created_at: number;
  updated_at: number;
}

/** A Stripe event processed for an account: a replay of the same id changes nothing. */
export interface StripeEventsTable {
  owner_id: string;
  event_id: string;
  type: string;
  outcome: string;
  at: number;
}

/** A Stripe customer (cus_...) bound to the account's customer it paid as. */
export interface StripeCustomersTable {
  owner_id: string;
  stripe_customer_id: string;
  external_id: string;
  created_at: number;
}

export interface StripeTables {
  stripe_endpoints: StripeEndpointsTable;
  stripe_events: StripeEventsTable;
  stripe_customers: StripeCustomersTable;
}

export type StripeEndpointRow = Selectable<StripeEndpointsTable>;
