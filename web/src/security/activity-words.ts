// The security activity and the session list in words: how a session was made, and what happened to the account's
// ways in. The server names them (kinds, ways, refusal codes); a name this dashboard does not know yet is shown as it is.
/** What these words read of an activity entry (the fields of the contract's entry it reads; structural, so unit tests load this file alone). */
interface EntryInWords {
  kind: string;
  outcome: string;
  way: string | null;
  detail: string | null;
}

const WAYS: Record<string, string> = {
  password: "with a password",
  second_step: "with a password and a second factor",
  passkey: "with a passkey",
  sso: "with single sign-on",
  sso_instance: "with this service's single sign-on",
  signup: "at sign-up",
  password_reset: "after a password reset",
};

/** Why a sign-in or a confirmation was refused, from its code (the refused reauth's detail is "password"). */
const REFUSALS: Record<string, string> = {
  password: "wrong password",
  sso_required: "this account must use single sign-on",
  rate_limited: "too many attempts",
  passkey_rejected: "the passkey's answer was not accepted",
  invalid_challenge: "the passkey prompt had expired",
};

function asWords(name: string): string {
  const words = name.replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** "with a passkey"; null when the way is not known (sessions from before it was kept). */
export function wayInWords(way: string | null): string | null {
  if (!way) return null;
  return WAYS[way] ?? `with ${way.replace(/_/g, " ")}`;
}

/** Why it was refused, in words; null for a success. A wrong credential reads by the way it was tried. */
export function refusalInWords(entry: Pick<EntryInWords, "outcome" | "detail" | "way">): string | null {
  if (entry.outcome !== "refused") return null;
  if (entry.detail === "invalid_credentials") return entry.way === "passkey" ? "passkey not accepted" : "wrong password";
  if (entry.detail === "invalid_request") return entry.way === "second_step" ? "wrong code" : "wrong password";
  return entry.detail ? (REFUSALS[entry.detail] ?? entry.detail.replace(/_/g, " ")) : "refused";
}

/** What happened, as a sentence's start: "Signed in", "API key “deploy” created". */
export function activityInWords(entry: Pick<EntryInWords, "kind" | "outcome" | "detail">): string {
  const refused = entry.outcome === "refused";
  const named = (what: string, done: string) => (entry.detail ? `${what} “${entry.detail}” ${done}` : `${what} ${done}`);
  switch (entry.kind) {
    case "sign_in":
      return refused ? "Sign-in refused" : "Signed in";
    case "reauth":
      return refused
        ? "Confirming it was you failed"
        : `Confirmed it was you${entry.detail === "passkey" ? " with a passkey" : entry.detail === "password" ? " with the password" : ""}`;
    case "2fa_enabled":
      return "Two-factor sign-in turned on";
    case "2fa_disabled":
      return "Two-factor sign-in turned off";
    case "recovery_codes_regenerated":
      return "New recovery codes made";
    case "passkey_added":
      return named("Passkey", "added");
    case "passkey_removed":
      return named("Passkey", "removed");
    case "api_key_created":
      return named("API key", "created");
    case "api_key_revoked":
      return named("API key", "revoked");
    case "session_revoked":
      return "Another session signed out";
    case "sessions_revoked":
      return entry.detail ? `Every other session signed out (${entry.detail})` : "Every other session signed out";
    case "password_changed":
      return "Password changed";
    case "password_reset":
      return "Password reset by email";
    case "sso_required":
      return entry.detail ? `Single sign-on required for ${entry.detail}` : "Single sign-on required";
    default:
      return asWords(entry.kind);
  }
}
