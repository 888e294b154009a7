// API keys: create (secret shown once, SHA-256 stored), list, revoke, and authenticate a Bearer secret.
import type { Db, Storage } from "../storage/db.js";
import { type Cap, type OwnerCaps, countOf } from "../storage/owner-caps.js";
import type { RateEvents } from "../storage/rate-events.js";
import type { ApiKeyRow, UserRow } from "../storage/schema.js";
import type { Clock } from "../shared/clock.js";
import { iso } from "../shared/clock.js";
import { DomainError, invalid } from "../shared/errors.js";
import { newId, randomToken, sha256Hex } from "../shared/ids.js";
import { CreationWindow } from "./api-creation-window.js";
import { ApiAbuseThrottle } from "./api-abuse.js";
import type { ApiKey, CreateKeyBody } from "../contract/api-keys.js";
import { auditKey, checkKeyExpiry, checkKeyFolders, checkScopes, keyFolders, scopesOf } from "./key-scopes.js";

export const KEY_PREFIX = "snip_";
/** "snip_" + 32 random bytes in base64url (43 characters). */
export const KEY_RE = /^snip_[A-Za-z0-9_-]{43}$/;
/** Characters of the secret kept for display: "snip_" + 7. */
const DISPLAY_PREFIX_LENGTH = 12;
/** Live (not revoked) keys one account may hold. */
export const MAX_LIVE_KEYS = 25;
/** last_used_at is written at most this often per key. */
const TOUCH_EVERY_MS = 60_000;

export function publicApiKey(k: ApiKeyRow): ApiKey {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    scopes: scopesOf(k),
    created_at: iso(k.created_at),
    expires_at: iso(k.expires_at),
    last_used_at: iso(k.last_used_at),
    revoked_at: iso(k.revoked_at),
    folder_ids: keyFolders(k),
  };
}

function checkKeyName(raw: string): string {
  const name = raw.trim();
  if (name.length < 1) throw invalid("name", "must not be empty");
  if (name.length > 100) throw invalid("name", "must be at most 100 characters");
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) throw invalid("name", "must not contain control characters");
  return name;
}

export interface AuthenticatedKey {
  key: ApiKeyRow;
  user: UserRow;
}

export class ApiKeyService {
  private readonly db: Db;
  private readonly caps: OwnerCaps;
  private readonly clock: Clock;
  /** The per-key creation limit of the external API (100 per sliding hour). */
  readonly creations: CreationWindow;
  /** Throttles on failing external-API requests (per key, per address). */
  readonly abuse: ApiAbuseThrottle;

  constructor(deps: { storage: Pick<Storage, "db" | "dialect" | "sqlite">; caps: OwnerCaps; clock: Clock; rate: RateEvents }) {
    this.db = deps.storage.db;
    this.caps = deps.caps;
    this.clock = deps.clock;
    this.creations = new CreationWindow(deps.storage, deps.clock);
    this.abuse = new ApiAbuseThrottle(deps.rate, deps.clock);
  }

  /** Creates a key with its scopes and expiry (audited); the secret is returned here and never again. */
  async create(user: UserRow, input: CreateKeyBody): Promise<{ key: ApiKeyRow; secret: string }> {
    const name = checkKeyName(input.name);
    const now = this.clock.now();
    const scopes = checkScopes(input.scopes);
    const expiresAt = checkKeyExpiry(input.expires_at, now);
    const folderIds = await checkKeyFolders(this.db, user, input.folder_ids);
    const secret = KEY_PREFIX + randomToken(32);
    const key: ApiKeyRow = {
      id: newId(),
      user_id: user.id,
      name,
      prefix: secret.slice(0, DISPLAY_PREFIX_LENGTH),
      secret_hash: sha256Hex(secret),
      scopes: JSON.stringify(scopes),
      created_at: now,
      expires_at: expiresAt,
      last_used_at: null,
      revoked_at: null,
      folder_ids: folderIds === null ? null : JSON.stringify(folderIds),
    };
    const cap: Cap = {
      limit: MAX_LIVE_KEYS,
      count: (trx) =>
        countOf(
          trx
            .selectFrom("api_keys")
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .where("user_id", "=", user.id)
            .where("revoked_at", "is", null),
        ),
      refuse: () => new DomainError("limit_reached", `An account can hold at most ${MAX_LIVE_KEYS} active API keys; revoke one first`),
    };
    await this.caps.add(user.id, cap, async (trx) => {
      await trx.insertInto("api_keys").values(key).execute();
      await auditKey(trx, user, now, "api_key.create", key);
    });
    return { key, secret };
  }

