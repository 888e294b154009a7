// Shared statistics (docs/sharing.md): the owner of a link, a tag or a folder publishes its statistics at an
// unguessable address, optionally behind a password and until a date, and revokes it at any time. A visit reads the
// share's row every time (a revoked or expired share answers 404 at once on every instance); the statistics
// themselves are the owner's account analytics filtered to what is shared, kept for a minute per share and range.
import { LRUCache } from "lru-cache";
import type { Analytics } from "../contract/analytics.js";
import { type CreateShareInput, MAX_SHARE_PASSWORD, MAX_SHARES_PER_OWNER, SHARE_PANELS, type Share, type SharePanel } from "../contract/shares.js";
import type { AccountAnalytics } from "../analytics/account-analytics.js";
import { can, requireCapability } from "../accounts/plans.js";
import { hashPassword, verifyPassword } from "../accounts/passwords.js";
import { shortUrl } from "../links/public-link.js";
import type { KeyFolders } from "../links/key-folders.js";
import { iso, type Clock } from "../shared/clock.js";
import { DomainError, invalid } from "../shared/errors.js";
import { hmacHex, newId, randomToken, safeEqual, sha256Hex } from "../shared/ids.js";
import type { SealedBox } from "../shared/secret-box.js";
import type { Db } from "../storage/db.js";
import { type OwnerCaps, type Trx, countOf } from "../storage/owner-caps.js";
import { type RateEvents, retryAfterSeconds } from "../storage/rate-events.js";
import type { ShareRow, UserRow } from "../storage/schema.js";
import { managedOwner, ownerAccess, requireMay } from "../teams/access.js";

export interface ShareDeps {
  db: Db;
  caps: OwnerCaps;
  clock: Clock;
  rate: RateEvents;
  /** BASE_URL's origin: the shared page's address. */
  origin: string;
  /** Seals each token so that its owner can copy the address again. */
  box: SealedBox;
  /** Keys the cookie of a share whose password was given (the instance's session secret). */
  secret: string;
  analytics: Pick<AccountAnalytics, "read">;
}

/** The ranges a shared page offers, and its default. */
export const SHARE_RANGES = ["7d", "30d", "90d", "12mo"] as const;
export type ShareRange = (typeof SHARE_RANGES)[number];

/** Wrong passwords per share and address in PASSWORD_WINDOW_MS. */
export const SHARE_PASSWORD_FAILURES = 10;
export const SHARE_PASSWORD_WINDOW_MS = 15 * 60_000;
/** How long a browser that gave the password keeps seeing the page. */
export const SHARE_COOKIE_SECONDS = 12 * 3600;
/** How long a share's statistics for one range are kept before they are read again. */
const STATS_TTL_MS = 60_000;

/** A share a visit found: the row and its owner. */
export interface OpenShare {
  row: ShareRow;
  owner: UserRow;
  name: string;
  panels: SharePanel[];
}

const notFound = () => new DomainError("not_found", "No such share");

function panelsOf(text: string): SharePanel[] {
  const stored = JSON.parse(text) as string[];
  return SHARE_PANELS.filter((p) => stored.includes(p));
}

export class ShareService {
  private readonly stats = new LRUCache<string, { at: number; value: Analytics }>({ max: 2000 });

  constructor(private readonly deps: ShareDeps) {}

  private url(row: Pick<ShareRow, "id" | "token_sealed">): string {
    const token = this.deps.box.open(row.token_sealed, row.id);
    // A token that cannot be opened (SESSION_SECRET changed): the page still works for whoever holds it.
    return token === null ? "" : `${this.deps.origin}/share/${token}`;
  }

  private async nameOf(row: Pick<ShareRow, "link_id" | "tag_id" | "folder_id">): Promise<string> {
    const { db, origin } = this.deps;
    if (row.link_id !== null) {
      const l = await db.selectFrom("links").select(["domain", "alias"]).where("id", "=", row.link_id).executeTakeFirst();
      return l ? shortUrl(origin, l.domain, l.alias) : "";
    }
    if (row.tag_id !== null) return (await db.selectFrom("tags").select("name").where("id", "=", row.tag_id).executeTakeFirst())?.name ?? "";
    return (
      (
        await db
          .selectFrom("folders")
          .select("name")
          .where("id", "=", row.folder_id ?? "")
          .executeTakeFirst()
      )?.name ?? ""
    );
  }

  private async present(row: ShareRow): Promise<Share> {
    return {
      id: row.id,
      url: this.url(row),
      link_id: row.link_id,
      tag: row.tag_id,
      folder_id: row.folder_id,
      name: await this.nameOf(row),
      panels: panelsOf(row.panels),
      has_password: row.password_hash !== null,
      expires_at: row.expires_at === null ? null : iso(Number(row.expires_at)),
      created_at: iso(Number(row.created_at)),
    };
  }

