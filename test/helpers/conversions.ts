// Conversion helpers for tests: a tracked click stored for a link (as the redirect stores one), a customer
// with a lead and a sale made through the store, for the routes that need one to exist, and a table's row count.
import { newClickId, recordLead, recordSale, storeTrackedClicks, trackedRow } from "../../src/conversions/index.js";
import type { TestServer } from "./server.js";

/** Stores a tracked click of `linkId` (its owner's) at `at`; returns its click id. */
export async function trackedClick(server: TestServer, linkId: string, at = Date.now(), destination: string | null = null): Promise<string> {
  const db = server.ctx.storage.db;
  const link = await db.selectFrom("links").select("owner_id").where("id", "=", linkId).executeTakeFirstOrThrow();
  const id = newClickId();
  await storeTrackedClicks(server.ctx.storage, [
    trackedRow({ id, ownerId: link.owner_id!, linkId, destination, country: "FR", userAgent: "Mozilla/5.0 (Windows NT 10.0; Win64; x64)", referer: "", at }),
  ]);
  return id;
}

/** A customer `externalId` of the link's owner, bound to a new tracked click of the link, with a sale of `invoiceId` when given. */
export async function customerWithSale(server: TestServer, linkId: string, externalId: string, invoiceId?: string): Promise<string> {
  const db = server.ctx.storage.db;
  const clickId = await trackedClick(server, linkId);
  const link = await db.selectFrom("links").select("owner_id").where("id", "=", linkId).executeTakeFirstOrThrow();
  const now = Date.now();
  await recordLead(db, { id: link.owner_id!, attribution_days: 90 }, { click_id: clickId, customer_external_id: externalId, event_name: "Sign up" }, now);
  if (invoiceId !== undefined)
    await recordSale(db, link.owner_id!, { customer_external_id: externalId, amount: 1000, currency: "EUR", invoice_id: invoiceId }, now);
  return clickId;
}

/** How many rows a conversions table holds (the tests compare counts before and after a send). */
export async function countRows(
  server: TestServer,
  table: "conversion_leads" | "conversion_sales" | "conversion_customers" | "conversion_refunds" | "stripe_events",
): Promise<number> {
  const row = await server.ctx.storage.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
