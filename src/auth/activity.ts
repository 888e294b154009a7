// An account's own security activity (GET /api/auth/activity): sign-ins by every way with their refusals,
// and every change of how one signs in (second factors, passkeys, keys, sessions, password), kept 90 days.
// Browser, OS and country only: no address is kept.
import type { Db } from "../storage/db.js";
import type { Clock } from "../shared/clock.js";
import { iso } from "../shared/clock.js";
import { newId } from "../shared/ids.js";
import type { SignInDevice } from "../security/sign-in-notice.js";
import type { ActivityEntry } from "../contract/security.js";
import type { Way } from "./ways.js";

export const ACTIVITY_DAYS = 90;
const DAY = 86_400_000;
/** The most entries one answer lists (an account under attack may have many refusals). */
const MAX_LISTED = 500;

/** What can happen to an account's way in: the activity list's `kind`, and the alert emails' subjects. */
export type ActivityKind =
  | "sign_in"
  | "reauth"
  | "2fa_enabled"
  | "2fa_disabled"
  | "recovery_codes_regenerated"
  | "passkey_added"
  | "passkey_removed"
  | "api_key_created"
  | "api_key_revoked"
  | "session_revoked"
  | "sessions_revoked"
  | "password_changed"
  | "password_reset"
  | "sso_required";

export interface ActivityNote {
  kind: ActivityKind;
  outcome?: "success" | "refused";
  way?: Way | null;
  device?: SignInDevice | null;
  /** A short, non-secret word on what: the refusal's code, a passkey's or key's name. */
  detail?: string | null;
}

/**
 * Ids that sort as entries happened: the time, then a counter for entries of one millisecond on this
 * instance, then randomness so that instances never collide.
 */
let sequence = 0;
function entryId(at: number): string {
  sequence = (sequence + 1) % 1_679_616;
  return `${at.toString(36).padStart(9, "0")}${sequence.toString(36).padStart(4, "0")}${newId().slice(0, 8)}`;
}

export class SecurityActivity {
  constructor(private readonly deps: { db: Db; clock: Clock }) {}

  async record(userId: string, note: ActivityNote): Promise<void> {
    const d = note.device ?? null;
    const at = this.deps.clock.now();
    await this.deps.db
      .insertInto("security_events")
      .values({
        id: entryId(at),
        user_id: userId,
        at,
        kind: note.kind,
        way: note.way ?? null,
        outcome: note.outcome ?? "success",
        browser: d?.browser ?? null,
        os: d?.os ?? null,
        country: d?.country ?? null,
        detail: note.detail?.slice(0, 200) ?? null,
      })
      .execute();
  }

  /** The account's last 90 days, newest first. */
  async list(userId: string): Promise<ActivityEntry[]> {
    const rows = await this.deps.db
      .selectFrom("security_events")
      .selectAll()
      .where("user_id", "=", userId)
      .where("at", ">", this.deps.clock.now() - ACTIVITY_DAYS * DAY)
      .orderBy("at", "desc")
      .orderBy("id", "desc")
      .limit(MAX_LISTED)
      .execute();
    return rows.map((r) => ({
      id: r.id,
      at: iso(Number(r.at)),
      kind: r.kind,
      way: r.way,
      outcome: r.outcome,
      browser: r.browser,
      os: r.os,
      country: r.country,
      detail: r.detail,
    }));
  }

  async prune(): Promise<void> {
    await this.deps.db
      .deleteFrom("security_events")
      .where("at", "<=", this.deps.clock.now() - ACTIVITY_DAYS * DAY)
      .execute();
  }
}
