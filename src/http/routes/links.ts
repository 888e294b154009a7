// Dashboard link routes (docs/api.md, Links): create (signed in or out), list, read, edit, delete, bulk.
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";

import { errors, IdParams, OkSchema } from "../../contract/common.js";
import {
  BulkBody,
  BulkDeleteBody,
  BulkDeleteReply,
  BulkEditBody,
  BulkEditReply,
  BulkReply,
  CreateLinkBody,
  CreateLinkOwnerQuery,
  LinkListQuery,
  LinkPageReply,
  LinkReply,
  SparklineQuery,
  SparklineReply,
  UpdateLinkBody,
} from "../../contract/links.js";
import { activeUser, currentUser, signedIn, signedInRoutes } from "../auth.js";
import { CountrySourceReply, ResolveQuery, ResolveReply } from "../../contract/targeting.js";
import { testVisit } from "../../redirect/test-visit.js";

/** The services these routes use: the compiler refuses any other. */
type Deps = Pick<AppContext, "clock" | "config" | "links" | "sessions" | "stats">;

export async function linkRoutes(app: App, ctx: Deps): Promise<void> {
  app.post(
    "/api/links",
    {
      schema: {
        tags: ["links"],
        summary:
          "Create a link; signed out: url and alias only, and the link expires after 5 minutes; owner: in a team owner's account (links.create; the owner's plan and limits apply)",
        querystring: CreateLinkOwnerQuery,
        body: CreateLinkBody,
        response: { 201: LinkReply, ...errors(400, 401, 403, 404, 409, 413, 429) },
      },
    },
    async (req, reply) => {
      const link = await ctx.links.create(await currentUser(ctx, req), req.body, { via: "dashboard", ip: req.ip }, req.query.owner);
      return reply.code(201).send({ status: "success" as const, link: await ctx.links.presentOne(link) });
    },
  );

  await signedInRoutes(app, ctx, async (scope) => {
    scope.get(
      "/api/links",
      {
        schema: {
          tags: ["links"],
          summary:
            "The caller's links (owner: a team owner's, for active members), filtered by tag (repeatable, all must match), domain, state, has_password, health and q (alias, destination, title, note, tag names); sorted by created, clicks or last_click, desc or asc; keyset pages and the total matching",
          querystring: LinkListQuery,
          response: { 200: LinkPageReply, ...errors(400, 401, 404) },
        },
      },
      async (req, reply) => {
        const page = await ctx.links.list(signedIn(req), req.query);
        reply.header("cache-control", "no-store");
        return { ...page, status: "success" as const, links: await ctx.links.present(page.links) };
      },
    );

    bulkRoutes(scope, ctx);

    scope.get(
      "/api/links/sparklines",
      {
        schema: {
          tags: ["links"],
          summary:
            "Clicks per day over the last 7 days (UTC, today last) of up to 100 links the caller may read (owner or active member); other ids are absent",
          querystring: SparklineQuery,
          response: { 200: SparklineReply, ...errors(400, 401) },
        },
      },
      async (req, reply) => {
        const series = await ctx.stats.sparklines(await ctx.links.readable(signedIn(req), req.query.ids));
        reply.header("cache-control", "no-store");
        return { status: "success" as const, sparklines: Object.fromEntries(series) };
      },
    );

    scope.get(
      "/api/links/:id",
      {
        schema: {
          tags: ["links"],
          summary: "A link of the caller's, or of a team owner's for an active member",
          params: IdParams,
          response: { 200: LinkReply, ...errors(401, 404) },
        },
      },
      async (req, reply) => {
        const link = await ctx.links.presentOne(await ctx.links.get(signedIn(req), req.params.id));
        reply.header("cache-control", "no-store");
        return { status: "success" as const, link };
      },
    );

    resolveRoute(scope, ctx);

    scope.patch(
      "/api/links/:id",
      {
        schema: {
          tags: ["links"],
          summary: "Edit a link (owner or active team member); null clears an option; plan-gated options follow the owner's plan",
          params: IdParams,
          body: UpdateLinkBody,
          response: { 200: LinkReply, ...errors(400, 401, 403, 404, 409) },
        },
      },
      async (req) => {
        return { status: "success" as const, link: await ctx.links.presentOne(await ctx.links.update(activeUser(req), req.params.id, req.body)) };
      },
    );

    scope.delete(
      "/api/links/:id",
      {
        schema: {
          tags: ["links"],
          summary: "Delete a link (owner only: members get 403 forbidden); its short address answers 404 at once",
          params: IdParams,
          response: { 200: OkSchema, ...errors(401, 403, 404) },
        },
      },
      async (req) => {
        await ctx.links.delete(activeUser(req), req.params.id);
        return { status: "success" as const };
      },
    );
  });
}

