// The lead.created and sale.created events (docs/webhooks.md, Events; docs/stream.md): published inside the
// transaction that records the conversion, once per conversion (a repeat answered with the first publishes nothing),
// with the link and the conversion as receivers get them: no customer name or email, ever.
import type { Db } from "../storage/db.js";
import type { EventPublisher } from "../shared/events.js";
import type { Lead, Sale } from "../contract/conversions.js";

export async function announce(
  trx: Db,
  events: EventPublisher | undefined,
  ownerId: string,
  at: number,
  conversion: { lead: Lead; customerExternalId: string } | { sale: Sale; customerExternalId: string },
): Promise<void> {
  if (!events) return;
  const linkId = "lead" in conversion ? conversion.lead.link_id : conversion.sale.link_id;
  const link = await trx.selectFrom("links").select(["id", "alias", "domain", "url", "folder_id"]).where("id", "=", linkId).executeTakeFirst();
  if (!link) return;
  const customer = { customer_external_id: conversion.customerExternalId };
  if ("lead" in conversion) {
    const { link_id: _l, ...lead } = conversion.lead;
    await events.publish("lead.created", { ownerId, within: trx, at, link, data: { lead: { ...lead, ...customer } } });
  } else {
    const { link_id: _l, refunded: _r, ...sale } = conversion.sale;
    await events.publish("sale.created", { ownerId, within: trx, at, link, data: { sale: { ...sale, ...customer } } });
  }
}
