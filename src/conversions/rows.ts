// Rows of the conversion tables as the contract shows them (times ISO-8601, metadata parsed).
import type { CustomerRow, LeadRow, RefundRow, SaleRow, TrackedClickRow } from "../storage/conversion-tables.js";
import type { Customer, Lead, Refund, Sale, TrackedClick } from "../contract/conversions.js";

const iso = (ms: number) => new Date(ms).toISOString();

function parsed(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export function customerOf(r: CustomerRow): Customer {
  return {
    id: r.id,
    external_id: r.external_id,
    name: r.name,
    email: r.email,
    click_id: r.click_id,
    link_id: r.link_id,
    destination: r.destination,
    created_at: iso(r.created_at),
  };
}

export function leadOf(r: LeadRow): Lead {
  return {
    id: r.id,
    event_name: r.event_name,
    click_id: r.click_id,
    link_id: r.link_id,
    destination: r.destination,
    metadata: parsed(r.metadata),
    created_at: iso(r.created_at),
  };
}

export function saleOf(r: SaleRow): Sale {
  return {
    id: r.id,
    event_name: r.event_name,
    amount: r.amount,
    currency: r.currency,
    refunded: r.refunded,
    invoice_id: r.invoice_id,
    payment_processor: r.payment_processor,
    click_id: r.click_id,
    link_id: r.link_id,
    destination: r.destination,
    metadata: parsed(r.metadata),
    created_at: iso(r.created_at),
  };
}

export function refundOf(r: RefundRow): Refund {
  return { id: r.id, amount: r.amount, created_at: iso(r.created_at) };
}

export function trackedClickOf(r: TrackedClickRow): TrackedClick {
  return {
    id: r.id,
    link_id: r.link_id,
    destination: r.destination,
    country: r.country,
    device: r.device,
    referrer_host: r.referrer_host,
    at: iso(r.at),
  };
}
