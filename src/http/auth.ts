// Session and CSRF hooks for /api routes, the signed-in and operator scopes of route groups, and the
// accessors their handlers read the user with.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../context.js";
import type { App } from "./app-type.js";
import { SESSION_COOKIE } from "../accounts/sessions.js";
import { DomainError } from "../shared/errors.js";
import type { UserRow } from "../storage/schema.js";
import type { Actor } from "../admin/audit-log.js";
import { secondFactorDemand } from "../security/second-factor-policy.js";
import { describeUserAgent } from "../clicks/describe.js";
import { proxyCountry, trustOf } from "./proxy.js";
import type { SessionDevice } from "../accounts/sessions.js";
import type { Opened, Visitor } from "../auth/door.js";
import type { SignedInSession } from "../auth/changes.js";

/** The pending sign-in's cookie (a right password waiting for its second step): only the 2FA routes see it. */
export const PENDING_COOKIE = "snip_2fa";
export const PENDING_PATH = "/api/auth/2fa";

declare module "fastify" {
  interface FastifyRequest {
    sessionId: string | null;
    userLookup: Promise<UserRow | null> | null;
    /** Set by the hook of a signed-in or operator scope before its handlers run. */
    signedInUser: UserRow | null;
    /** The session's last proof of identity (sudo mode) and its way in, once the session was looked up. */
    sessionReauthAt: number | null;
    sessionWay: string | null;
  }
  interface FastifyContextConfig {
    /** false for the few state-changing routes authenticated otherwise (the Bearer-key API). */
    csrf?: boolean;
  }
}

/** What reading a session takes. */
export type SessionDeps = Pick<AppContext, "sessions">;
/** What setting the session cookie takes (its lifetime, and Secure behind TLS). */
export type CookieDeps = Pick<AppContext, "sessions" | "config">;
/** What describing the browser of a request takes (its country from the trusted header or GEOIP_DB). */
export type DeviceDeps = Pick<AppContext, "countries" | "config">;
/** What admitting an operator takes: the session, and whether their second factor is required and set. */
export type OperatorDeps = Pick<AppContext, "sessions" | "storage" | "config">;

export const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const SESSION_ID_RE = /^[A-Za-z0-9_-]{43}$/;

