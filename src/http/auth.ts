// Session and CSRF hooks for /api routes, and the helpers routes use to find the signed-in user.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../context.js";
import { SESSION_COOKIE } from "../accounts/sessions.js";
import { DomainError } from "../shared/errors.js";
import type { UserRow } from "../storage/schema.js";
import type { Actor } from "../admin/audit-log.js";

declare module "fastify" {
  interface FastifyRequest {
    sessionId: string | null;
    userLookup: Promise<UserRow | null> | null;
  }
  interface FastifyContextConfig {
    /** false for the few state-changing routes authenticated otherwise (the Bearer-key API). */
    csrf?: boolean;
  }
}

export const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const SESSION_ID_RE = /^[A-Za-z0-9_-]{43}$/;

export function installSessionHooks(app: FastifyInstance, ctx: AppContext): void {
  app.decorateRequest("sessionId", null);
  app.decorateRequest("userLookup", null);
  app.addHook("onRequest", async (req) => {
    const raw = req.cookies[SESSION_COOKIE];
    req.sessionId = raw && SESSION_ID_RE.test(raw) ? raw : null;
    if (STATE_CHANGING.has(req.method) && req.routeOptions.config.csrf !== false) {
      const header = req.headers["x-csrf-token"];
      if (!ctx.sessions.checkCsrf(req.sessionId ?? undefined, typeof header === "string" ? header : undefined)) {
        throw new DomainError("csrf_failed", "Missing or wrong X-CSRF-Token header; fetch /api/auth/session first");
      }
    }
  });
}

export function setSessionCookie(ctx: AppContext, reply: FastifyReply, sessionId: string, persistent: boolean): void {
  reply.setCookie(SESSION_COOKIE, sessionId, {
    httpOnly: true,
    sameSite: "lax",
    path: "/",
    secure: ctx.config.secureCookies,
    ...(persistent ? { maxAge: ctx.sessions.ttlSeconds } : {}),
  });
}

/** Makes sure the visitor has a session id (signed out or in) and returns it. */
export function ensureSession(ctx: AppContext, req: FastifyRequest, reply: FastifyReply): string {
  if (!req.sessionId) {
    req.sessionId = ctx.sessions.newSessionId();
    req.userLookup = Promise.resolve(null);
    setSessionCookie(ctx, reply, req.sessionId, false);
  }
  return req.sessionId;
}

export function currentUser(ctx: AppContext, req: FastifyRequest): Promise<UserRow | null> {
  if (!req.userLookup) req.userLookup = req.sessionId ? ctx.sessions.userFor(req.sessionId) : Promise.resolve(null);
  return req.userLookup;
}

export async function requireUser(ctx: AppContext, req: FastifyRequest): Promise<UserRow> {
  const user = await currentUser(ctx, req);
  if (!user) throw new DomainError("unauthenticated", "Sign in first");
  return user;
}

/** A signed-in user whose account is not suspended (for writes). */
export async function requireActiveUser(ctx: AppContext, req: FastifyRequest): Promise<UserRow> {
  const user = await requireUser(ctx, req);
  if (user.status !== "active") throw new DomainError("account_inactive", "This account is suspended");
  return user;
}

/** Starts a fresh signed-in session (a new id at every sign-in) and returns its CSRF token. */
export async function signInSession(ctx: AppContext, req: FastifyRequest, reply: FastifyReply, user: UserRow): Promise<string> {
  if (req.sessionId) await ctx.sessions.destroy(req.sessionId);
  const sid = await ctx.sessions.create(user.id);
  req.sessionId = sid;
  req.userLookup = Promise.resolve(user);
  setSessionCookie(ctx, reply, sid, true);
  return ctx.sessions.csrfTokenFor(sid);
}

/** An operator (users.is_admin), active: everyone else gets 403 forbidden, signed out 401 (docs/operator.md). */
export async function requireOperator(ctx: AppContext, req: FastifyRequest): Promise<UserRow> {
  const user = await requireUser(ctx, req);
  if (Number(user.is_admin) !== 1 || user.status !== "active") throw new DomainError("forbidden", "This needs an operator account");
  return user;
}

/** The operator making the request, as the audit log names them (the /api/admin/ scope's hook has already checked). */
export async function operatorOf(ctx: AppContext, req: FastifyRequest): Promise<Actor> {
  const user = await requireOperator(ctx, req);
  return { id: user.id, email: user.email };
}
