// An account's click streams (docs/api.md, Click streams): list, create, edit, activate/deactivate, remove.
// Business and Enterprise; five per account. The URL's host is checked like a webhook receiver's, the whole
// URL sealed (its password is never shown again), the delivery status read from the sink and its outbox.
import type { Db } from "../storage/db.js";
import { type Cap, type OwnerCaps, countOf } from "../storage/owner-caps.js";
import type { StreamSinkRow, UserRow } from "../storage/schema.js";
import type { Clock } from "../shared/clock.js";
import { iso } from "../shared/clock.js";
import { DomainError, FieldChecks, invalid } from "../shared/errors.js";
import { newId } from "../shared/ids.js";
import type { SealedBox } from "../shared/secret-box.js";
import { requireCapability } from "../accounts/plans.js";
import { managedOwner, resourceOwner } from "../teams/access.js";
import type { ReceiverCheck } from "../webhooks/receiver-check.js";
import { checkName } from "../webhooks/webhooks.js";
import type { Stream, StreamKind } from "../contract/streams.js";
import { BrokerUrlRefused, checkBrokerHost, parseBrokerUrl, redactedUrl } from "./stream-urls.js";
import { MAX_STREAMS } from "../contract/broker-kinds.js";

export { MAX_STREAMS };
export interface StreamServiceDeps {
  db: Db;
  caps: OwnerCaps;
  clock: Clock;
  check: ReceiverCheck;
  box: SealedBox;
}

export class StreamService {
  constructor(private readonly deps: StreamServiceDeps) {}

  get privateReceivers(): boolean {
    return this.deps.check.allowPrivate;
  }

  /** The actor's streams, or with `ownerId` a team owner's (webhooks.manage, docs/roles.md); the owner's plan decides. */
  async list(actor: UserRow, ownerId?: string): Promise<Stream[]> {
    const { owner } = await managedOwner(this.deps.db, actor, ownerId, "webhooks.manage");
    requireCapability(owner.plan, "streams", "Click streams");
    const rows = await this.deps.db.selectFrom("stream_sinks").selectAll().where("owner_id", "=", owner.id).orderBy("created_at").orderBy("id").execute();
    return Promise.all(rows.map((r) => this.toPublic(r)));
  }

  /** A stream of the actor's account, or with `ownerId` of a team owner's (webhooks.manage): the owner's plan and limit apply. */
  async create(actor: UserRow, input: { name: string; kind: StreamKind; url: string }, ownerId?: string): Promise<Stream> {
    const { owner: user } = await managedOwner(this.deps.db, actor, ownerId, "webhooks.manage");
    requireCapability(user.plan, "streams", "Click streams");
    const checks = new FieldChecks();
    const name = checks.run(() => checkName(input.name)) as string;
    const url = (await checks.runAsync(() => this.checkUrl(input.url, input.kind))) as URL;
    checks.throwIfAny();
    const now = this.deps.clock.now();
    const id = newId();
    const row = {
      id,
      owner_id: user.id,
      kind: input.kind,
      name,
      url: redactedUrl(url),
      url_enc: this.deps.box.seal(url.href, id),
      active: 1,
      lease_owner: null,
      last_ok_at: null,
      last_error: null,
      last_error_at: null,
      created_at: now,
      updated_at: now,
    };
    const cap: Cap = {
      limit: MAX_STREAMS,
      count: (trx) =>
        countOf(
          trx
            .selectFrom("stream_sinks")
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .where("owner_id", "=", user.id),
        ),
      refuse: () => new DomainError("limit_reached", `An account can have at most ${MAX_STREAMS} click streams; remove one first`),
    };
    await this.deps.caps.add(user.id, cap, (trx) => trx.insertInto("stream_sinks").values(row).execute());
    return this.toPublic((await this.own(actor, id)).row);
  }

  async update(actor: UserRow, id: string, input: { name?: string; url?: string; active?: boolean }): Promise<Stream> {
    const { row, owner: user } = await this.own(actor, id);
    const patch: { name?: string; url?: string; url_enc?: string; active?: number; updated_at?: number } = {};
    if (input.name !== undefined) patch.name = checkName(input.name);
    if (input.url !== undefined) {
      const url = await this.checkUrl(input.url, row.kind as StreamKind);
      patch.url = redactedUrl(url);
      patch.url_enc = this.deps.box.seal(url.href, id);
    }
    if (input.active !== undefined) patch.active = input.active ? 1 : 0;
    if (Object.keys(patch).length === 0) return this.toPublic(row);
    // Never the same updated_at twice: publishers make a new connection when it changes.
    patch.updated_at = Math.max(this.deps.clock.now(), Number(row.updated_at) + 1);
    await this.deps.db.updateTable("stream_sinks").set(patch).where("id", "=", id).where("owner_id", "=", user.id).execute();
    // A stream turned off keeps nothing waiting: its events would be stale when it comes back.
    if (patch.active === 0) await this.deps.db.deleteFrom("stream_outbox").where("sink_id", "=", id).execute();
    return this.toPublic((await this.own(actor, id)).row);
  }

  /** Removal stays possible on any plan: it only takes something away. Its waiting events go with it. */
  async remove(actor: UserRow, id: string): Promise<void> {
    const { owner: user } = await this.own(actor, id, false);
    await this.deps.db.deleteFrom("stream_outbox").where("sink_id", "=", id).execute();
    const res = await this.deps.db.deleteFrom("stream_sinks").where("id", "=", id).where("owner_id", "=", user.id).executeTakeFirst();
    if (Number(res.numDeletedRows) === 0) throw new DomainError("not_found", "No such click stream");
  }

  /**
   * The caller's stream, or a team owner's with webhooks.manage (a member without it: forbidden); another account's
   * id is not_found, never forbidden (no existence leak). With `capability`, the owner's plan must have streams.
   */
  private async own(actor: UserRow, id: string, capability = true): Promise<{ row: StreamSinkRow; owner: UserRow }> {
    const row = await this.deps.db.selectFrom("stream_sinks").selectAll().where("id", "=", id).executeTakeFirst();
    const owner = await resourceOwner(this.deps.db, actor, row?.owner_id ?? undefined, "webhooks.manage", "No such click stream");
    if (capability) requireCapability(owner.plan, "streams", "Click streams");
    return { row: row!, owner };
  }

  private async checkUrl(raw: string, kind: StreamKind): Promise<URL> {
    try {
      const url = parseBrokerUrl(raw.trim(), kind);
      await checkBrokerHost(this.deps.check, url);
      return url;
    } catch (e) {
      if (e instanceof BrokerUrlRefused) throw invalid("url", e.message);
      throw e;
    }
  }

  private async toPublic(row: StreamSinkRow): Promise<Stream> {
    const n = await this.deps.db
      .selectFrom("stream_outbox")
      .select((eb) => eb.fn.sum<number>("n").as("n"))
      .where("sink_id", "=", row.id)
      .executeTakeFirstOrThrow();
    return {
      id: row.id,
      name: row.name,
      kind: row.kind as StreamKind,
      url: row.url,
      active: Number(row.active) === 1,
      created_at: iso(Number(row.created_at)) as string,
      status: {
        delivered: Number(row.delivered),
        failed: Number(row.failed),
        backlog: Number(n.n ?? 0),
        full: Number(row.full) === 1,
        last_ok_at: iso(row.last_ok_at === null ? null : Number(row.last_ok_at)),
        last_error: row.last_error,
        last_error_at: iso(row.last_error_at === null ? null : Number(row.last_error_at)),
      },
    };
  }
}
