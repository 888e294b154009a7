// Webhook subscriptions (API.md, Webhooks): list, create, edit, activate/deactivate, remove, rotate the
// secret, send a test event, read the delivery log. Business and Enterprise; five per account.
import { randomUUID } from "node:crypto";
import type { Db, Dialect } from "../storage/db.js";
import type { UserRow, WebhookDeliveryRow, WebhookRow } from "../storage/schema.js";
import type { Clock } from "../shared/clock.js";
import { iso } from "../shared/clock.js";
import { DomainError, invalid } from "../shared/errors.js";
import { newId } from "../shared/ids.js";
import { requireCapability } from "../accounts/plans.js";
import { shortUrl } from "../links/public-link.js";
import type { WebhookKind } from "./address-guard.js";
import { type ReceiverCheck, ReceiverRefused } from "./receiver-check.js";
import { type SecretBox, newWebhookSecret } from "./secrets.js";
import type { WebhookDirectory } from "./directory.js";
import type { DeliveryLog } from "./delivery-log.js";
import type { DeliveryResult, WebhookSender } from "./send.js";
import type { LinkClickEvent } from "./payload.js";

/** SPEC.md, Limits. */
export const MAX_WEBHOOKS = 5;
const MAX_NAME = 100;

export interface PublicDelivery {
  id: string;
  event: string;
  at: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

export interface PublicWebhook {
  id: string;
  name: string;
  url: string;
  kind: WebhookKind;
  active: boolean;
  created_at: string;
  last_delivery: PublicDelivery | null;
  /** Events dropped because the webhook's queue was full (a slow or dead receiver). */
  dropped: number;
}

export function publicDelivery(d: Pick<WebhookDeliveryRow, "id" | "event" | "at" | "status_code" | "error" | "duration_ms">): PublicDelivery {
  return { id: d.id, event: d.event, at: iso(d.at) as string, status_code: d.status_code, error: d.error, duration_ms: d.duration_ms };
}

function checkName(raw: string): string {
  const name = raw.trim();
  if (name.length < 1) throw invalid("name", "must not be empty");
  if (name.length > MAX_NAME) throw invalid("name", `must be at most ${MAX_NAME} characters`);
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) throw invalid("name", "must not contain control characters");
  return name;
}

export interface WebhookServiceDeps {
  db: Db;
  dialect: Dialect;
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

  async list(user: UserRow): Promise<PublicWebhook[]> {
    requireCapability(user.plan, "webhooks", "Webhooks");
    const rows = await this.deps.db.selectFrom("webhooks").selectAll().where("owner_id", "=", user.id).orderBy("created_at").orderBy("id").execute();
    return Promise.all(rows.map((r) => this.toPublic(r)));
  }

