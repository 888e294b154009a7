// What the single sign-on routes share (routes/sso.ts, routes/saml.ts): the cookies of a sign-in under way, the
// dashboard path it lands on, and how a refused start or answer is told (JSON, or back to the sign-in page).
import type { FastifyReply, FastifyRequest } from "fastify";
import { prefersJson } from "../pages.js";
import { errorBody, toDomainError, STATUS_BY_CODE } from "../errors.js";

/** The state of a sign-in under way, in the browser that started it (the callback must come back to it). */
export const STATE_COOKIE = "snip_sso_state";
/** Where the dashboard asked to land after the sign-in (a path under /app/ only: never another site). */
export const RETURN_COOKIE = "snip_sso_return";
export const COOKIE_PATH = "/api/auth/sso";
/** A SAML sign-in's cookies reach its ACS, posted from the identity provider's site: SameSite=None over https. */
export const SAML_STATE_COOKIE = "snip_saml_state";
export const SAML_RETURN_COOKIE = "snip_saml_return";

/** A dashboard path to land on: /app or below it, one leading slash, no backslash or control character; else /app. */
export function landingPath(raw: string | undefined): string {
  if (!raw || !/^\/app(\/|$|\?)/.test(raw) || /[\\\u0000-\u001f\u007f]/.test(raw) || raw.startsWith("//")) return "/app";
  const u = new URL(raw, "http://snip.invalid");
  return u.origin === "http://snip.invalid" && u.pathname.startsWith("/app") ? `${u.pathname}${u.search}` : "/app";
}

/**
 * A refused start or callback: JSON for API clients, else back to the sign-in page with a stable code
 * (`sso_error`, and `reason` for sso_failed) the page explains.
 */
export function refuse(req: FastifyRequest, reply: FastifyReply, err: unknown): FastifyReply {
  const e = toDomainError(err);
  if (e.code === "internal_error" || e.code === "unavailable") throw err;
  reply.clearCookie(STATE_COOKIE, { path: COOKIE_PATH });
  if (e.retryAfter !== undefined) reply.header("Retry-After", String(e.retryAfter));
  if (prefersJson(req.headers.accept)) return reply.code(STATUS_BY_CODE[e.code]).send(errorBody(e));
  const reason = typeof e.extra?.reason === "string" ? e.extra.reason : null;
  const q = new URLSearchParams({ sso_error: e.code, ...(reason ? { reason } : {}) });
  return reply.redirect(`/app/login?${q}`, 302);
}
