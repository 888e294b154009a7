// The destination blocklist's sources: hosts added in the console (the blocked_hosts table, audited,
// kept alike on every instance through the change feed) and BLOCKLIST_FILE (read at start and on change),
// both loaded into the in-memory HostBlocklist that link rules and the redirect ask.
import { sql } from "kysely";
import type { Logger } from "pino";
import type { ChangeFeed, Db } from "../storage/db.js";
import type { Clock } from "../shared/clock.js";
import { iso } from "../shared/clock.js";
import { DomainError, invalid } from "../shared/errors.js";
import { containsPattern } from "../shared/like.js";
import { isUniqueViolation } from "../storage/unique-violation.js";
import { type HostBlocklist, hostOfUrl, normalizeHost } from "../links/host-blocklist.js";
import { readList, watchPath } from "./blocklist-file.js";
import type { Actor, AuditLog } from "./audit-log.js";
import { type BlockedHost, type BlocklistFile, MAX_NOTE } from "../contract/admin.js";

export const BLOCKLIST_CHANNEL = "blocklist_changed";
/** A lost notification (a dropped LISTEN connection) is repaired by this periodic reload. */
const SAFETY_RELOAD_MS = 60_000;
const FILE_POLL_MS = 1_000;

export interface BlocklistPage {
  hosts: BlockedHost[];
  next_cursor: string | null;
}

export interface BlocklistServiceDeps {
  db: Db;
  feed: ChangeFeed;
  clock: Clock;
  log: Logger;
  audit: AuditLog;
  blocklist: HostBlocklist;
  /** BLOCKLIST_FILE, or null. */
  file: string | null;
  /** Tests shorten these. */
  filePollMs?: number;
  safetyReloadMs?: number;
}

/**
 * The host a console entry names: a host name (IDN to punycode, lowercased) or the host of a URL;
 * invalid_request otherwise. IP literals are accepted: phishing links often use a bare address.
 */
export function consoleHost(raw: string, field = "host"): string {
  const text = raw.trim();
  const host = text.includes("://") ? hostOfUrl(text) : text;
  const normal = host === null ? null : normalizeHost(host);
  if (normal === null) throw invalid(field, "must be a host name (example.com), an IP address, or a URL");
  return normal;
}

/** Runs `load` once at a time; a call during a run waits for a fresh run after it (no stale result wins). */
export function serialized(load: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | null = null;
  let next: Promise<void> | null = null;
  const run = (): Promise<void> => {
    running = load().finally(() => {
      running = null;
    });
    return running;
  };
  return () => {
    if (!running) return run();
    next ??= running
      .catch(() => undefined)
      .then(() => {
        next = null;
        return run();
      });
    return next;
  };
}

export class BlocklistService {
  private file: BlocklistFile;
  private stopWatching: (() => void) | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  readonly reloadConsole: () => Promise<void>;
  readonly reloadFile: () => Promise<void>;

  constructor(private readonly deps: BlocklistServiceDeps) {
    this.file = { path: deps.file, hosts: 0, skipped_lines: 0, loaded_at: null, error: null };
    this.reloadConsole = serialized(() => this.loadConsole());
    this.reloadFile = serialized(() => this.loadFile());
    const reload = () => {
      if (!this.stopped) void this.reloadConsole().catch((err) => deps.log.warn({ err }, "blocklist reload failed"));
    };
    deps.feed.subscribe(BLOCKLIST_CHANNEL, reload);
    deps.feed.onResync(reload);
  }

