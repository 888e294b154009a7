// Webhook subscriptions (docs/api.md, Webhooks): list, create, edit, activate/deactivate, remove, rotate the
// secret, send a test event, read the delivery log. Business and Enterprise; five per account.
import { randomUUID } from "node:crypto";
import type { Db } from "../storage/db.js";
import { type Cap, type OwnerCaps, countOf } from "../storage/owner-caps.js";
import { type RateEvents, retryAfterSeconds } from "../storage/rate-events.js";
import type { UserRow, WebhookDeliveryRow, WebhookRow } from "../storage/schema.js";
import type { Clock } from "../shared/clock.js";
import { iso } from "../shared/clock.js";
import { DomainError, FieldChecks, invalid } from "../shared/errors.js";
import { newId } from "../shared/ids.js";
import { requireCapability } from "../accounts/plans.js";
import { shortUrl } from "../links/public-link.js";
import { WEBHOOK_EVENTS, type Webhook, type WebhookDelivery, type WebhookEventType, type WebhookKind } from "../contract/webhooks.js";
import { type ReceiverCheck, ReceiverRefused } from "./receiver-check.js";
import { type SecretBox, newWebhookSecret } from "./secrets.js";
import type { WebhookDirectory } from "./directory.js";
import type { DeliveryLog } from "./delivery-log.js";
import type { DeliveryResult, WebhookSender } from "./send.js";
import type { LinkClickEvent } from "./payload.js";
import { MAX_WEBHOOKS } from "../contract/tables.js";
import { managedOwner, resourceOwner } from "../teams/access.js";

/** docs/api.md, Limits. */
export { MAX_WEBHOOKS };
/**
 * Test events one account may send per minute: each is a request to a receiver the account chose, so an
 * unbounded loop would make snip a request cannon; ten a minute is more than anyone debugging a receiver clicks.
 */
export const WEBHOOK_TESTS_PER_MINUTE = 10;
const MINUTE = 60_000;
const MAX_NAME = 100;

export function publicDelivery(d: Omit<WebhookDeliveryRow, "webhook_id">): WebhookDelivery {
  return {
    id: d.id,
    event: d.event,
    at: iso(Number(d.at)) as string,
    status_code: d.status_code,
    error: d.error,
    duration_ms: d.duration_ms,
    test: Number(d.test) === 1,
    payload: d.payload,
  };
}

/** A webhook's (or click stream's) name: trimmed, 1 to 100 characters, no control characters. */
export function checkName(raw: string): string {
  const name = raw.trim();
  if (name.length < 1) throw invalid("name", "must not be empty");
  if (name.length > MAX_NAME) throw invalid("name", `must be at most ${MAX_NAME} characters`);
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) throw invalid("name", "must not contain control characters");
  return name;
}

/** A webhook's events as stored: the registry's order, each once (the schema admits only known ones). */
function eventsText(events: readonly WebhookEventType[]): string {
  if (events.length === 0) throw invalid("events", "must name at least one event");
  return WEBHOOK_EVENTS.filter((e) => events.includes(e)).join(",");
}

/** A row's events (a row made before migration 044 takes link_click). */
function eventsOf(text: string | undefined): WebhookEventType[] {
  return (text ?? "link_click").split(",").filter((e): e is WebhookEventType => (WEBHOOK_EVENTS as readonly string[]).includes(e));
}

export interface WebhookServiceDeps {
  db: Db;
  /** Throttles test events per account. */
  rate: RateEvents;
  /** Keeps MAX_WEBHOOKS exact under concurrent creations. */
  caps: OwnerCaps;
  clock: Clock;
  check: ReceiverCheck;
  box: SecretBox;
  directory: WebhookDirectory;
  sender: WebhookSender;
  deliveryLog: DeliveryLog;
  origin: string;
}

export class WebhookService {
  constructor(private readonly deps: WebhookServiceDeps) {}

  /** WEBHOOK_ALLOW_PRIVATE: receivers on loopback and private networks are accepted. */
  get privateReceivers(): boolean {
    return this.deps.check.allowPrivate;
  }

