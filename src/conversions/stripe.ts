// The Stripe integration (docs/conversions.md, Stripe): one webhook endpoint per account at an unguessable address,
// its signing secret sealed at rest and never shown; each delivery verified with the stripe library (signature and
// Stripe's timestamp tolerance), then checkout.session.completed becomes a lead and a sale, invoice.paid a sale,
// charge.refunded a refund. An event id is processed once per account: a replay changes nothing.
import type { EventPublisher } from "../shared/events.js";
import { createHash, randomBytes } from "node:crypto";
import Stripe from "stripe";
import type { Logger } from "pino";
import type { Db } from "../storage/db.js";
import type { Clock } from "../shared/clock.js";
import type { UserRow } from "../storage/schema.js";
import type { SealedBox } from "../shared/secret-box.js";
import { DomainError, invalid } from "../shared/errors.js";
import { can, requireCapability } from "../accounts/plans.js";
import { isUniqueViolation } from "../storage/unique-violation.js";
import { type ConversionOwner, type PendingClicks, recordLead } from "./leads.js";
import { recordRefund, recordSale } from "./sales.js";
import { DEFAULT_ATTRIBUTION_DAYS, MAX_AMOUNT } from "./inputs.js";

/** The address's path before its token. */
export const STRIPE_WEBHOOK_PATH = "/api/integrations/stripe/webhook";
/** Largest event body read (Stripe's events are a few kB; a checkout session with many line items stays far below). */
export const MAX_STRIPE_EVENT_BYTES = 256 * 1024;
/** Seconds between Stripe signing an event and its arrival past which it is refused (Stripe's own default). */
export const STRIPE_TOLERANCE_S = 300;

/** What the dashboard sees of the endpoint: never the secret. */
export interface StripeEndpointView {
  endpoint_url: string;
  created_at: string;
  updated_at: string;
}

/** What became of a delivery (answered 200 in every case but a refused signature or token). */
/** A claim on an event still "processing" after this long belongs to a process that died mid-way. */
const STALE_CLAIM_MS = 60_000;

export type StripeOutcome = "lead" | "sale" | "lead_and_sale" | "refund" | "duplicate" | "ignored";

export interface StripeDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  /** Seals the token and the signing secret, bound to the owner's id. */
  box: SealedBox;
  /** BASE_URL's origin: the endpoint's address is on the main host. */
  origin: string;
  /** Where new leads and sales are announced (lead.created, sale.created). */
  events?: EventPublisher;
  /** Writes the buffered clicks: a checkout right after its redirect finds its click id (leads.ts, PendingClicks). */
  pendingClicks?: PendingClicks;
}

const tokenHash = (token: string) => createHash("sha256").update(token).digest("hex");
const TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;
/** Stripe's signing secrets: whsec_ and base64-ish characters. */
const SECRET_RE = /^whsec_[A-Za-z0-9+/=_-]{16,200}$/;

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | null => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : null);
/** A non-empty string of at most `max` characters, else null (a hostile event's odd field is treated as absent). */
const str = (v: unknown, max = 200): string | null => (typeof v === "string" && v.length > 0 && v.length <= max ? v : null);
/** An id Stripe names an object by: a string, or an expanded object's id. */
const idOf = (v: unknown): string | null => str(v) ?? str(obj(v)?.id);
const amountOf = (v: unknown): number | null => (typeof v === "number" && Number.isSafeInteger(v) && v >= 0 && v <= MAX_AMOUNT ? v : null);

export class StripeIntegration {
  constructor(private readonly deps: StripeDeps) {}

  private view(row: { owner_id: string; token_sealed: string; created_at: number; updated_at: number }): StripeEndpointView {
    const token = this.deps.box.open(row.token_sealed, row.owner_id);
    if (token === null) throw new DomainError("internal_error", "The Stripe endpoint's address cannot be read (SESSION_SECRET changed?): set it up again");
    return {
      endpoint_url: `${this.deps.origin}${STRIPE_WEBHOOK_PATH}/${token}`,
      created_at: new Date(Number(row.created_at)).toISOString(),
      updated_at: new Date(Number(row.updated_at)).toISOString(),
    };
  }