  /**
   * The owner's shares, newest first (`link_id`: only that link's); every role that reads statistics. `folders`: an
   * API key limited to folders sees only the shares of its folders and of links in them (links/key-folders.ts).
   */
  async list(actor: UserRow, ownerId?: string, linkId?: string, folders: KeyFolders = null): Promise<Share[]> {
    const { owner } = await managedOwner(this.deps.db, actor, ownerId, "stats.view");
    if (folders !== null && folders.length === 0) return [];
    let q = this.deps.db.selectFrom("shares").selectAll().where("owner_id", "=", owner.id);
    if (linkId !== undefined) q = q.where("link_id", "=", linkId);
    if (folders !== null)
      q = q.where((eb) =>
        eb.or([
          eb("folder_id", "in", folders),
          eb("link_id", "in", eb.selectFrom("links").select("id").where("owner_id", "=", owner.id).where("folder_id", "in", folders)),
        ]),
      );
    const rows = await q.orderBy("created_at", "desc").orderBy("id").execute();
    return Promise.all(rows.map((r) => this.present(r)));
  }

  /**
   * Publishes a link's, a tag's or a folder's statistics (Business and up; a role that edits links). `folders`: an
   * API key limited to folders shares only those folders and links in them, never a tag (whose links go anywhere).
   */
  async create(actor: UserRow, input: CreateShareInput, ownerId?: string, folders: KeyFolders = null): Promise<Share> {
    const { db, clock } = this.deps;
    const { owner } = await managedOwner(db, actor, ownerId, "links.edit");
    requireCapability(owner.plan, "shares", "Shared statistics");
    const given = (["link_id", "tag", "folder_id"] as const).filter((k) => input[k] !== undefined);
    if (given.length !== 1) throw invalid("link_id", "Give exactly one of link_id, tag and folder_id");
    const now = clock.now();
    const target = await this.target(owner.id, input, folders);
    let expiresAt: number | null = null;
    if (input.expires_at !== undefined) {
      expiresAt = Date.parse(input.expires_at);
      if (!Number.isFinite(expiresAt) || !/^\d{4}-\d{2}-\d{2}T/.test(input.expires_at)) throw invalid("expires_at", "Use an ISO date and time");
      if (expiresAt <= now) throw invalid("expires_at", "The end date must be in the future");
    }
    if (input.password !== undefined && ([...input.password].length < 1 || [...input.password].length > MAX_SHARE_PASSWORD))
      throw invalid("password", `A password has 1 to ${MAX_SHARE_PASSWORD} characters`);
    const id = newId();
    const token = randomToken(24);
    const row: ShareRow = {
      id,
      owner_id: owner.id,
      token_hash: sha256Hex(token),
      token_sealed: this.deps.box.seal(token, id),
      link_id: target.link_id,
      tag_id: target.tag_id,
      folder_id: target.folder_id,
      password_hash: input.password === undefined ? null : await hashPassword(input.password),
      expires_at: expiresAt,
      panels: JSON.stringify(input.panels === undefined ? SHARE_PANELS : SHARE_PANELS.filter((p) => input.panels?.includes(p))),
      created_by: actor.id,
      created_at: now,
    };
    const cap = {
      limit: MAX_SHARES_PER_OWNER,
      count: (trx: Trx) =>
        countOf(
          trx
            .selectFrom("shares")
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .where("owner_id", "=", owner.id),
        ),
      refuse: () => new DomainError("limit_reached", `An account has at most ${MAX_SHARES_PER_OWNER} shared pages; revoke some first`),
    };
    await this.deps.caps.add(owner.id, cap, (trx) => trx.insertInto("shares").values(row).execute());
    return this.present(row);
  }

  /**
   * What is shared, checked to be the owner's (and in the key's folders): another account's id, or a link or folder
   * outside the key's folders, is refused as one that does not exist.
   */
  private async target(ownerId: string, input: CreateShareInput, folders: KeyFolders): Promise<Pick<ShareRow, "link_id" | "tag_id" | "folder_id">> {
    const { db } = this.deps;
    if (input.link_id !== undefined) {
      const l = await db.selectFrom("links").select(["id", "folder_id"]).where("id", "=", input.link_id).where("owner_id", "=", ownerId).executeTakeFirst();
      if (!l || (folders !== null && (l.folder_id === null || !folders.includes(l.folder_id)))) throw invalid("link_id", "No such link");
      return { link_id: l.id, tag_id: null, folder_id: null };
    }
    if (folders !== null && input.tag !== undefined)
      throw invalid("tag", "This API key works only in its folders: share a link or a folder of the key, not a tag");
    if (folders !== null && !folders.includes(input.folder_id ?? "")) throw invalid("folder_id", "No such folder");
    if (input.tag !== undefined) {
      const t = await db.selectFrom("tags").select("id").where("id", "=", input.tag).where("owner_id", "=", ownerId).executeTakeFirst();
      if (!t) throw invalid("tag", "No such tag");
      return { link_id: null, tag_id: t.id, folder_id: null };
    }
    const f = await db
      .selectFrom("folders")
      .select("id")
      .where("id", "=", input.folder_id ?? "")
      .where("owner_id", "=", ownerId)
      .executeTakeFirst();
    if (!f) throw invalid("folder_id", "No such folder");
    return { link_id: null, tag_id: null, folder_id: f.id };
  }