  /** The actor's webhooks, or with `ownerId` a team owner's (webhooks.manage, docs/roles.md); the owner's plan decides. */
  async list(actor: UserRow, ownerId?: string): Promise<Webhook[]> {
    const { owner } = await managedOwner(this.deps.db, actor, ownerId, "webhooks.manage");
    requireCapability(owner.plan, "webhooks", "Webhooks");
    const rows = await this.deps.db.selectFrom("webhooks").selectAll().where("owner_id", "=", owner.id).orderBy("created_at").orderBy("id").execute();
    return Promise.all(rows.map((r) => this.toPublic(r)));
  }

  /** A webhook of the actor's account, or with `ownerId` of a team owner's (webhooks.manage): the owner's plan and limit apply. */
  async create(
    actor: UserRow,
    input: { name: string; url: string; kind?: WebhookKind; events?: WebhookEventType[] },
    ownerId?: string,
  ): Promise<{ webhook: Webhook; secret: string | null }> {
    const { owner: user } = await managedOwner(this.deps.db, actor, ownerId, "webhooks.manage");
    requireCapability(user.plan, "webhooks", "Webhooks");
    // Both fields are checked before either is refused, so the form can mark every wrong one.
    const checks = new FieldChecks();
    const name = checks.run(() => checkName(input.name)) as string;
    const kind = input.kind ?? "custom";
    const url = (await checks.runAsync(() => this.checkUrl(input.url, kind))) as string;
    checks.throwIfAny();
    const now = this.deps.clock.now();
    const id = newId();
    const secret = kind === "custom" ? newWebhookSecret() : null;
    const row: WebhookRow = {
      id,
      owner_id: user.id,
      name,
      url,
      kind,
      secret_enc: secret === null ? null : this.deps.box.seal(secret, id),
      active: 1,
      dropped: 0,
      created_at: now,
      updated_at: now,
      events: eventsText(input.events ?? ["link_click"]),
    };
    const cap: Cap = {
      limit: MAX_WEBHOOKS,
      count: (trx) =>
        countOf(
          trx
            .selectFrom("webhooks")
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .where("owner_id", "=", user.id),
        ),
      refuse: () => new DomainError("limit_reached", `An account can have at most ${MAX_WEBHOOKS} webhooks; remove one first`),
    };
    await this.deps.caps.add(user.id, cap, (trx) => trx.insertInto("webhooks").values(row).execute());
    await this.deps.directory.changed(user.id);
    return { webhook: await this.toPublic(row), secret };
  }

  async update(actor: UserRow, id: string, input: { name?: string; url?: string; active?: boolean; events?: WebhookEventType[] }): Promise<Webhook> {
    const { row, owner: user } = await this.own(actor, id);
    const patch: Partial<WebhookRow> = {};
    if (input.name !== undefined) patch.name = checkName(input.name);
    if (input.url !== undefined) patch.url = await this.checkUrl(input.url, row.kind as WebhookKind);
    if (input.active !== undefined) patch.active = input.active ? 1 : 0;
    if (input.events !== undefined) patch.events = eventsText(input.events);
    if (Object.keys(patch).length === 0) return this.toPublic(row);
    patch.updated_at = this.deps.clock.now();
    await this.deps.db.updateTable("webhooks").set(patch).where("id", "=", id).where("owner_id", "=", user.id).execute();
    if (patch.url !== undefined) this.deps.sender.forget(id);
    await this.deps.directory.changed(user.id);
    return this.toPublic({ ...row, ...patch });
  }

  /** Removal stays possible on any plan: it only takes something away. */
  async remove(actor: UserRow, id: string): Promise<void> {
    const { owner: user } = await this.own(actor, id, false);
    const res = await this.deps.db.deleteFrom("webhooks").where("id", "=", id).where("owner_id", "=", user.id).executeTakeFirst();
    if (Number(res.numDeletedRows) === 0) throw new DomainError("not_found", "No such webhook");
    this.deps.sender.forget(id);
    await this.deps.directory.changed(user.id);
  }

  /** The owner's plan changed or the account is gone (operator console): its deliveries follow at once, everywhere. */
  async ownerChanged(ownerId: string): Promise<void> {
    await this.deps.directory.changed(ownerId);
  }