/** Many links at once: create, edit (archive, tags) and delete (docs/bulk.md). */
function bulkRoutes(scope: App, ctx: Deps): void {
  scope.post(
    "/api/links/bulk",
    {
      schema: {
        tags: ["links"],
        summary:
          "Create one link per line, or per row of `links` with an alias (Business and above); one result per row, in order; owner: in a team owner's account (links.create; the owner's plan applies)",
        querystring: CreateLinkOwnerQuery,
        body: BulkBody,
        response: { 200: BulkReply, ...errors(400, 401, 403, 404, 413) },
      },
    },
    async (req) => {
      const results = await ctx.links.bulk(activeUser(req), req.body, req.query.owner);
      const created = await ctx.links.present(results.flatMap((r) => (r.status === "created" ? [r.link] : [])));
      let next = 0;
      return { status: "success" as const, results: results.map((r) => (r.status === "created" ? { ...r, link: created[next++]! } : r)) };
    },
  );

  scope.patch(
    "/api/links/bulk",
    {
      schema: {
        tags: ["links"],
        summary: "Archive or restore, add or remove tags of up to 100 links of one owner (owner or active member); all or nothing",
        body: BulkEditBody,
        response: { 200: BulkEditReply, ...errors(400, 401, 403, 404) },
      },
    },
    async (req) => ({ status: "success" as const, links: await ctx.links.present(await ctx.links.bulkEdit(activeUser(req), req.body)) }),
  );

  scope.post(
    "/api/links/bulk/delete",
    {
      schema: {
        tags: ["links"],
        summary: "Delete up to 100 of the caller's links (owner only); all or nothing",
        body: BulkDeleteBody,
        response: { 200: BulkDeleteReply, ...errors(400, 401, 403, 404) },
      },
    },
    async (req) => ({ status: "success" as const, deleted: await ctx.links.bulkDelete(activeUser(req), req.body.ids) }),
  );
}

/** "Test a visit" (docs/api.md, Redirect rules). */
function resolveRoute(scope: App, ctx: Deps): void {
  // How this server learns a visitor's country: a trusted proxy's header, GEOIP_DB, both, or neither.
  const { geoipDb, trustProxy } = ctx.config;
  const countrySource = (geoipDb ? (trustProxy ? "both" : "geoip") : trustProxy ? "header" : null) as "both" | "geoip" | "header" | null;
  scope.get(
    "/api/links/country-source",
    {
      schema: {
        tags: ["links"],
        summary: "Where this server learns a visitor's country (GEOIP_DB, the trusted country header, both), or null: rules with a country never hold",
        response: { 200: CountrySourceReply, ...errors(401) },
      },
    },
    async () => ({ status: "success" as const, country_source: countrySource }),
  );
  scope.get(
    "/api/links/:id/resolve",
    {
      schema: {
        tags: ["links"],
        summary:
          "Test a visit: the destination a visitor with this country, language, user agent, query, referrer and time would get, and why (owner or active member)",
        params: IdParams,
        querystring: ResolveQuery,
        response: { 200: ResolveReply, ...errors(400, 401, 404) },
      },
    },
    async (req, reply) => {
      const link = await ctx.links.get(signedIn(req), req.params.id);
      reply.header("cache-control", "no-store");
      return { status: "success" as const, ...testVisit(link, req.query, ctx.clock.now(), countrySource) };
    },
  );
}
