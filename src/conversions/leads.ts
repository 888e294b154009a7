// recordLead (docs/conversions.md, Leads): a lead for the link of a tracked click, binding the customer to that
// click (first lead wins). Idempotent by the database: one customer per (account, external_id), one lead per
// (customer, event_name); a repeat, however many arrive at once, answers the first lead.
import type { Db } from "../storage/db.js";
import { DomainError } from "../shared/errors.js";
import { newId } from "../shared/ids.js";
import type { Customer, Lead, TrackLeadBody } from "../contract/conversions.js";
import { checkMetadata, checkName, optionalText } from "./inputs.js";
import { customerOf, leadOf } from "./rows.js";
import type { EventPublisher } from "../shared/events.js";
import { announce } from "./notices.js";
import { clickIdTime } from "./tracked-clicks.js";

/** The account a conversion is recorded for: its id and its attribution window in days. */
export interface ConversionOwner {
  id: string;
  attribution_days: number;
}

export interface LeadResult {
  lead: Lead;
  customer: Customer;
  /** false: the same (customer, event_name) was recorded before; `lead` is that first one. */
  created: boolean;
}

/**
 * Writes the clicks this process answered and has not stored yet (the click recorder's buffer: ClickRecorder.writeBuffered),
 * their tracked_clicks rows with them: a lead posted right after its redirect finds its click.
 */
export type PendingClicks = () => Promise<void>;

/** A click id made this long before the lead, or less, may still be in the click writer's buffer (its time prefix says when it was made). */
export const PENDING_CLICK_MS = 10 * 60_000;

/** The click's row, after writing the buffered clicks once when a recent click id (by its time prefix) is not stored yet. */
async function trackedClick(db: Db, owner: ConversionOwner, clickId: string, now: number, pending?: PendingClicks) {
  const find = () => db.selectFrom("tracked_clicks").selectAll().where("id", "=", clickId).where("owner_id", "=", owner.id).executeTakeFirst();
  const click = await find();
  if (click || !pending) return click;
  const made = clickIdTime(clickId);
  // An id that cannot be this process's recent click (an old form, a time long past or ahead) costs no write.
  if (made === null || made < now - PENDING_CLICK_MS || made > now + 60_000) return undefined;
  await pending();
  return find();
}

/** 404 not_found for an unknown or another account's click; 422 attribution_expired past the window. */
export async function findClickForConversion(db: Db, owner: ConversionOwner, clickId: string, now: number, pending?: PendingClicks) {
  const click = await trackedClick(db, owner, clickId, now, pending);
  if (!click) throw new DomainError("not_found", "no such click id");
  if (click.at < now - owner.attribution_days * 86_400_000) {
    throw new DomainError("attribution_expired", `the click is older than the attribution window (${owner.attribution_days} days)`, undefined, {
      attribution_days: owner.attribution_days,
    });
  }
  return click;
}

/** `events`: where a new lead is announced (lead.created, inside the recording transaction); `pending`: see PendingClicks. */
export async function recordLead(
  db: Db,
  owner: ConversionOwner,
  input: TrackLeadBody,
  now: number,
  events?: EventPublisher,
  pending?: PendingClicks,
): Promise<LeadResult> {
  const externalId = checkName(input.customer_external_id, "customer_external_id", 200);
  const eventName = checkName(input.event_name, "event_name", 100);
  const name = optionalText(input.customer_name, "customer_name", 200);
  const email = optionalText(input.customer_email, "customer_email", 320);
  const metadata = checkMetadata(input.metadata);
  const click = await findClickForConversion(db, owner, input.click_id, now, pending);
  return db.transaction().execute(async (trx) => {
    await trx
      .insertInto("conversion_customers")
      .values({
        id: newId(),
        owner_id: owner.id,
        external_id: externalId,
        name,
        email,
        click_id: click.id,
        link_id: click.link_id,
        destination: click.destination,
        created_at: now,
      })
      .onConflict((oc) => oc.columns(["owner_id", "external_id"]).doNothing())
      .execute();
    let customer = await trx
      .selectFrom("conversion_customers")
      .selectAll()
      .where("owner_id", "=", owner.id)
      .where("external_id", "=", externalId)
      .executeTakeFirstOrThrow();
    // Personal fields sent later fill in what the first lead left out; nothing sent, nothing kept.
    if ((name !== null && customer.name !== name) || (email !== null && customer.email !== email)) {
      await trx
        .updateTable("conversion_customers")
        .set({ name: name ?? customer.name, email: email ?? customer.email })
        .where("id", "=", customer.id)
        .execute();
      customer = { ...customer, name: name ?? customer.name, email: email ?? customer.email };
    }
    const inserted = await trx
      .insertInto("conversion_leads")
      .values({
        id: newId(),
        owner_id: owner.id,
        customer_id: customer.id,
        event_name: eventName,
        click_id: click.id,
        link_id: click.link_id,
        destination: click.destination,
        metadata,
        created_at: now,
      })
      .onConflict((oc) => oc.columns(["customer_id", "event_name"]).doNothing())
      .returning("id")
      .executeTakeFirst();
    const lead = await trx
      .selectFrom("conversion_leads")
      .selectAll()
      .where("customer_id", "=", customer.id)
      .where("event_name", "=", eventName)
      .executeTakeFirstOrThrow();
    const result = { lead: leadOf(lead), customer: customerOf(customer), created: inserted !== undefined };
    if (result.created) await announce(trx, events, owner.id, now, { lead: result.lead, customerExternalId: externalId });
    return result;
  });
}