  /** A new secret for a custom webhook, shown once; the old one stops signing at once. */
  async rotateSecret(actor: UserRow, id: string): Promise<{ webhook: Webhook; secret: string }> {
    const { row, owner: user } = await this.own(actor, id);
    if (row.kind !== "custom") throw invalid("kind", `a ${row.kind} webhook has no secret`);
    const secret = newWebhookSecret();
    const updated_at = this.deps.clock.now();
    const secret_enc = this.deps.box.seal(secret, id);
    await this.deps.db.updateTable("webhooks").set({ secret_enc, updated_at }).where("id", "=", id).where("owner_id", "=", user.id).execute();
    await this.deps.directory.changed(user.id);
    return { webhook: await this.toPublic({ ...row, secret_enc, updated_at }), secret };
  }

  /** One test event, delivered at once (active or not), and logged like any delivery. */
  async sendTest(actor: UserRow, id: string): Promise<WebhookDelivery> {
    const { row, owner: user } = await this.own(actor, id);
    const now = this.deps.clock.now();
    // Taken (not merely counted) before sending, so concurrent tests cannot all find the last slot free.
    const slot = await this.deps.rate.take(`webhook-test:${user.id}`, now - MINUTE, WEBHOOK_TESTS_PER_MINUTE, now);
    if ("full" in slot) {
      throw new DomainError(
        "rate_limited",
        `At most ${WEBHOOK_TESTS_PER_MINUTE} test events per minute; try again shortly`,
        undefined,
        undefined,
        retryAfterSeconds(slot.full, MINUTE, now),
      );
    }
    const event: LinkClickEvent = {
      version: 1,
      id: randomUUID(),
      type: "link_click",
      created_at: iso(now) as string,
      test: true,
      link: { id: "test", alias: "example", domain: null, short_url: shortUrl(this.deps.origin, "", "example"), url: "https://example.com/", folder_id: null },
      click: {
        at: iso(now) as string,
        country: "US",
        device: "desktop",
        os: "Linux",
        browser: "Firefox",
        referrer_host: null,
        bot: false,
        destination: "default",
        source: "link",
      },
    };
    const secret = row.secret_enc === null ? null : this.deps.box.open(row.secret_enc, row.id);
    const result: DeliveryResult = await this.deps.sender.send(
      { id: row.id, ownerId: row.owner_id, url: row.url, kind: row.kind as WebhookKind, secret, events: eventsOf(row.events) },
      event,
    );
    await this.deps.deliveryLog.writeNow(result);
    return publicDelivery({ ...result, test: result.test ? 1 : 0 });
  }

  async deliveries(actor: UserRow, id: string): Promise<WebhookDelivery[]> {
    await this.own(actor, id);
    const rows = await this.deps.db
      .selectFrom("webhook_deliveries")
      .selectAll()
      .where("webhook_id", "=", id)
      .orderBy("at", "desc")
      .orderBy("id", "desc")
      .execute();
    return rows.map(publicDelivery);
  }

  /**
   * The caller's webhook, or a team owner's with webhooks.manage (a member without it: forbidden); another account's
   * id is not_found, never forbidden (no existence leak). With `capability`, the owner's plan must have webhooks.
   */
  private async own(actor: UserRow, id: string, capability = true): Promise<{ row: WebhookRow; owner: UserRow }> {
    const row = await this.deps.db.selectFrom("webhooks").selectAll().where("id", "=", id).executeTakeFirst();
    const owner = await resourceOwner(this.deps.db, actor, row?.owner_id, "webhooks.manage", "No such webhook");
    if (capability) requireCapability(owner.plan, "webhooks", "Webhooks");
    return { row: row!, owner };
  }

  private async checkUrl(raw: string, kind: WebhookKind): Promise<string> {
    try {
      return (await this.deps.check.check(raw.trim(), kind)).url.href;
    } catch (e) {
      if (e instanceof ReceiverRefused) throw invalid("url", e.message);
      throw e;
    }
  }

  private async toPublic(row: WebhookRow): Promise<Webhook> {
    const last = await this.deps.db
      .selectFrom("webhook_deliveries")
      .selectAll()
      .where("webhook_id", "=", row.id)
      .orderBy("at", "desc")
      .orderBy("id", "desc")
      .limit(1)
      .executeTakeFirst();
    return {
      id: row.id,
      name: row.name,
      url: row.url,
      kind: row.kind as WebhookKind,
      active: row.active === 1,
      created_at: iso(row.created_at) as string,
      last_delivery: last ? publicDelivery(last) : null,
      dropped: Number(row.dropped) + this.deps.deliveryLog.unwrittenDrops(row.id),
      events: eventsOf(row.events),
    };
  }
}