  async create(user: UserRow, input: { name: string; url: string; kind?: WebhookKind }): Promise<{ webhook: PublicWebhook; secret: string | null }> {
    requireCapability(user.plan, "webhooks", "Webhooks");
    const name = checkName(input.name);
    const kind = input.kind ?? "custom";
    const url = await this.checkUrl(input.url, kind);
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
    };
    await this.deps.db.transaction().execute(async (trx) => {
      // Lock the owner row (PostgreSQL) so two concurrent creations cannot both pass the cap;
      // SQLite runs write transactions one at a time.
      await trx
        .selectFrom("users")
        .select("id")
        .where("id", "=", user.id)
        .$if(this.deps.dialect === "postgres", (q) => q.forUpdate())
        .executeTakeFirst();
      const count = await trx.selectFrom("webhooks").select((eb) => eb.fn.countAll<number>().as("n")).where("owner_id", "=", user.id).executeTakeFirstOrThrow();
      if (Number(count.n) >= MAX_WEBHOOKS) throw new DomainError("limit_reached", `An account can have at most ${MAX_WEBHOOKS} webhooks; remove one first`);
      await trx.insertInto("webhooks").values(row).execute();
    });
    await this.deps.directory.changed(user.id);
    return { webhook: await this.toPublic(row), secret };
  }

  async update(user: UserRow, id: string, input: { name?: string; url?: string; active?: boolean }): Promise<PublicWebhook> {
    requireCapability(user.plan, "webhooks", "Webhooks");
    const row = await this.own(user, id);
    const patch: Partial<WebhookRow> = {};
    if (input.name !== undefined) patch.name = checkName(input.name);
    if (input.url !== undefined) patch.url = await this.checkUrl(input.url, row.kind as WebhookKind);
    if (input.active !== undefined) patch.active = input.active ? 1 : 0;
    if (Object.keys(patch).length === 0) return this.toPublic(row);
    patch.updated_at = this.deps.clock.now();
    await this.deps.db.updateTable("webhooks").set(patch).where("id", "=", id).where("owner_id", "=", user.id).execute();
    if (patch.url !== undefined) this.deps.sender.forget(id);
    await this.deps.directory.changed(user.id);
    return this.toPublic({ ...row, ...patch });
  }

  /** Removal stays possible on any plan: it only takes something away. */
  async remove(user: UserRow, id: string): Promise<void> {
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
  async rotateSecret(user: UserRow, id: string): Promise<{ webhook: PublicWebhook; secret: string }> {
    requireCapability(user.plan, "webhooks", "Webhooks");
    const row = await this.own(user, id);
    if (row.kind !== "custom") throw invalid("kind", `a ${row.kind} webhook has no secret`);
    const secret = newWebhookSecret();
    const updated_at = this.deps.clock.now();
    const secret_enc = this.deps.box.seal(secret, id);
    await this.deps.db.updateTable("webhooks").set({ secret_enc, updated_at }).where("id", "=", id).where("owner_id", "=", user.id).execute();
    await this.deps.directory.changed(user.id);
    return { webhook: await this.toPublic({ ...row, secret_enc, updated_at }), secret };
  }

  /** One test event, delivered at once (active or not), and logged like any delivery. */
  async sendTest(user: UserRow, id: string): Promise<PublicDelivery> {
    requireCapability(user.plan, "webhooks", "Webhooks");
    const row = await this.own(user, id);
    const now = this.deps.clock.now();
    const event: LinkClickEvent = {
      version: 1,
      id: randomUUID(),
      type: "link_click",
      created_at: iso(now) as string,
      test: true,
      link: { id: "test", alias: "example", domain: null, short_url: shortUrl(this.deps.origin, "", "example"), url: "https://example.com/" },
      click: { at: iso(now) as string, country: "US", device: "desktop", os: "Linux", browser: "Firefox", referrer_host: null, bot: false },
    };
    const secret = row.secret_enc === null ? null : this.deps.box.open(row.secret_enc, row.id);
    const result: DeliveryResult = await this.deps.sender.send({ id: row.id, ownerId: row.owner_id, url: row.url, kind: row.kind as WebhookKind, secret }, event);
    await this.deps.deliveryLog.writeNow(result);
    return publicDelivery(result);
  }

  async deliveries(user: UserRow, id: string): Promise<PublicDelivery[]> {
    requireCapability(user.plan, "webhooks", "Webhooks");
    await this.own(user, id);
    const rows = await this.deps.db.selectFrom("webhook_deliveries").selectAll().where("webhook_id", "=", id).orderBy("at", "desc").orderBy("id", "desc").execute();
    return rows.map(publicDelivery);
  }

  /** The caller's webhook; another account's id is not_found, never forbidden (no existence leak). */
  private async own(user: UserRow, id: string): Promise<WebhookRow> {
    const row = await this.deps.db.selectFrom("webhooks").selectAll().where("id", "=", id).where("owner_id", "=", user.id).executeTakeFirst();
    if (!row) throw new DomainError("not_found", "No such webhook");
    return row;
  }

  private async checkUrl(raw: string, kind: WebhookKind): Promise<string> {
    try {
      return (await this.deps.check.check(raw.trim(), kind)).url.href;
    } catch (e) {
      if (e instanceof ReceiverRefused) throw invalid("url", e.message);
      throw e;
    }
  }

  private async toPublic(row: WebhookRow): Promise<PublicWebhook> {
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
    };
  }
}
