// The active webhooks of every owner, in memory, so that the redirect path asks one Map whether a click
// has anyone to tell: loaded at start, reloaded per owner on every change of its webhooks, plan, status or
// existence (on the other instances through the storage change feed, LISTEN/NOTIFY on PostgreSQL), and in
// full every minute as a safety net for a lost notification. Each delivery is confirmed against the
// database just before it is sent, so a change stops deliveries at once everywhere, even before the
// notification arrives (or when it cannot: the CLI on SQLite is another process).
import type { Logger } from "pino";
import type { ChangeFeed, Db } from "../storage/db.js";
import { can } from "../accounts/plans.js";
import type { WebhookKind } from "./address-guard.js";
import type { SecretBox } from "./secrets.js";
import type { DeliveryTarget } from "./send.js";

export const WEBHOOK_CHANNEL = "webhook_changed";
const FULL_RELOAD_MS = 60_000;

interface TargetRow {
  id: string;
  owner_id: string;
  url: string;
  kind: string;
  secret_enc: string | null;
  plan: string;
  events: string;
}

export class WebhookDirectory {
  private byOwner = new Map<string, DeliveryTarget[]>();
  /** byOwner's targets that take link_click (the redirect path's map). */
  private clickTargets = new Map<string, DeliveryTarget[]>();
  /** Bumped per owner on every reload, so an older reload finishing late does not win. */
  private readonly generations = new Map<string, number>();
  private fullGeneration = 0;
  private timer: NodeJS.Timeout | null = null;
  /** Confirmations being read, per webhook: deliveries at the same moment share one query. */
  private readonly confirming = new Map<string, Promise<boolean>>();

  constructor(private readonly deps: { db: Db; feed: ChangeFeed; box: SecretBox; log: Logger }) {
    const failed = (err: unknown) => deps.log.warn({ err }, "webhook directory reload failed");
    deps.feed.subscribe(WEBHOOK_CHANNEL, (ownerId) => void this.reloadOwner(ownerId).catch(failed));
    deps.feed.onResync(() => void this.reloadAll().catch(failed));
  }

  /** Owners with at least one active webhook taking link_click on a plan that has webhooks: the redirect path's check. */
  get owners(): ReadonlyMap<string, readonly DeliveryTarget[]> {
    return this.clickTargets;
  }

  /** The owner's active webhooks that take `event` (lead.created, ...). */
  targetsFor(ownerId: string, event: string): DeliveryTarget[] {
    return (this.byOwner.get(ownerId) ?? []).filter((t) => t.events.includes(event));
  }

  /** A link's alias, domain and url (events that carry only its id). */
  linkOf(id: string): Promise<{ id: string; alias: string; domain: string; url: string; folder_id: string | null } | undefined> {
    return this.deps.db.selectFrom("links").select(["id", "alias", "domain", "url", "folder_id"]).where("id", "=", id).executeTakeFirst();
  }

  private setTargets(next: Map<string, DeliveryTarget[]>): void {
    this.byOwner = next;
    const clicks = new Map<string, DeliveryTarget[]>();
    for (const [owner, targets] of next) {
      const taking = targets.filter((t) => t.events.includes("link_click"));
      if (taking.length > 0) clicks.set(owner, taking);
    }
    this.clickTargets = clicks;
  }

  async start(): Promise<void> {
    await this.reloadAll();
    this.timer = setInterval(() => void this.reloadAll().catch((err) => this.deps.log.warn({ err }, "webhook directory reload failed")), FULL_RELOAD_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** After a change to an owner's webhooks: reload here at once, and tell the other instances. */
  async changed(ownerId: string): Promise<void> {
    await this.reloadOwner(ownerId);
    await this.deps.feed.publish(WEBHOOK_CHANNEL, ownerId).catch((err) => this.deps.log.warn({ err }, "webhook change notification failed"));
  }

  async reloadAll(): Promise<void> {
    const gen = ++this.fullGeneration;
    const before = new Map(this.generations);
    const rows = await this.query().execute();
    if (gen !== this.fullGeneration) return;
    const next = new Map<string, DeliveryTarget[]>();
    for (const row of rows) this.add(next, row);
    // An owner reloaded on its own while this ran keeps what that (newer) reload found.
    for (const [owner, g] of this.generations) {
      if (before.get(owner) === g) continue;
      const mine = this.byOwner.get(owner);
      if (mine) next.set(owner, mine);
      else next.delete(owner);
    }
    this.setTargets(next);
  }

  async reloadOwner(ownerId: string): Promise<void> {
    const gen = (this.generations.get(ownerId) ?? 0) + 1;
    this.generations.set(ownerId, gen);
    const rows = await this.query().where("webhooks.owner_id", "=", ownerId).execute();
    if (this.generations.get(ownerId) !== gen) return;
    const next = new Map<string, DeliveryTarget[]>();
    for (const row of rows) this.add(next, row);
    const all = new Map(this.byOwner);
    const targets = next.get(ownerId);
    if (targets) all.set(ownerId, targets);
    else all.delete(ownerId);
    this.setTargets(all);
  }

  /**
   * Whether a queued delivery may still go: the webhook exists and is active, its owner is active on a plan
   * with webhooks. Read from the database (one primary-key join); when the database cannot answer, the
   * in-memory directory decides.
   */
  confirm(target: DeliveryTarget): Promise<boolean> {
    if (!this.byOwner.get(target.ownerId)?.some((t) => t.id === target.id)) return Promise.resolve(false);
    const running = this.confirming.get(target.id);
    if (running) return running;
    const p = this.query()
      .where("webhooks.id", "=", target.id)
      .executeTakeFirst()
      .then(
        (row) => row !== undefined && can(row.plan, "webhooks"),
        (err) => {
          this.deps.log.warn({ err, webhook: target.id }, "webhook delivery not confirmed by the database; the directory decides");
          return this.byOwner.get(target.ownerId)?.some((t) => t.id === target.id) ?? false;
        },
      )
      .finally(() => this.confirming.delete(target.id));
    this.confirming.set(target.id, p);
    return p;
  }

  private query() {
    return this.deps.db
      .selectFrom("webhooks")
      .innerJoin("users", "users.id", "webhooks.owner_id")
      .select(["webhooks.id", "webhooks.owner_id", "webhooks.url", "webhooks.kind", "webhooks.secret_enc", "users.plan", "webhooks.events"])
      .where("webhooks.active", "=", 1)
      .where("users.status", "=", "active")
      .orderBy("webhooks.created_at")
      .orderBy("webhooks.id");
  }

  private add(into: Map<string, DeliveryTarget[]>, row: TargetRow): void {
    if (!can(row.plan, "webhooks")) return;
    const target: DeliveryTarget = {
      id: row.id,
      ownerId: row.owner_id,
      url: row.url,
      kind: row.kind as WebhookKind,
      secret: row.secret_enc === null ? null : this.deps.box.open(row.secret_enc, row.id),
      events: row.events.split(","),
    };
    const list = into.get(row.owner_id);
    if (list) list.push(target);
    else into.set(row.owner_id, [target]);
  }
}
