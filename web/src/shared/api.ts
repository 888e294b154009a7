// The dashboard's only door to the server: the typed client (packages/client) on this origin, with the
// session cookie and CSRF token; each feature folder's calls go through `call`, which turns error answers
// into ApiError. Paths, queries, bodies and answers are checked against the server's route schemas. A change of
// how the account signs in that answers 403 reauth_required asks the user to confirm it is them, then is sent again.
import { createSnipClient } from "@snip/client";
import type { FieldError } from "@contract/common";

/** An error answer from the API (or a network failure, code "network_error"). */
export class ApiError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly code: string,
    message: string,
    readonly details: FieldError[] = [],
    readonly requiredPlan?: string,
  ) {
    super(message);
    this.name = "ApiError";
  }

  /** Messages keyed by field name, for showing beside form inputs. */
  fieldErrors(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const d of this.details) {
      // A schema's paths (rules/2/if/country) read as the server's own checks name fields (rules[2].if.country).
      const key = d.field
        .replace(/^\/?(body[./])?/, "")
        .replace(/^\//, "")
        .replace(/\/(\d+)(?=\/|$)/g, "[$1]")
        .replace(/\//g, ".");
      if (!(key in out)) out[key] = readableFieldMessage(key, d.message);
    }
    return out;
  }

  /** Field messages for the fields a form shows, plus a general message when something else failed. */
  forFields(known: readonly string[]): { fields: Record<string, string>; general: string | null } {
    const all = this.fieldErrors();
    const fields: Record<string, string> = {};
    const other: string[] = [];
    for (const [k, v] of Object.entries(all)) {
      if (known.includes(k)) fields[k] = v;
      else other.push(v);
    }
    if (this.code === "alias_taken" && known.includes("alias") && !fields.alias) fields.alias = this.message;
    const general = Object.keys(fields).length === 0 ? this.message : other.length ? other.join(" ") : null;
    return { fields, general };
  }
}

let unauthenticatedHandler: (() => void) | null = null;

/** Called on any 401 `unauthenticated` answer (the app sends the user to the sign-in page). */
export function onUnauthenticated(handler: (() => void) | null): void {
  unauthenticatedHandler = handler;
}

/** Asks the user to confirm it is them; true once the session may make the change, false when they cancelled. */
type ProofAsker = () => Promise<boolean>;
let proofAsker: ProofAsker | null = null;
let asking: Promise<boolean> | null = null;

/** Called when a call answers 403 `reauth_required` (the app opens its "Confirm it's you" dialog). */
export function onReauthRequired(asker: ProofAsker | null): void {
  proofAsker = asker;
}

/** One question at a time: calls refused together wait for the same answer instead of opening two dialogs. */
function askForProof(): Promise<boolean> {
  if (!proofAsker) return Promise.resolve(false);
  asking ??= proofAsker()
    .catch(() => false)
    .finally(() => (asking = null));
  return asking;
}

async function isReauthRequired(response: Response): Promise<boolean> {
  if (response.status !== 403) return false;
  const body: unknown = await response
    .clone()
    .json()
    .catch(() => null);
  return isRecord(body) && body.code === "reauth_required";
}

/** What a refused change answers when the user closed the dialog: the form shows this instead of the API's wording. */
function cancelledAnswer(): Response {
  const body = {
    status: "error",
    code: "reauth_required",
    message: "Nothing was changed: this needs you to confirm it's you, and that was cancelled. Try again when you are ready.",
  };
  return new Response(JSON.stringify(body), { status: 403, headers: { "Content-Type": "application/json" } });
}

/**
 * The typed client's fetch. Sudo mode: the server refuses changes of how the account signs in (2FA set-up, passkeys,
 * API keys, SSO, team policy, and any route that joins them) once the session's last proof is 10 minutes old. Here
 * every such refusal, today's routes and tomorrow's, asks for the proof and sends the very same request again, so the
 * form that made it simply carries on with what was typed.
 */
async function fetchAskingForProof(request: Request, init?: RequestInit): Promise<Response> {
  // A body is read once: the copy is what a retry sends (with the same CSRF header).
  const copy = request.clone();
  let response = await fetch(request, init);
  while (await isReauthRequired(response)) {
    if (!(await askForProof())) return cancelledAnswer();
    response = await fetch(copy.clone(), init);
  }
  return response;
}

/** The client every call goes through; it keeps the session's CSRF token from the answers that carry one. */
/** `?owner=` of a team owner's data (docs/roles.md), or none for the user's own. */
export const ownerQuery = (owner: string | null | undefined) => ({ params: { query: owner ? { owner } : {} } });

export const snip = createSnipClient({ baseUrl: "", fetch: fetchAskingForProof as typeof fetch });

/** What openapi-fetch answers: the success body or the error body, and the response. */
interface Answer<D> {
  data?: D;
  error?: unknown;
  response: Response;
}

/**
 * The success body of a call, or its ApiError; a 401 unauthenticated runs the app's handler unless `quiet401`
 * (pages that handle the signed-out state themselves).
 */
export async function call<D>(pending: Promise<Answer<D>>, quiet401 = false): Promise<D> {
  let answer: Answer<D>;
  try {
    answer = await pending;
  } catch {
    throw new ApiError(0, "network_error", "The server could not be reached. Check your connection and try again.");
  }
  const { data, error, response } = answer;
  if (!response.ok || error !== undefined || (isRecord(data) && data.status === "error")) throw errorOf(response.status, error ?? data, quiet401);
  return data as D;
}

/** The ApiError of an error answer; a 401 unauthenticated runs the app's handler unless `quiet401`. */
export function errorOf(status: number, data: unknown, quiet401: boolean): ApiError {
  const d = isRecord(data) ? data : {};
  const code = typeof d.code === "string" ? d.code : `http_${status}`;
  const message =
    typeof d.message === "string" && d.message
      ? d.message
      : status === 429
        ? "Too many attempts. Please wait a moment and try again."
        : `The request failed (HTTP ${status}).`;
  const details = Array.isArray(d.details)
    ? (d.details as unknown[]).filter(isRecord).map((x) => ({ field: String(x.field ?? ""), message: String(x.message ?? "") }))
    : [];
  const err = new ApiError(status, code, message, details, typeof d.required_plan === "string" ? d.required_plan : undefined);
  if (status === 401 && code === "unauthenticated" && !quiet401) unauthenticatedHandler?.();
  // An operator, or a member of a team that requires it, without a second factor: to the Security page to set one up.
  if (status === 403 && code === "2fa_setup_required" && window.location.pathname !== "/app/security") window.location.assign("/app/security");
  return err;
}

/** Server messages may be fragments ("must be 10 to 200 characters"): prefix the field's name then. */
function readableFieldMessage(field: string, message: string): string {
  const msg = message.trim() || "is invalid";
  if (!/^[a-z]/.test(msg)) return msg;
  const last = field.split(".").pop() ?? field;
  const label = last
    .replace(/_/g, " ")
    .replace(/\burl\b/g, "URL")
    .replace(/\bios\b/g, "iOS");
  return `${label.charAt(0).toUpperCase()}${label.slice(1)} ${msg}`;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