  /** Sets (or replaces) the signing secret; the address stays the same once made. Business and up. */
  async put(owner: UserRow, signingSecret: string): Promise<StripeEndpointView> {
    if (owner.status !== "active") throw new DomainError("account_inactive", "This account is suspended");
    requireCapability(owner.plan, "conversions", "The Stripe integration");
    const secret = signingSecret.trim();
    if (!SECRET_RE.test(secret)) throw invalid("signing_secret", "must be the endpoint's signing secret from Stripe (whsec_...)");
    const now = this.deps.clock.now();
    const sealedSecret = this.deps.box.seal(secret, owner.id);
    const token = randomBytes(32).toString("base64url");
    await this.deps.db
      .insertInto("stripe_endpoints")
      .values({
        owner_id: owner.id,
        token_hash: tokenHash(token),
        token_sealed: this.deps.box.seal(token, owner.id),
        secret_sealed: sealedSecret,
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.column("owner_id").doUpdateSet({ secret_sealed: sealedSecret, updated_at: now }))
      .execute();
    return this.get(owner);
  }

  /** The endpoint's address; 404 when none is set up. */
  async get(owner: UserRow): Promise<StripeEndpointView> {
    const row = await this.deps.db
      .selectFrom("stripe_endpoints")
      .select(["owner_id", "token_sealed", "created_at", "updated_at"])
      .where("owner_id", "=", owner.id)
      .executeTakeFirst();
    if (!row) throw new DomainError("not_found", "No Stripe endpoint is set up");
    return this.view(row);
  }

  /** Removes the endpoint: its address answers 404 from then on. 404 when there was none. */
  async remove(owner: UserRow): Promise<void> {
    const r = await this.deps.db.deleteFrom("stripe_endpoints").where("owner_id", "=", owner.id).executeTakeFirst();
    if (Number(r.numDeletedRows) === 0) throw new DomainError("not_found", "No Stripe endpoint is set up");
  }

  /**
   * One delivery: 400 invalid_request for a body that is no event, 404 for an unknown token, 400 invalid_signature for a signature that does not verify or a
   * timestamp outside Stripe's tolerance (nothing recorded); otherwise what the event became.
   */
  async receive(token: string, rawBody: Buffer, signature: string | undefined): Promise<StripeOutcome> {
    // Only the shape is looked at before the signature: an event is a JSON object with an id and a type.
    let shape: unknown;
    try {
      shape = JSON.parse(rawBody.toString("utf8"));
    } catch {
      throw new DomainError("invalid_request", "The body is not JSON");
    }
    const parsed = obj(shape);
    if (!parsed || str(parsed.id) === null || str(parsed.type, 100) === null) throw invalid("body", "must be a Stripe event (an object with an id and a type)");
    if (!TOKEN_RE.test(token)) throw new DomainError("not_found", "No such Stripe endpoint");
    const endpoint = await this.deps.db
      .selectFrom("stripe_endpoints")
      .innerJoin("users", "users.id", "stripe_endpoints.owner_id")
      .select(["stripe_endpoints.owner_id", "stripe_endpoints.secret_sealed", "users.plan", "users.status", "users.attribution_days"])
      .where("stripe_endpoints.token_hash", "=", tokenHash(token))
      .executeTakeFirst();
    if (!endpoint) throw new DomainError("not_found", "No such Stripe endpoint");
    const secret = this.deps.box.open(endpoint.secret_sealed, endpoint.owner_id);
    if (secret === null) throw new DomainError("invalid_signature", "The endpoint's signing secret cannot be read: set it up again");
    if (signature === undefined || signature.length > 2048) throw new DomainError("invalid_signature", "Missing or malformed Stripe-Signature header");
    let event: Stripe.Event;
    try {
      event = Stripe.webhooks.constructEvent(rawBody, signature, secret, STRIPE_TOLERANCE_S, undefined, this.deps.clock.now());
    } catch (err) {
      const outside = err instanceof Error && /tolerance/i.test(err.message);
      throw new DomainError("invalid_signature", outside ? "The event was signed too long ago (Stripe's tolerance)" : "The Stripe-Signature does not match");
    }
    const eventId = str(event.id);
    const type = str(event.type, 100);
    if (eventId === null || type === null) return "ignored";
    // A plan below Business or a suspended account: the delivery is acknowledged and nothing is recorded.
    const allowed = endpoint.status === "active" && can(endpoint.plan, "conversions");
    const owner = endpoint.owner_id;
    const now = this.deps.clock.now();
    if (!(await this.claim(owner, eventId, type, now))) return "duplicate";
    let outcome: StripeOutcome = "ignored";
    try {
      const data = obj(obj(event.data)?.object) ?? {};
      if (allowed) outcome = await this.apply({ id: owner, attribution_days: Number(endpoint.attribution_days) || DEFAULT_ATTRIBUTION_DAYS }, type, data, now);
    } catch (err) {
      // A conversion the store refuses (an unknown or expired click id, a sale before any lead): nothing to
      // retry, so Stripe is told it arrived. Anything else gives the id back for Stripe's retry.
      if (!(err instanceof DomainError) || err.code === "internal_error") {
        await this.deps.db.deleteFrom("stripe_events").where("owner_id", "=", owner).where("event_id", "=", eventId).execute();
        throw err;
      }
      this.deps.log.info({ owner, event: eventId, type, code: err.code }, "Stripe event not recorded: %s", err.message);
    }
    await this.deps.db.updateTable("stripe_events").set({ outcome }).where("owner_id", "=", owner).where("event_id", "=", eventId).execute();
    return outcome;
  }

  /**
   * Claims the event's id: a replay, or the same event delivered twice at once, finds it taken. A claim left
   * "processing" for longer than STALE_CLAIM_MS was a process that died mid-way: Stripe's retry takes it over (one
   * retry wins the conditional update) and records the event, which the store's unique indexes keep from counting twice.
   */
  private async claim(owner: string, eventId: string, type: string, now: number): Promise<boolean> {
    try {
      await this.deps.db.insertInto("stripe_events").values({ owner_id: owner, event_id: eventId, type, outcome: "processing", at: now }).execute();
      return true;
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
    const taken = await this.deps.db
      .updateTable("stripe_events")
      .set({ at: now })
      .where("owner_id", "=", owner)
      .where("event_id", "=", eventId)
      .where("outcome", "=", "processing")
      .where("at", "<", now - STALE_CLAIM_MS)
      .executeTakeFirst();
    return Number(taken.numUpdatedRows) === 1;
  }

  private apply(owner: ConversionOwner, type: string, data: Obj, now: number): Promise<StripeOutcome> {
    if (type === "checkout.session.completed" || type === "checkout.session.async_payment_succeeded") return this.checkout(owner, data, now);
    if (type === "invoice.paid") return this.invoicePaid(owner.id, data, now);
    if (type === "charge.refunded") return this.chargeRefunded(owner.id, data, now);
    return Promise.resolve("ignored");
  }

  /** The account's customer a Stripe customer paid as (bound by an earlier checkout), or null. */
  private async boundCustomer(owner: string, stripeCustomer: string | null): Promise<string | null> {
    if (stripeCustomer === null) return null;
    const row = await this.deps.db
      .selectFrom("stripe_customers")
      .select("external_id")
      .where("owner_id", "=", owner)
      .where("stripe_customer_id", "=", stripeCustomer)
      .executeTakeFirst();
    return row?.external_id ?? null;
  }

  private async bind(owner: string, stripeCustomer: string | null, externalId: string, now: number): Promise<void> {
    if (stripeCustomer === null) return;
    await this.deps.db
      .insertInto("stripe_customers")
      .values({ owner_id: owner, stripe_customer_id: stripeCustomer, external_id: externalId, created_at: now })
      .onConflict((oc) => oc.columns(["owner_id", "stripe_customer_id"]).doNothing())
      .execute();
  }

  private async customerExists(owner: string, externalId: string): Promise<boolean> {
    const row = await this.deps.db
      .selectFrom("conversion_customers")
      .select("id")
      .where("owner_id", "=", owner)
      .where("external_id", "=", externalId)
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * A completed checkout: the click id from client_reference_id or metadata.snip_click_id makes a lead for the
   * customer (metadata.snip_customer_id, else the Stripe customer, else the session); a paid amount a sale,
   * keyed by its invoice, else its payment intent, else the session (so invoice.paid of the same invoice and a
   * replay add nothing).
   */
  private async checkout(account: ConversionOwner, s: Obj, now: number): Promise<StripeOutcome> {
    const owner = account.id;
    const metadata = obj(s.metadata) ?? {};
    const clickId = str(s.client_reference_id, 100) ?? str(metadata.snip_click_id, 100);
    const stripeCustomer = idOf(s.customer);
    const externalId = str(metadata.snip_customer_id) ?? (await this.boundCustomer(owner, stripeCustomer)) ?? stripeCustomer ?? str(s.id);
    if (externalId === null) return "ignored";
    let lead = false;
    if (clickId !== null) {
      const details = obj(s.customer_details) ?? {};
      const result = await recordLead(
        this.deps.db,
        account,
        {
          click_id: clickId,
          customer_external_id: externalId,
          event_name: "Checkout",
          customer_name: str(details.name),
          customer_email: str(details.email, 320),
        },
        now,
        this.deps.events,
        this.deps.pendingClicks,
      );
      lead = result.created;
    } else if (!(await this.customerExists(owner, externalId))) return "ignored";
    await this.bind(owner, stripeCustomer, externalId, now);
    const amount = amountOf(s.amount_total);
    const currency = str(s.currency, 10);
    const paid = s.payment_status === "paid";
    const invoice = idOf(s.invoice) ?? idOf(s.payment_intent) ?? str(s.id);
    if (!paid || amount === null || amount === 0 || currency === null || invoice === null) return lead ? "lead" : "ignored";
    const sale = await recordSale(
      this.deps.db,
      owner,
      { customer_external_id: externalId, amount, currency, invoice_id: invoice, payment_processor: "stripe", event_name: "Purchase" },
      now,
      this.deps.events,
    );
    return lead && sale.created ? "lead_and_sale" : sale.created ? "sale" : lead ? "lead" : "ignored";
  }

  /** A paid invoice (a subscription's renewals): a sale of the customer it was bound to, keyed by the invoice. */
  private async invoicePaid(owner: string, inv: Obj, now: number): Promise<StripeOutcome> {
    const metadata = obj(inv.metadata) ?? {};
    const subscriptionMetadata = obj(obj(inv.subscription_details)?.metadata) ?? {};
    const stripeCustomer = idOf(inv.customer);
    const externalId = str(metadata.snip_customer_id) ?? str(subscriptionMetadata.snip_customer_id) ?? (await this.boundCustomer(owner, stripeCustomer));
    const amount = amountOf(inv.amount_paid);
    const currency = str(inv.currency, 10);
    const invoice = str(inv.id);
    if (externalId === null || amount === null || amount === 0 || currency === null || invoice === null) return "ignored";
    if (!(await this.customerExists(owner, externalId))) return "ignored";
    const sale = await recordSale(
      this.deps.db,
      owner,
      { customer_external_id: externalId, amount, currency, invoice_id: invoice, payment_processor: "stripe", event_name: "Invoice paid" },
      now,
      this.deps.events,
    );
    return sale.created ? "sale" : "ignored";
  }

  /**
   * A refunded charge: refunds its sale (found by the charge's invoice, else its payment intent) up to the
   * charge's amount_refunded, which Stripe reports as a running total: what is already refunded is not again.
   */
  private async chargeRefunded(owner: string, charge: Obj, now: number): Promise<StripeOutcome> {
    const refundedTotal = amountOf(charge.amount_refunded);
    if (refundedTotal === null || refundedTotal === 0) return "ignored";
    for (const key of [idOf(charge.invoice), idOf(charge.payment_intent)]) {
      if (key === null) continue;
      const sale = await this.deps.db
        .selectFrom("conversion_sales")
        .select(["amount", "refunded"])
        .where("owner_id", "=", owner)
        .where("invoice_id", "=", key)
        .executeTakeFirst();
      if (!sale) continue;
      const more = Math.min(refundedTotal, Number(sale.amount)) - Number(sale.refunded);
      if (more <= 0) return "ignored";
      await recordRefund(this.deps.db, owner, { invoice_id: key, amount: more }, now);
      return "refund";
    }
    return "ignored";
  }
}
