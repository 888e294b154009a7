// What PUT /api/sso stores on a connection besides its domains (docs/sso.md): the protocol it signs in with, and
// the OpenID settings, required under "oidc" and optional under "saml" (given ones are checked and kept, so
// switching back needs no re-entry). The client secret is sealed, bound to the connection id.
import type { SsoConnectionRow } from "../storage/schema.js";
import type { SsoPutBody } from "../contract/sso.js";
import { invalid } from "../shared/errors.js";
import { isLoopbackHost } from "../config-sso.js";
import type { SsoDeps } from "./deps.js";

/** An Enterprise issuer: an absolute https:// URL whose host resolves to public addresses only (WEBHOOK_ALLOW_PRIVATE: loopback and private too). */
async function checkIssuer(deps: Pick<SsoDeps, "check">, raw: string): Promise<string> {
  const trimmed = raw.trim();
  let u: URL;
  try {
    u = new URL(trimmed);
  } catch {
    throw invalid("issuer", "must be an absolute https:// URL");
  }
  if (u.username || u.password || u.search || u.hash) throw invalid("issuer", "must not carry credentials, a query or a fragment");
  const http = u.protocol === "http:" && deps.check.allowPrivate && isLoopbackHost(u.hostname);
  if (u.protocol !== "https:" && !http) throw invalid("issuer", "must use https://");
  try {
    await deps.check.check(trimmed, "custom", { http });
  } catch (e) {
    throw invalid("issuer", (e as Error).message);
  }
  // The issuer as the provider names itself: a trailing slash is part of it, so it is kept as typed.
  return trimmed;
}

export async function connectionFields(
  deps: Pick<SsoDeps, "check" | "box">,
  id: string,
  before: SsoConnectionRow | null,
  body: SsoPutBody,
): Promise<Pick<SsoConnectionRow, "protocol" | "issuer" | "client_id" | "client_secret_sealed">> {
  const protocol = body.protocol ?? before?.protocol ?? "oidc";
  if (protocol === "oidc" && body.issuer === undefined) throw invalid("issuer", "is required with protocol oidc");
  if (protocol === "oidc" && body.client_id === undefined) throw invalid("client_id", "is required with protocol oidc");
  const clientId = body.client_id === undefined ? (before?.client_id ?? "") : body.client_id.trim();
  if (body.client_id !== undefined && (!clientId || /[\u0000-\u001f\u007f]/.test(clientId)))
    throw invalid("client_id", "must be a client id without control characters");
  const issuer = body.issuer === undefined ? (before?.issuer ?? "") : await checkIssuer(deps, body.issuer);
  const sealed = body.client_secret !== undefined ? deps.box.seal(body.client_secret, id) : (before?.client_secret_sealed ?? "");
  if (protocol === "oidc" && sealed === "") throw invalid("client_secret", "is required for a new connection");
  return { protocol, issuer, client_id: clientId, client_secret_sealed: sealed };
}
