// Tables of passkeys (migration 028, docs/passkeys.md): each account's WebAuthn credentials, and the
// challenges handed out for a registration or a sign-in, kept a few minutes and used once.
import type { Selectable } from "kysely";

export interface PasskeysTable {
  id: string;
  user_id: string;
  /** The credential id the authenticator chose (base64url), unique across accounts. */
  credential_id: string;
  /** The COSE public key (base64url): public, so kept as it is. */
  public_key: string;
  /** The authenticator's signature counter at the last use (0 for authenticators that keep none). */
  counter: number;
  /** JSON array of transports ("internal", "usb", "hybrid", ...). */
  transports: string;
  name: string;
  /** "singleDevice" or "multiDevice" (a synced passkey). */
  device_type: string;
  backed_up: number;
  created_at: number;
  last_used_at: number | null;
}

export interface PasskeyChallengesTable {
  /** SHA-256 of the purpose and what the challenge is bound to (the session id, or a pending sign-in). */
  binding_hash: string;
  challenge: string;
  /** The account a registration, or a second-factor step, is for; null for a passwordless sign-in. */
  user_id: string | null;
  expires_at: number;
}

export interface PasskeyTables {
  passkeys: PasskeysTable;
  passkey_challenges: PasskeyChallengesTable;
}

export type PasskeyRow = Selectable<PasskeysTable>;
