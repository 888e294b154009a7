// The customers an account's site reported (docs/conversions.md, Customers): getCustomer with its click, link,
// leads and sales; listCustomers newest first; eraseCustomer for a data subject's request (the customer row and
// the personal fields of their conversions go; the counts of leads and sales stay, without a person).
import type { Db } from "../storage/db.js";
import { DomainError, invalid } from "../shared/errors.js";
import type { Customer, CustomerDetail } from "../contract/conversions.js";
import { customerOf, leadOf, saleOf, trackedClickOf } from "./rows.js";

export async function getCustomer(db: Db, ownerId: string, externalId: string): Promise<CustomerDetail> {
  const c = await db.selectFrom("conversion_customers").selectAll().where("owner_id", "=", ownerId).where("external_id", "=", externalId).executeTakeFirst();
  if (!c) throw new DomainError("not_found", "no such customer");
  const [click, link, leads, sales] = await Promise.all([
    c.click_id === null ? undefined : db.selectFrom("tracked_clicks").selectAll().where("id", "=", c.click_id).executeTakeFirst(),
    c.link_id === null ? undefined : db.selectFrom("links").select(["id", "alias", "domain", "url"]).where("id", "=", c.link_id).executeTakeFirst(),
    db.selectFrom("conversion_leads").selectAll().where("customer_id", "=", c.id).orderBy("created_at").orderBy("id").execute(),
    db.selectFrom("conversion_sales").selectAll().where("customer_id", "=", c.id).orderBy("created_at").orderBy("id").execute(),
  ]);
  return {
    ...customerOf(c),
    click: click ? trackedClickOf(click) : null,
    link: link ? { id: link.id, alias: link.alias, domain: link.domain === "" ? null : link.domain, url: link.url } : null,
    leads: leads.map(leadOf),
    sales: sales.map(saleOf),
  };
}

export interface CustomerPage {
  customers: Customer[];
  next_cursor: string | null;
}

/** Newest first; `cursor` is the previous page's next_cursor. */
export async function listCustomers(db: Db, ownerId: string, page: { cursor?: string; limit?: number }): Promise<CustomerPage> {
  const limit = page.limit ?? 50;
  let q = db.selectFrom("conversion_customers").selectAll().where("owner_id", "=", ownerId);
  if (page.cursor !== undefined) {
    const m = /^(\d{1,16})\.([0-9A-Za-z]{1,64})$/.exec(page.cursor);
    if (!m) throw invalid("cursor", "not a cursor this list gave");
    const at = Number(m[1]);
    const id = m[2]!;
    q = q.where((eb) => eb.or([eb("created_at", "<", at), eb.and([eb("created_at", "=", at), eb("id", "<", id)])]));
  }
  const rows = await q
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(limit + 1)
    .execute();
  const more = rows.length > limit;
  const shown = more ? rows.slice(0, limit) : rows;
  const last = shown[shown.length - 1];
  return { customers: shown.map(customerOf), next_cursor: more && last ? `${last.created_at}.${last.id}` : null };
}

/** Erases the customer: 404 when unknown (or already erased); their leads and sales keep no personal field. */
export async function eraseCustomer(db: Db, ownerId: string, externalId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const c = await trx
      .selectFrom("conversion_customers")
      .select("id")
      .where("owner_id", "=", ownerId)
      .where("external_id", "=", externalId)
      .executeTakeFirst();
    if (!c) throw new DomainError("not_found", "no such customer");
    await trx.updateTable("conversion_leads").set({ metadata: null, customer_id: null }).where("customer_id", "=", c.id).execute();
    await trx.updateTable("conversion_sales").set({ metadata: null, customer_id: null }).where("customer_id", "=", c.id).execute();
    await trx.deleteFrom("conversion_customers").where("id", "=", c.id).execute();
  });
}
