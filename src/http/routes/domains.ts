// Custom domains (docs/api.md, Custom domains): list, add, verify, delete under /api, and GET /tls/ask for a
// TLS-terminating proxy that gets certificates on demand (docs/tls.md).
import { Type } from "typebox";
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { DomainError } from "../../shared/errors.js";
import { errors, IdParams, OkSchema } from "../../contract/common.js";
import { AddDomainBody, DomainListReply, DomainOwnerQuery, DomainReply, UpdateDomainBody } from "../../contract/domains.js";
import { activeUser, signedIn, signedInRoutes } from "../auth.js";
import { domainOrphanRoute } from "./orphans.js";

/** The services these routes use: the compiler refuses any other. */
type Deps = Pick<AppContext, "clock" | "domains" | "orphans" | "sessions" | "storage" | "redirects">;

/** Routes under /api (session and CSRF). */
export async function domainRoutes(app: App, ctx: Deps): Promise<void> {
  await signedInRoutes(app, ctx, async (scope) => {
    scope.get(
      "/api/domains",
      {
        schema: {
          tags: ["domains"],
          summary: "The caller's custom domains (owner: a team owner's, for any role in the team), oldest first",
          querystring: DomainOwnerQuery,
          response: { 200: DomainListReply, ...errors(401, 404) },
        },
      },
      async (req, reply) => {
        const list = await ctx.domains.list(signedIn(req), req.query.owner);
        reply.header("cache-control", "no-store");
        return { status: "success" as const, domains: list.map((d) => ctx.domains.toPublic(d)) };
      },
    );

    scope.post(
      "/api/domains",
      {
        schema: {
          tags: ["domains"],
          summary:
            "Add a custom domain (Business and above): pending, with the CNAME and TXT records to create; owner: to a team owner's account (domains.manage; the owner's plan and limit apply)",
          querystring: DomainOwnerQuery,
          body: AddDomainBody,
          response: { 201: DomainReply, ...errors(400, 401, 403, 404, 409) },
        },
      },
      async (req, reply) => {
        const d = await ctx.domains.add(activeUser(req), req.body.hostname, req.query.owner);
        return reply.code(201).send({ status: "success" as const, domain: ctx.domains.toPublic(d) });
      },
    );

    scope.post(
      "/api/domains/:id/verify",
      {
        schema: {
          tags: ["domains"],
          summary: "Check the DNS records now: verified when both are right, else pending with next_action (one check per domain every 5 s)",
          params: IdParams,
          response: { 200: DomainReply, ...errors(401, 403, 404, 429) },
        },
      },
      async (req) => {
        const d = await ctx.domains.verify(activeUser(req), req.params.id);
        return { status: "success" as const, domain: ctx.domains.toPublic(d) };
      },
    );

    scope.patch(
      "/api/domains/:id",
      {
        schema: {
          tags: ["domains"],
          summary: "Set the domain's default for conversion tracking (true or false: Business and up; null: the account's default)",
          params: IdParams,
          body: UpdateDomainBody,
          response: { 200: DomainReply, ...errors(400, 401, 403, 404) },
        },
      },
      async (req) => {
        const d = await ctx.domains.setTrackConversions(activeUser(req), req.params.id, req.body.track_conversions);
        // Cached links carry what their domain decides; other instances follow within the cache's five minutes.
        ctx.redirects.cache.clear();
        return { status: "success" as const, domain: ctx.domains.toPublic(d) };
      },
    );

    scope.delete(
      "/api/domains/:id",
      {
        schema: {
          tags: ["domains"],
          summary: "Delete a custom domain and its links: they answer 404 at once, and the hostname is free again",
          params: IdParams,
          response: { 200: OkSchema, ...errors(401, 403, 404) },
        },
      },
      async (req) => {
        await ctx.domains.delete(activeUser(req), req.params.id);
        return { status: "success" as const };
      },
    );

    domainOrphanRoute(scope, ctx);
  });
}

/** GET /tls/ask: outside /api (no session), asked by the TLS proxy before it gets a certificate. */
export async function tlsAskRoute(app: App, ctx: Deps): Promise<void> {
  app.get(
    "/tls/ask",
    {
      schema: {
        tags: ["domains"],
        summary: "For a TLS proxy's on-demand certificates (Caddy on_demand_tls ask): 200 for a verified custom domain, 404 otherwise",
        querystring: Type.Object({ domain: Type.String({ maxLength: 300 }) }, { additionalProperties: false }),
        response: { 200: OkSchema, ...errors(400, 404) },
      },
    },
    async (req, reply) => {
      reply.header("cache-control", "no-store");
      if (!(await ctx.domains.isVerified(req.query.domain))) throw new DomainError("not_found", "Not a verified custom domain");
      return { status: "success" as const };
    },
  );
}