  /** The user's keys, newest first, revoked ones included. */
  async list(user: UserRow): Promise<ApiKeyRow[]> {
    return this.db.selectFrom("api_keys").selectAll().where("user_id", "=", user.id).orderBy("created_at", "desc").orderBy("id", "desc").execute();
  }

  /** Revokes the user's key (idempotent, audited once); another user's key or an unknown id is not_found. */
  async revoke(user: UserRow, id: string): Promise<ApiKeyRow> {
    const now = this.clock.now();
    return this.db.transaction().execute(async (trx) => {
      const done = await trx
        .updateTable("api_keys")
        .set({ revoked_at: now })
        .where("id", "=", id)
        .where("user_id", "=", user.id)
        .where("revoked_at", "is", null)
        .executeTakeFirst();
      const key = await trx.selectFrom("api_keys").selectAll().where("id", "=", id).where("user_id", "=", user.id).executeTakeFirst();
      if (!key) throw new DomainError("not_found", "No such API key");
      if (Number(done.numUpdatedRows) > 0) await auditKey(trx, user, now, "api_key.revoke", key);
      return key;
    });
  }

  /** The live (not revoked, not expired) key and its account for a Bearer secret; invalid_api_key otherwise. */
  async authenticate(secret: string | null): Promise<AuthenticatedKey> {
    if (secret === null) throw new DomainError("invalid_api_key", "Send the API key as Authorization: Bearer <key>");
    if (!KEY_RE.test(secret)) throw new DomainError("invalid_api_key", "The API key is malformed");
    const row = await this.db
      .selectFrom("api_keys")
      .innerJoin("users", "users.id", "api_keys.user_id")
      .selectAll("users")
      .select([
        "api_keys.id as key_id",
        "api_keys.name as key_name",
        "api_keys.prefix as key_prefix",
        "api_keys.secret_hash as key_secret_hash",
        "api_keys.scopes as key_scopes",
        "api_keys.created_at as key_created_at",
        "api_keys.expires_at as key_expires_at",
        "api_keys.last_used_at as key_last_used_at",
        "api_keys.revoked_at as key_revoked_at",
        "api_keys.folder_ids as key_folder_ids",
      ])
      .where("api_keys.secret_hash", "=", sha256Hex(secret))
      .executeTakeFirst();
    if (!row || row.key_revoked_at !== null) throw new DomainError("invalid_api_key", "The API key is unknown or revoked");
    // Refused like an unknown key (same code): the holder of the secret learns only that it no longer works.
    if (row.key_expires_at !== null && this.clock.now() >= Number(row.key_expires_at)) throw new DomainError("invalid_api_key", "The API key has expired");
    const {
      key_id,
      key_name,
      key_prefix,
      key_secret_hash,
      key_scopes,
      key_created_at,
      key_expires_at,
      key_last_used_at,
      key_revoked_at,
      key_folder_ids,
      ...user
    } = row;
    const key: ApiKeyRow = {
      id: key_id,
      user_id: user.id,
      name: key_name,
      prefix: key_prefix,
      secret_hash: key_secret_hash,
      scopes: key_scopes,
      created_at: key_created_at,
      expires_at: key_expires_at,
      last_used_at: key_last_used_at,
      revoked_at: key_revoked_at,
      folder_ids: key_folder_ids,
    };
    await this.touch(key);
    return { key, user };
  }

  /** Records use, at most once a minute per key (the WHERE keeps concurrent requests to one write). */
  private async touch(key: ApiKeyRow): Promise<void> {
    const now = this.clock.now();
    if (key.last_used_at !== null && now - key.last_used_at < TOUCH_EVERY_MS) return;
    await this.db
      .updateTable("api_keys")
      .set({ last_used_at: now })
      .where("id", "=", key.id)
      .where((eb) => eb.or([eb("last_used_at", "is", null), eb("last_used_at", "<=", now - TOUCH_EVERY_MS)]))
      .execute();
    key.last_used_at = now;
  }
}
