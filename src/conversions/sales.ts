// recordSale and recordRefund (docs/conversions.md, Sales and refunds): a sale attributed to the customer's click,
// recorded once per (account, invoice_id) by the database's unique index; a refund recorded against a sale by a
// compare-and-set of its refunded sum, so concurrent refunds never take back more than was paid.
import type { Db } from "../storage/db.js";
import { DomainError, invalid } from "../shared/errors.js";
import { newId } from "../shared/ids.js";
import type { Refund, Sale, TrackRefundBody, TrackSaleBody } from "../contract/conversions.js";
import type { SaleRow } from "../storage/conversion-tables.js";
import { checkAmount, checkCurrency, checkMetadata, checkName, optionalText } from "./inputs.js";
import { refundOf, saleOf } from "./rows.js";
import type { EventPublisher } from "../shared/events.js";
import { announce } from "./notices.js";

export interface SaleResult {
  sale: Sale;
  /** false: a sale with this invoice_id was recorded before (`sale` is it, nothing doubled), or this was a refund. */
  created: boolean;
  /** Set when the call recorded a refund (a negative amount). */
  refund: Refund | null;
}

export interface RefundResult {
  sale: Sale;
  /** null: the sale was refunded in full already (nothing recorded). */
  refund: Refund | null;
}

/** Tries a compare-and-set this many times before answering 409 (only under a storm of refunds of one sale). */
const REFUND_TRIES = 50;

/** `events`: where a new sale is announced (sale.created, inside the recording transaction). */
export async function recordSale(db: Db, ownerId: string, input: TrackSaleBody, now: number, events?: EventPublisher): Promise<SaleResult> {
  const externalId = checkName(input.customer_external_id, "customer_external_id", 200);
  const amount = checkAmount(input.amount, "amount", true);
  const currency = checkCurrency(input.currency);
  const eventName = input.event_name === undefined ? "Purchase" : checkName(input.event_name, "event_name", 100);
  const invoiceId = optionalText(input.invoice_id, "invoice_id", 200);
  const processor = input.payment_processor === undefined ? "custom" : checkName(input.payment_processor, "payment_processor", 50);
  const metadata = checkMetadata(input.metadata);
  if (amount < 0) {
    if (invoiceId === null) throw invalid("invoice_id", "a negative amount (a refund) needs the invoice_id of the sale it refunds");
    const sale = await saleByInvoice(db, ownerId, invoiceId);
    if (!sale) throw new DomainError("not_found", "no sale with this invoice_id");
    if (sale.currency !== currency) throw invalid("currency", `the sale of this invoice_id is in ${sale.currency}`);
    const refunded = await recordRefund(db, ownerId, { invoice_id: invoiceId, amount: -amount }, now);
    return { sale: refunded.sale, created: false, refund: refunded.refund };
  }
  const customer = await db
    .selectFrom("conversion_customers")
    .select(["id", "click_id", "link_id", "destination"])
    .where("owner_id", "=", ownerId)
    .where("external_id", "=", externalId)
    .executeTakeFirst();
  if (!customer) throw new DomainError("not_found", "no such customer: record a lead for them first");
  const row = {
    id: newId(),
    owner_id: ownerId,
    customer_id: customer.id,
    click_id: customer.click_id,
    link_id: customer.link_id,
    destination: customer.destination,
    event_name: eventName,
    amount,
    currency,
    invoice_id: invoiceId,
    payment_processor: processor,
    metadata,
    created_at: now,
  };
  return db.transaction().execute(async (trx) => {
    const inserted =
      invoiceId === null
        ? await trx.insertInto("conversion_sales").values(row).returning("id").executeTakeFirst()
        : await trx
            .insertInto("conversion_sales")
            .values(row)
            .onConflict((oc) => oc.columns(["owner_id", "invoice_id"]).doNothing())
            .returning("id")
            .executeTakeFirst();
    const sale = invoiceId === null ? { ...row, refunded: 0 } : await saleByInvoice(trx, ownerId, invoiceId);
    if (!sale) throw new DomainError("conflict", "the sale was removed meanwhile");
    const result = { sale: saleOf(sale), created: inserted !== undefined, refund: null };
    if (result.created) await announce(trx, events, ownerId, now, { sale: result.sale, customerExternalId: externalId });
    return result;
  });
}

function saleByInvoice(db: Db, ownerId: string, invoiceId: string): Promise<SaleRow | undefined> {
  return db.selectFrom("conversion_sales").selectAll().where("owner_id", "=", ownerId).where("invoice_id", "=", invoiceId).executeTakeFirst();
}

/**
 * A refund of `amount` minor units (absent: what is left) against the sale of `invoice_id`: 404 for an unknown
 * invoice, 409 conflict past what is left; a sale refunded in full already answers with `refund: null`.
 */
export async function recordRefund(db: Db, ownerId: string, input: TrackRefundBody, now: number): Promise<RefundResult> {
  const invoiceId = checkName(input.invoice_id, "invoice_id", 200);
  const asked = input.amount === undefined ? null : checkAmount(input.amount, "amount");
  if (asked === 0) throw invalid("amount", "must be more than 0");
  for (let i = 0; i < REFUND_TRIES; i++) {
    const sale = await saleByInvoice(db, ownerId, invoiceId);
    if (!sale) throw new DomainError("not_found", "no sale with this invoice_id");
    const left = sale.amount - sale.refunded;
    if (asked === null && left === 0) return { sale: saleOf(sale), refund: null };
    const amount = asked ?? left;
    if (amount > left) throw new DomainError("conflict", `only ${left} of the sale is left to refund`, undefined, { refundable: left });
    const done = await db.transaction().execute(async (trx) => {
      const moved = await trx
        .updateTable("conversion_sales")
        .set({ refunded: sale.refunded + amount })
        .where("id", "=", sale.id)
        .where("refunded", "=", sale.refunded)
        .executeTakeFirst();
      if (Number(moved.numUpdatedRows) !== 1) return null;
      const refund = { id: newId(), owner_id: ownerId, sale_id: sale.id, amount, created_at: now };
      await trx.insertInto("conversion_refunds").values(refund).execute();
      return refund;
    });
    if (done !== null) return { sale: saleOf({ ...sale, refunded: sale.refunded + amount }), refund: refundOf(done) };
  }
  throw new DomainError("conflict", "the sale is being refunded by other requests: try again");
}
