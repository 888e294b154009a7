// Conversions (issue 56, docs/conversions.md): tracked clicks named by an unguessable click id, the customers an
// account's site reports, their leads and sales (amounts in minor units of an ISO 4217 currency) and refunds,
// and who tracks (an account default, a domain default, a link's own choice). Idempotency is the database's: one lead per (customer, event_name), one sale per (account, invoice_id), one customer per
// (account, external_id), whatever the number of concurrent sends.
import { type Kysely } from "kysely";

export function conversions() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await settings(db);
      await clicksAndCustomers(db);
      await leadsAndSales(db);
    },
  };
}

/** Who tracks: the account's default, its click id parameter and attribution window; a domain's and a link's own choice. */
async function settings(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("users")
    .addColumn("track_conversions", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable("users")
    .addColumn("conversion_param", "text", (c) => c.notNull().defaultTo("snip_id"))
    .execute();
  await db.schema
    .alterTable("users")
    .addColumn("attribution_days", "integer", (c) => c.notNull().defaultTo(90))
    .execute();
  // 1 or 0; null: the account's default (a domain), the domain's or else the account's (a link).
  await db.schema.alterTable("domains").addColumn("track_conversions", "integer").execute();
  await db.schema.alterTable("links").addColumn("track_conversions", "integer").execute();
}

async function clicksAndCustomers(db: Kysely<unknown>): Promise<void> {
  // One row per visit of a tracked link, named by the click id sent to the destination (128 random bits).
  await db.schema
    .createTable("tracked_clicks")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("owner_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("link_id", "text", (c) => c.notNull().references("links.id").onDelete("cascade"))
    // Where the visit went: null the link's url, else rule:N, ios, android, variant:N (contract/targeting.ts).
    .addColumn("destination", "text")
    .addColumn("country", "text")
    .addColumn("device", "text", (c) => c.notNull())
    .addColumn("referrer_host", "text")
    .addColumn("at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("tracked_clicks_link").on("tracked_clicks").columns(["link_id", "at"]).execute();

  await db.schema
    .createTable("conversion_customers")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("owner_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("external_id", "text", (c) => c.notNull())
    // Kept only when sent; erased with the customer.
    .addColumn("name", "text")
    .addColumn("email", "text")
    // The click of the customer's first lead (first lead wins) and its link.
    .addColumn("click_id", "text", (c) => c.references("tracked_clicks.id").onDelete("set null"))
    .addColumn("link_id", "text", (c) => c.references("links.id").onDelete("set null"))
    .addColumn("destination", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("conversion_customers_external").on("conversion_customers").columns(["owner_id", "external_id"]).unique().execute();
  await db.schema.createIndex("conversion_customers_list").on("conversion_customers").columns(["owner_id", "created_at", "id"]).execute();
}

async function leadsAndSales(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("conversion_leads")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("owner_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    // null once the customer is erased (the count stays, the person goes).
    .addColumn("customer_id", "text", (c) => c.references("conversion_customers.id").onDelete("set null"))
    .addColumn("event_name", "text", (c) => c.notNull())
    .addColumn("click_id", "text", (c) => c.references("tracked_clicks.id").onDelete("set null"))
    .addColumn("link_id", "text", (c) => c.references("links.id").onDelete("set null"))
    .addColumn("destination", "text")
    .addColumn("metadata", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("conversion_leads_once").on("conversion_leads").columns(["customer_id", "event_name"]).unique().execute();
  await db.schema.createIndex("conversion_leads_link").on("conversion_leads").columns(["link_id", "created_at"]).execute();
  await db.schema.createIndex("conversion_leads_owner").on("conversion_leads").columns(["owner_id", "created_at"]).execute();

  await db.schema
    .createTable("conversion_sales")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("owner_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("customer_id", "text", (c) => c.references("conversion_customers.id").onDelete("set null"))
    .addColumn("click_id", "text", (c) => c.references("tracked_clicks.id").onDelete("set null"))
    .addColumn("link_id", "text", (c) => c.references("links.id").onDelete("set null"))
    .addColumn("destination", "text")
    .addColumn("event_name", "text", (c) => c.notNull())
    // Minor units of `currency` (ISO 4217, upper case); never summed across currencies.
    .addColumn("amount", "bigint", (c) => c.notNull())
    .addColumn("currency", "text", (c) => c.notNull())
    // Sum of the refunds recorded against it (never more than amount).
    .addColumn("refunded", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("invoice_id", "text")
    .addColumn("payment_processor", "text", (c) => c.notNull())
    .addColumn("metadata", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  // Both engines let several rows have a null invoice_id under a unique index.
  await db.schema.createIndex("conversion_sales_invoice").on("conversion_sales").columns(["owner_id", "invoice_id"]).unique().execute();
  await db.schema.createIndex("conversion_sales_link").on("conversion_sales").columns(["link_id", "created_at"]).execute();
  await db.schema.createIndex("conversion_sales_customer").on("conversion_sales").columns(["customer_id", "created_at"]).execute();

  await db.schema
    .createTable("conversion_refunds")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("owner_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("sale_id", "text", (c) => c.notNull().references("conversion_sales.id").onDelete("cascade"))
    .addColumn("amount", "bigint", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("conversion_refunds_sale").on("conversion_refunds").columns(["sale_id", "created_at"]).execute();
}
