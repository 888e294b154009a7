// The tracking API (docs/conversions.md, The API): leads, sales and refunds a site's server reports with an API
// key of scope conversions:write, and the customers they build. Business and up (the "conversions" capability);
// every lookup is the key's account's own (another account's click or customer answers 404).
import type { FastifyRequest } from "fastify";
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { errors, OkSchema } from "../../contract/common.js";
import {
  CustomerListQuery,
  CustomerListReply,
  ConversionSettingsReply,
  CustomerReply,
  ExternalIdParams,
  LeadReply,
  SaleReply,
  TrackLeadBody,
  TrackRefundBody,
  TrackSaleBody,
  UpdateConversionSettingsBody,
} from "../../contract/conversions.js";
import { eraseCustomer, getCustomer, listCustomers, recordLead, recordRefund, recordSale, settingsOf, updateSettings } from "../../conversions/index.js";
import { activeUser, signedIn, signedInRoutes } from "../auth.js";
import { requireCapability } from "../../accounts/plans.js";
import { admitKey, keyCaller, keyRoute } from "../key-auth.js";
import type { KeyRoute } from "../../contract/api-keys.js";
import type { Db } from "../../storage/db.js";

/** The services these routes use: the compiler refuses any other. */
type Deps = Pick<AppContext, "apiKeys" | "storage" | "clock" | "sessions" | "redirects" | "events" | "clicks">;

const tags = ["conversions"];
const security = [{ bearer: [] }];

export async function conversionRoutes(app: App, ctx: Deps): Promise<void> {
  const keyed = admitKey(ctx, "The tracking API");
  // The key admitted (scope, active account, external API), then the plan's conversions capability.
  const admit = async (req: FastifyRequest, reply: Parameters<typeof keyed>[1]) => {
    await keyed(req, reply);
    requireCapability(keyCaller(req).user.plan, "conversions", "Conversion tracking");
  };
  const db = () => ctx.storage.db;
  // Each route: its scopes from the contract, the admission above, and its schema under the conversions tag.
  const opts = <S extends object>(route: KeyRoute, schema: S) => ({ config: keyRoute(route), onRequest: admit, schema: { tags, security, ...schema } });
  const owner = (req: FastifyRequest) => keyCaller(req).user;
  // A lead posted right after its redirect: its click may still be in the click writer's buffer (leads.ts).
  const pendingClicks = () => ctx.clicks.writeBuffered();

  app.post(
    "/api/track/lead",
    opts("POST /api/track/lead", {
      summary: "Record a lead for a tracked click and bind the customer to it (first lead wins; a repeat answers the first lead)",
      body: TrackLeadBody,
      response: { 200: LeadReply, 201: LeadReply, ...errors(400, 401, 403, 404, 422, 429) },
    }),
    async (req, reply) => {
      const user = owner(req);
      const r = await recordLead(db(), { id: user.id, attribution_days: user.attribution_days }, req.body, ctx.clock.now(), ctx.events, pendingClicks);
      return reply.code(r.created ? 201 : 200).send({ status: "success" as const, ...r });
    },
  );

  app.post(
    "/api/track/sale",
    opts("POST /api/track/sale", {
      summary: "Record a sale of a customer (once per invoice_id); a negative amount refunds the invoice's sale",
      body: TrackSaleBody,
      response: { 200: SaleReply, 201: SaleReply, ...errors(400, 401, 403, 404, 409, 429) },
    }),
    async (req, reply) => {
      const r = await recordSale(db(), owner(req).id, req.body, ctx.clock.now(), ctx.events);
      return reply.code(r.created ? 201 : 200).send({ status: "success" as const, ...r });
    },
  );

  app.post(
    "/api/track/refund",
    opts("POST /api/track/refund", {
      summary: "Record a refund against the sale of invoice_id (amount absent: what is left of it)",
      body: TrackRefundBody,
      response: { 200: SaleReply, ...errors(400, 401, 403, 404, 409, 429) },
    }),
    async (req) => ({ status: "success" as const, created: false, ...(await recordRefund(db(), owner(req).id, req.body, ctx.clock.now())) }),
  );

  app.get(
    "/api/customers",
    opts("GET /api/customers", {
      summary: "The account's customers, newest first",
      querystring: CustomerListQuery,
      response: { 200: CustomerListReply, ...errors(400, 401, 403, 429) },
    }),
    async (req) => ({ status: "success" as const, ...(await listCustomers(db(), owner(req).id, req.query)) }),
  );

  app.get(
    "/api/customers/:external_id",
    opts("GET /api/customers/:external_id", {
      summary: "A customer with their click, link, leads and sales",
      params: ExternalIdParams,
      response: { 200: CustomerReply, ...errors(401, 403, 404, 429) },
    }),
    async (req) => ({ status: "success" as const, customer: await getCustomer(db(), owner(req).id, req.params.external_id) }),
  );

  app.delete(
    "/api/customers/:external_id",
    opts("DELETE /api/customers/:external_id", {
      summary: "Erase a customer and their conversions' personal fields (a data subject's request); the counts stay",
      params: ExternalIdParams,
      response: { 200: OkSchema, ...errors(401, 403, 404, 429) },
    }),
    async (req) => {
      await eraseCustomer(db(), owner(req).id, req.params.external_id);
      return { status: "success" as const };
    },
  );

  // The account's settings, from the dashboard (session and CSRF token).
  await signedInRoutes(app, ctx, async (scope) => {
    const schema = { tags, response: { 200: ConversionSettingsReply, ...errors(400, 401, 403) } };
    scope.get("/api/conversions/settings", { schema: { ...schema, summary: "The account's conversion settings" } }, async (req, reply) => {
      reply.header("cache-control", "no-store");
      return { status: "success" as const, settings: settingsOf(signedIn(req)) };
    });
    scope.patch(
      "/api/conversions/settings",
      {
        schema: {
          ...schema,
          summary: "Change the default of the account's links, the click id's parameter or the attribution window (Business and up)",
          body: UpdateConversionSettingsBody,
        },
      },
      async (req) => {
        const settings = await updateSettings(ctx.storage.db, activeUser(req), req.body);
        // Cached links carry what these settings decide; other instances follow within the cache's five minutes.
        ctx.redirects.cache.clear();
        return { status: "success" as const, settings };
      },
    );

    await customerSessionRoutes(scope, db);
  });
}