  /** Loads both sources (before the first request is served), then keeps them current until stop(). */
  async start(): Promise<void> {
    await this.reloadConsole();
    const path = this.deps.file;
    if (path) {
      await this.reloadFile();
      this.stopWatching = watchPath(path, this.deps.filePollMs ?? FILE_POLL_MS, () => {
        if (!this.stopped) void this.reloadFile();
      });
    }
    this.timer = setInterval(() => {
      void this.reloadConsole().catch((err) => this.deps.log.warn({ err }, "blocklist reload failed"));
    }, this.deps.safetyReloadMs ?? SAFETY_RELOAD_MS);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    this.stopWatching?.();
    this.stopWatching = null;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  fileStatus(): BlocklistFile {
    return { ...this.file };
  }

  /** Console entries, newest first; `q` a substring of the host or the note. */
  async list(q: string | undefined, cursor: string | undefined, limit: number): Promise<BlocklistPage> {
    let qb = this.deps.db
      .selectFrom("blocked_hosts as b")
      .leftJoin("users as u", "u.id", "b.created_by")
      .select(["b.host", "b.note", "b.created_at", "u.email as created_by_email"])
      .orderBy("b.created_at", "desc")
      .orderBy("b.host", "asc")
      .limit(limit + 1);
    if (q) {
      const pattern = containsPattern(q);
      qb = qb.where(sql<boolean>`(lower(b.host) like ${pattern} escape '\\' or lower(b.note) like ${pattern} escape '\\')`);
    }
    if (cursor) {
      // "<created_at>:<host>": the last row of the previous page.
      const m = /^(\d{1,15}):(.{1,260})$/s.exec(cursor);
      if (!m) throw invalid("cursor", "is not a cursor from a previous page");
      const at = Number(m[1]);
      const host = m[2] as string;
      qb = qb.where((eb) => eb.or([eb("b.created_at", "<", at), eb.and([eb("b.created_at", "=", at), eb("b.host", ">", host)])]));
    }
    const rows = await qb.execute();
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      hosts: page.map((r) => ({
        host: r.host,
        note: r.note,
        source: "console" as const,
        created_at: iso(Number(r.created_at)),
        created_by_email: r.created_by_email ?? null,
      })),
      next_cursor: rows.length > limit && last ? `${Number(last.created_at)}:${last.host}` : null,
    };
  }

  /** Adds a console entry (audited); this instance blocks it before returning, the others within moments. */
  async add(actor: Actor, rawHost: string, note = ""): Promise<BlockedHost> {
    const host = consoleHost(rawHost);
    const text = note.trim();
    if (text.length > MAX_NOTE) throw invalid("note", `must be at most ${MAX_NOTE} characters`);
    if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text)) throw invalid("note", "must not contain control characters");
    const now = this.deps.clock.now();
    try {
      await this.deps.db.transaction().execute(async (trx) => {
        await trx.insertInto("blocked_hosts").values({ host, note: text, created_by: actor.id, created_at: now }).execute();
        await this.deps.audit.record(trx, actor, now, {
          action: "blocklist.add",
          targetType: "blocklist",
          targetId: host,
          summary: `Blocked destinations on ${host}${text ? ` (${text})` : ""}`,
          after: { host, note: text },
        });
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw new DomainError("conflict", `${host} is already on the blocklist`);
      throw err;
    }
    await this.published();
    return { host, note: text, source: "console", created_at: iso(now), created_by_email: actor.id === null ? null : actor.email };
  }

  /** Removes a console entry (audited); not_found when the console does not list it. */
  async remove(actor: Actor, rawHost: string): Promise<void> {
    const host = normalizeHost(rawHost.includes("://") ? (hostOfUrl(rawHost) ?? "") : rawHost);
    if (host === null) throw new DomainError("not_found", "That host is not on the console's blocklist");
    const now = this.deps.clock.now();
    await this.deps.db.transaction().execute(async (trx) => {
      const row = await trx.deleteFrom("blocked_hosts").where("host", "=", host).returning(["host", "note"]).executeTakeFirst();
      if (!row) throw new DomainError("not_found", "That host is not on the console's blocklist");
      await this.deps.audit.record(trx, actor, now, {
        action: "blocklist.remove",
        targetType: "blocklist",
        targetId: host,
        summary: `Unblocked destinations on ${host}`,
        before: { host: row.host, note: row.note },
      });
    });
    await this.published();
  }

  /** After a committed change: this instance reloads at once, the others on the notification. */
  private async published(): Promise<void> {
    await this.reloadConsole();
    try {
      await this.deps.feed.publish(BLOCKLIST_CHANNEL, "console");
    } catch (err) {
      // The others catch up at their periodic reload.
      this.deps.log.warn({ err }, "blocklist change notification failed");
    }
  }

  private async loadConsole(): Promise<void> {
    const rows = await this.deps.db.selectFrom("blocked_hosts").select("host").execute();
    this.deps.blocklist.setConsoleHosts(rows.map((r) => r.host));
  }

  /** A read that fails keeps the last good list and shows why. */
  private async loadFile(): Promise<void> {
    const path = this.deps.file;
    if (!path) return;
    const started = performance.now();
    try {
      const list = await readList(path);
      if (this.stopped) return;
      this.deps.blocklist.setFileHosts(list.hosts);
      this.file = { path, hosts: list.hosts.size, skipped_lines: list.skipped, loaded_at: iso(this.deps.clock.now()), error: null };
      this.deps.log.info({ path, hosts: list.hosts.size, skipped: list.skipped, ms: Math.round(performance.now() - started) }, "blocklist file loaded");
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.file = { ...this.file, error: message };
      this.deps.log.warn({ path, err: message }, "blocklist file not read; keeping the last good list");
    }
  }
}
