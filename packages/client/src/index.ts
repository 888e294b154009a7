// The snip API's typed client: every path, query, body and answer is checked by the compiler against the
// server's own route schemas (schema.ts, generated from them), over openapi-fetch.
import createClient, { type Client, type Middleware } from "openapi-fetch";
import type { paths } from "./schema.js";

export type { components, paths } from "./schema.js";

type Method = "get" | "put" | "post" | "delete" | "patch";
type Operation<P extends keyof paths, M extends Method> = paths[P] extends { [K in M]: infer O } ? O : never;
type Json<T> = T extends { content: { "application/json": infer J } } ? J : never;

/** The JSON body a route takes. */
export type RequestBody<P extends keyof paths, M extends Method> = Json<NonNullable<Operation<P, M> extends { requestBody?: infer B } ? B : never>>;
/** The query a route reads. */
export type Query<P extends keyof paths, M extends Method> = NonNullable<Operation<P, M> extends { parameters: { query?: infer Q } } ? Q : never>;
/** The JSON answer a route gives on success (its 200 or 201). */
export type Reply<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { responses: infer R } ? Json<R extends { 200: infer A } ? A : R extends { 201: infer A } ? A : never> : never;

export type SnipClient = Client<paths, "application/json">;

export interface SnipClientOptions {
  /** The server's address, such as https://sn.example.com; empty in a page the server itself serves. */
  baseUrl: string;
  /** An API key (`snip_…`) for the external API, sent as `Authorization: Bearer`. Keep it on a server. */
  apiKey?: string;
  /**
   * Keep the session cookie in the client: outside a browser nothing else does (Node's fetch has no cookie
   * jar), and the dashboard's routes (statistics, lists) are reached through a signed-in session.
   */
  keepCookies?: boolean;
  fetch?: typeof globalThis.fetch;
}

/** What a session carries from one call to the next: the CSRF token state-changing calls send, and cookies kept. */
export interface SnipSession {
  csrfToken: string;
  cookies: Map<string, string>;
}

/** Answers that carry the session's CSRF token (sign-in, sign-up, sign-out, the session, deleting the account). */
const CARRIES_CSRF = /^\/api\/(auth\/|account$)/;

function sessionMiddleware(session: SnipSession, keepCookies: boolean): Middleware {
  return {
    onRequest({ request }) {
      if (request.method !== "GET" && session.csrfToken) request.headers.set("X-CSRF-Token", session.csrfToken);
      if (keepCookies && session.cookies.size) request.headers.set("Cookie", [...session.cookies].map(([k, v]) => `${k}=${v}`).join("; "));
      return request;
    },
    async onResponse({ request, response }) {
      if (keepCookies) {
        for (const line of response.headers.getSetCookie()) {
          const [pair = ""] = line.split(";");
          const eq = pair.indexOf("=");
          if (eq > 0) session.cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
        }
      }
      const json = (response.headers.get("content-type") ?? "").includes("application/json");
      if (json && CARRIES_CSRF.test(new URL(request.url, "http://x").pathname)) {
        const body: unknown = await response
          .clone()
          .json()
          .catch(() => null);
        if (typeof body === "object" && body !== null && "csrf_token" in body && typeof body.csrf_token === "string") session.csrfToken = body.csrf_token;
      }
      return response;
    },
  };
}

/** A client for one snip server; `session` is what it keeps between calls. */
export function createSnipClient(options: SnipClientOptions): SnipClient & { session: SnipSession } {
  const client = createClient<paths, "application/json">({ baseUrl: options.baseUrl, fetch: options.fetch, credentials: "same-origin" });
  const session: SnipSession = { csrfToken: "", cookies: new Map() };
  client.use(sessionMiddleware(session, options.keepCookies === true));
  const { apiKey } = options;
  if (apiKey) {
    client.use({
      onRequest({ request }) {
        request.headers.set("Authorization", `Bearer ${apiKey}`);
        return request;
      },
    });
  }
  return Object.assign(client, { session });
}

/**
 * Signs a client in (one made with `keepCookies` outside a browser): reads the session first, whose answer
 * carries the CSRF token the sign-in must send.
 */
export async function signIn(client: SnipClient, email: string, password: string) {
  await client.GET("/api/auth/session");
  return client.POST("/api/auth/login", { body: { email, password } });
}

/**
 * The account's Stripe webhook endpoint (Business and up, docs/conversions.md, Stripe): sets its signing secret
 * (`whsec_…` from Stripe's dashboard; sealed on the server, never shown again) and answers the `endpoint_url` to
 * give Stripe. A signed-in client: these are dashboard calls, with the session's CSRF token.
 */
export function setStripeEndpoint(client: SnipClient, signingSecret: string) {
  return client.PUT("/api/integrations/stripe", { body: { signing_secret: signingSecret } });
}

/** The Stripe endpoint's address (never its secret); a 404 error when none is set up. */
export function getStripeEndpoint(client: SnipClient) {
  return client.GET("/api/integrations/stripe");
}

/** Removes the Stripe endpoint: its address answers 404 from then on. */
export function removeStripeEndpoint(client: SnipClient) {
  return client.DELETE("/api/integrations/stripe");
}