/** The same customers as the key routes, for the dashboard's Customers pages (a session; CSRF on the erase). */
async function customerSessionRoutes(scope: App, db: () => Db): Promise<void> {
  const customerOwner = (req: FastifyRequest, change = false) => {
    const user = change ? activeUser(req) : signedIn(req);
    requireCapability(user.plan, "conversions", "Conversion tracking");
    return user.id;
  };
  scope.get(
    "/api/conversions/customers",
    {
      schema: {
        tags,
        summary: "The account's customers, newest first (the dashboard's Customers page)",
        querystring: CustomerListQuery,
        response: { 200: CustomerListReply, ...errors(400, 401, 403) },
      },
    },
    async (req, reply) => {
      reply.header("cache-control", "no-store");
      return { status: "success" as const, ...(await listCustomers(db(), customerOwner(req), req.query)) };
    },
  );
  scope.get(
    "/api/conversions/customers/:external_id",
    {
      schema: {
        tags,
        summary: "A customer with their click, link, leads and sales (the dashboard's customer page)",
        params: ExternalIdParams,
        response: { 200: CustomerReply, ...errors(401, 403, 404) },
      },
    },
    async (req, reply) => {
      reply.header("cache-control", "no-store");
      return { status: "success" as const, customer: await getCustomer(db(), customerOwner(req), req.params.external_id) };
    },
  );
  scope.delete(
    "/api/conversions/customers/:external_id",
    {
      schema: {
        tags,
        summary: "Erase a customer and their conversions' personal fields, from the dashboard; the counts stay",
        params: ExternalIdParams,
        response: { 200: OkSchema, ...errors(401, 403, 404) },
      },
    },
    async (req) => {
      await eraseCustomer(db(), customerOwner(req, true), req.params.external_id);
      return { status: "success" as const };
    },
  );
}