  /** Revokes a share: its page answers 404 from the next request on, on every instance. `folders`: as list()'s. */
  async delete(actor: UserRow, id: string, folders: KeyFolders = null): Promise<void> {
    const row = await this.deps.db.selectFrom("shares").select(["id", "owner_id", "link_id", "folder_id"]).where("id", "=", id).executeTakeFirst();
    if (!row) throw notFound();
    requireMay(await ownerAccess(this.deps.db, actor, row.owner_id), "links.edit", "No such share");
    if (folders !== null && !(await this.inFolders(row, folders))) throw notFound();
    await this.deps.db.deleteFrom("shares").where("id", "=", id).execute();
    for (const key of this.stats.keys()) if (key.startsWith(`${id}:`)) this.stats.delete(key);
  }

  /** Whether a share is of one of `folders` or of a link in one of them. */
  private async inFolders(row: Pick<ShareRow, "link_id" | "folder_id">, folders: readonly string[]): Promise<boolean> {
    if (row.folder_id !== null) return folders.includes(row.folder_id);
    if (row.link_id === null) return false;
    const l = await this.deps.db.selectFrom("links").select("folder_id").where("id", "=", row.link_id).executeTakeFirst();
    return l?.folder_id != null && folders.includes(l.folder_id);
  }

  /** The share behind a page's token, or null: unknown, revoked, expired, or its owner can no longer share. */
  async open(token: string): Promise<OpenShare | null> {
    if (token.length < 16 || token.length > 64) return null;
    const { db, clock } = this.deps;
    const row = await db.selectFrom("shares").selectAll().where("token_hash", "=", sha256Hex(token)).executeTakeFirst();
    if (!row || (row.expires_at !== null && clock.now() >= Number(row.expires_at))) return null;
    const owner = await db.selectFrom("users").selectAll().where("id", "=", row.owner_id).executeTakeFirst();
    if (!owner || owner.status !== "active" || !can(owner.plan, "shares")) return null;
    const name = await this.nameOf(row);
    return { row, owner, name, panels: panelsOf(row.panels) };
  }

  /** The value of the cookie that lets a browser past the share's password (changes with the password). */
  passCookie(share: OpenShare): string {
    return hmacHex(this.deps.secret, `share:${share.row.id}:${share.row.password_hash ?? ""}`);
  }

  passed(share: OpenShare, cookie: string | undefined): boolean {
    return share.row.password_hash === null || (cookie !== undefined && safeEqual(cookie, this.passCookie(share)));
  }

  /** Checks a visitor's password, throttled per share and address: true, false, or the seconds to wait. */
  async tryPassword(share: OpenShare, password: string, ip: string): Promise<true | false | { retryAfter: number }> {
    const { rate, clock } = this.deps;
    const now = clock.now();
    const taken = await rate.take(`share_password:${share.row.id}:${ip}`, now - SHARE_PASSWORD_WINDOW_MS, SHARE_PASSWORD_FAILURES, now);
    if ("full" in taken) return { retryAfter: retryAfterSeconds(taken.full, SHARE_PASSWORD_WINDOW_MS, now) };
    if (!(await verifyPassword(share.row.password_hash ?? "", password.slice(0, 1000)))) return false;
    await rate.remove(taken.id);
    return true;
  }

  /** The shared statistics for a range: the owner's analytics filtered to what is shared, kept STATS_TTL_MS. */
  async statistics(share: OpenShare, range: ShareRange): Promise<Analytics> {
    const key = `${share.row.id}:${range}`;
    const now = this.deps.clock.now();
    const kept = this.stats.get(key);
    if (kept && now - kept.at < STATS_TTL_MS) return kept.value;
    const { row } = share;
    const filter = row.link_id !== null ? { link: row.link_id } : row.tag_id !== null ? { tag: row.tag_id } : { folder_id: row.folder_id ?? "" };
    const value = await this.deps.analytics.read(share.owner, { range, ...filter });
    this.stats.set(key, { at: now, value });
    return value;
  }
}
