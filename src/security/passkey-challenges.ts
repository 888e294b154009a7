// The challenges of passkey ceremonies: kept server-side a few minutes, bound to what the caller names (the
// session cookie's id for the dashboard's routes, a pending sign-in for a second-factor step), used once.
import type { Db } from "../storage/db.js";
import type { Clock } from "../shared/clock.js";
import { sha256Hex } from "../shared/ids.js";

/** Long enough for a person to find their phone or key; the options ask the browser for less (TIMEOUT_MS). */
export const CHALLENGE_TTL_MS = 5 * 60_000;

export type ChallengePurpose = "register" | "login" | "second-factor";

export interface TakenChallenge {
  challenge: string;
  userId: string | null;
}

function bindingHash(purpose: ChallengePurpose, binding: string): string {
  return sha256Hex(`passkey:${purpose}:${binding}`);
}

export class PasskeyChallenges {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** Keeps `challenge` for this binding, replacing the one it had (a second click on "Add a passkey"). */
  async issue(purpose: ChallengePurpose, binding: string, challenge: string, userId: string | null): Promise<void> {
    const hash = bindingHash(purpose, binding);
    const now = this.clock.now();
    // One statement, so two requests of one session at once leave one challenge (the later), never an error.
    await this.db
      .insertInto("passkey_challenges")
      .values({ binding_hash: hash, challenge, user_id: userId, expires_at: now + CHALLENGE_TTL_MS })
      .onConflict((oc) => oc.column("binding_hash").doUpdateSet({ challenge, user_id: userId, expires_at: now + CHALLENGE_TTL_MS }))
      .execute();
  }

  /**
   * Takes the binding's challenge out if it is `named` (the one the answer signs): one DELETE ... RETURNING, so
   * two requests cannot both use it. Null when there is none, it is another, it expired, or it was used already;
   * an answer to another challenge leaves the pending one alone.
   */
  async take(purpose: ChallengePurpose, binding: string, named: string | null): Promise<TakenChallenge | null> {
    if (named === null) return null;
    const row = await this.db
      .deleteFrom("passkey_challenges")
      .where("binding_hash", "=", bindingHash(purpose, binding))
      .where("challenge", "=", named)
      .returning(["challenge", "user_id", "expires_at"])
      .executeTakeFirst();
    if (!row || Number(row.expires_at) <= this.clock.now()) return null;
    return { challenge: row.challenge, userId: row.user_id };
  }

  async pruneExpired(): Promise<void> {
    await this.db.deleteFrom("passkey_challenges").where("expires_at", "<=", this.clock.now()).execute();
  }
}