export function installSessionHooks(app: FastifyInstance, ctx: SessionDeps): void {
  app.decorateRequest("sessionId", null);
  app.decorateRequest("userLookup", null);
  app.decorateRequest("signedInUser", null);
  app.decorateRequest("sessionReauthAt", null);
  app.decorateRequest("sessionWay", null);
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

export function setSessionCookie(ctx: CookieDeps, reply: FastifyReply, sessionId: string, persistent: boolean): void {
  reply.setCookie(SESSION_COOKIE, sessionId, {
    httpOnly: true,
    sameSite: "lax",
    path: "/",
    secure: ctx.config.secureCookies,
    ...(persistent ? { maxAge: ctx.sessions.ttlSeconds } : {}),
  });
}

/** Makes sure the visitor has a session id (signed out or in) and returns it. */
export function ensureSession(ctx: CookieDeps, req: FastifyRequest, reply: FastifyReply): string {
  if (!req.sessionId) {
    req.sessionId = ctx.sessions.newSessionId();
    req.userLookup = Promise.resolve(null);
    setSessionCookie(ctx, reply, req.sessionId, false);
  }
  return req.sessionId;
}

export function currentUser(ctx: SessionDeps, req: FastifyRequest): Promise<UserRow | null> {
  if (!req.userLookup) {
    req.userLookup = req.sessionId
      ? ctx.sessions.find(req.sessionId).then((found) => {
          req.sessionReauthAt = found?.reauthAt ?? null;
          req.sessionWay = found?.way ?? null;
          return found?.user ?? null;
        })
      : Promise.resolve(null);
  }
  return req.userLookup;
}

async function requireUser(ctx: SessionDeps, req: FastifyRequest): Promise<UserRow> {
  const user = await currentUser(ctx, req);
  if (!user) throw new DomainError("unauthenticated", "Sign in first");
  return user;
}

/** Browser, OS and country of the request, as the session list shows them (no address is kept). */
export function deviceOf(ctx: DeviceDeps, req: FastifyRequest): SessionDevice {
  const ua = describeUserAgent(req.headers["user-agent"] ?? "");
  const country = ctx.countries.resolve(proxyCountry(req.raw, trustOf(ctx.config.trustProxy), ctx.config.countryHeader), req.ip);
  return { browser: ua.browser === "unknown" ? null : ua.browser, os: ua.os === "unknown" ? null : ua.os, country: country === "unknown" ? null : country };
}

/** Who is knocking at the door (src/auth/): the client address, the browser, and the browser's current session. */
export function visitorOf(ctx: DeviceDeps, req: FastifyRequest): Visitor {
  return { ip: req.ip, device: deviceOf(ctx, req), sessionId: req.sessionId };
}

/** Sets the cookie of a session the door opened and returns its CSRF token (the id and token rotate at every sign-in). */
export function startSession(ctx: CookieDeps, req: FastifyRequest, reply: FastifyReply, opened: Opened): string {
  req.sessionId = opened.sessionId;
  req.userLookup = Promise.resolve(opened.user);
  setSessionCookie(ctx, reply, opened.sessionId, true);
  return ctx.sessions.csrfTokenFor(opened.sessionId);
}

/** The signed-in request as the door's changes take it (sudo mode, activity, alerts). */
export function sessionOf(ctx: DeviceDeps, req: FastifyRequest, user: UserRow = activeUser(req)): SignedInSession {
  if (!req.sessionId) throw new DomainError("unauthenticated", "Sign in first");
  return { id: req.sessionId, user, reauthAt: req.sessionReauthAt, ip: req.ip, device: deviceOf(ctx, req) };
}

/**
 * An operator (users.is_admin), active: everyone else gets 403 forbidden, signed out 401 (docs/operator.md);
 * with OPERATOR_REQUIRE_2FA, one without a second factor 403 2fa_setup_required.
 */
async function requireOperator(ctx: OperatorDeps, req: FastifyRequest): Promise<UserRow> {
  const user = await requireUser(ctx, req);
  if (Number(user.is_admin) !== 1 || user.status !== "active") throw new DomainError("forbidden", "This needs an operator account");
  if ((await secondFactorDemand(ctx.storage.db, user, { operatorPolicy: ctx.config.operatorRequire2fa, teams: "none" })).missing) {
    throw new DomainError("2fa_setup_required", "Operator accounts need two-factor sign-in: set it up under Security first");
  }
  return user;
}

/** A hook that admits a signed-in user (401 unauthenticated otherwise), for signedIn(req) to read. */
export function admitSignedIn(ctx: SessionDeps): (req: FastifyRequest) => Promise<void> {
  return async (req) => {
    req.signedInUser = await requireUser(ctx, req);
  };
}

/** Registers a group of routes in a scope of its own whose `hook` runs `admit` first, then runs `routes` in it. */
async function guardedScope(
  app: App,
  hook: "onRequest" | "preHandler",
  admit: (req: FastifyRequest) => Promise<void>,
  routes: (scope: App) => Promise<void>,
): Promise<void> {
  await app.register(async (plugin) => {
    const scope = plugin as unknown as App;
    scope.addHook(hook, admit);
    await routes(scope);
  });
}

/**
 * Routes that all need a signed-in user: 401 unauthenticated for anyone else. The check runs as a preHandler,
 * after the request's validation, so a signed-out request with a bad body still gets its 400 first.
 * Handlers read the user with signedIn(req) or, for writes, activeUser(req).
 */
export function signedInRoutes(app: App, ctx: SessionDeps, routes: (scope: App) => Promise<void>): Promise<void> {
  return guardedScope(app, "preHandler", admitSignedIn(ctx), routes);
}

/** Signed-in routes that take large bodies (imports): the check runs on request, before a body is read. */
export function signedInBeforeBody(app: App, ctx: SessionDeps, routes: (scope: App) => Promise<void>): Promise<void> {
  return guardedScope(app, "onRequest", admitSignedIn(ctx), routes);
}

/**
 * The operator console's routes: the check runs on request, before any body is read, so a non-operator
 * learns nothing more than 401 or 403. Handlers name the operator with operatorOf(req).
 */
export function operatorRoutes(app: App, ctx: OperatorDeps, routes: (scope: App) => Promise<void>): Promise<void> {
  return guardedScope(
    app,
    "onRequest",
    async (req) => {
      req.signedInUser = await requireOperator(ctx, req);
    },
    routes,
  );
}

/** The user a signed-in or operator scope's hook admitted. */
export function signedIn(req: FastifyRequest): UserRow {
  if (!req.signedInUser) throw new DomainError("unauthenticated", "Sign in first");
  return req.signedInUser;
}

/** The admitted user, whose account must not be suspended (for writes). */
export function activeUser(req: FastifyRequest): UserRow {
  const user = signedIn(req);
  if (user.status !== "active") throw new DomainError("account_inactive", "This account is suspended");
  return user;
}

/** The operator making the request, as the audit log names them. */
export function operatorOf(req: FastifyRequest): Actor {
  const user = signedIn(req);
  return { id: user.id, email: user.email };
}
