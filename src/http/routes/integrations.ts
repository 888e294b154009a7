// The Stripe integration (docs/conversions.md, Stripe): the account's endpoint managed from the dashboard
// (session + CSRF), and the endpoint Stripe posts its events to: no session, no CSRF, the signature checked on
// the raw body by the stripe library, the body read as bytes up to MAX_STRIPE_EVENT_BYTES.
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { errors, OkSchema } from "../../contract/common.js";
import { StripeEndpointBody, StripeEndpointReply, StripeWebhookParams, StripeWebhookReply } from "../../contract/integrations.js";
import { MAX_STRIPE_EVENT_BYTES, STRIPE_WEBHOOK_PATH } from "../../conversions/stripe.js";
import { DomainError } from "../../shared/errors.js";
import { activeUser, signedIn, signedInRoutes } from "../auth.js";

/** The services these routes use: the compiler refuses any other. */
type Deps = Pick<AppContext, "sessions" | "stripe">;

export async function integrationRoutes(app: App, ctx: Deps): Promise<void> {
  const noStore = { "Cache-Control": "no-store" };

  await signedInRoutes(app, ctx, async (scope) => {
    scope.put(
      "/api/integrations/stripe",
      {
        schema: {
          tags: ["conversions"],
          summary: "Set the Stripe webhook endpoint's signing secret (Business and up); answers the address to give Stripe",
          body: StripeEndpointBody,
          response: { 200: StripeEndpointReply, ...errors(400, 401, 403) },
        },
      },
      async (req, reply) => {
        const endpoint = await ctx.stripe.put(activeUser(req), req.body.signing_secret);
        reply.headers(noStore);
        return { status: "success" as const, ...endpoint };
      },
    );

    scope.get(
      "/api/integrations/stripe",
      {
        schema: {
          tags: ["conversions"],
          summary: "The Stripe webhook endpoint's address (never its signing secret); 404 when none is set up",
          response: { 200: StripeEndpointReply, ...errors(401, 403, 404) },
        },
      },
      async (req, reply) => {
        const endpoint = await ctx.stripe.get(signedIn(req));
        reply.headers(noStore);
        return { status: "success" as const, ...endpoint };
      },
    );

    scope.delete(
      "/api/integrations/stripe",
      {
        schema: {
          tags: ["conversions"],
          summary: "Remove the Stripe webhook endpoint: its address answers 404 from then on",
          response: { 200: OkSchema, ...errors(401, 403, 404) },
        },
      },
      async (req) => {
        // Removing stays possible for a suspended account or a lower plan: it only takes something away.
        await ctx.stripe.remove(signedIn(req));
        return { status: "success" as const };
      },
    );
  });

  // Stripe's deliveries: the raw bytes are what the signature covers, so JSON is not parsed here.
  await app.register(async (raw) => {
    const scope = raw as unknown as App;
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("application/json", { parseAs: "buffer", bodyLimit: MAX_STRIPE_EVENT_BYTES }, (_req, body, done) => done(null, body));
    scope.post(
      `${STRIPE_WEBHOOK_PATH}/:token`,
      {
        bodyLimit: MAX_STRIPE_EVENT_BYTES,
        // Not a session action: the Stripe-Signature made with the endpoint's secret is the credential.
        config: { csrf: false },
        schema: {
          tags: ["conversions"],
          summary:
            "Stripe's events for the account of the address (checkout.session.completed, invoice.paid, charge.refunded); signed with the endpoint's secret, within Stripe's tolerance",
          params: StripeWebhookParams,
          response: { 200: StripeWebhookReply, ...errors(400, 404, 413) },
        },
      },
      async (req, reply) => {
        if (!Buffer.isBuffer(req.body)) throw new DomainError("invalid_request", "Send the event as Stripe does: a JSON body");
        const header = req.headers["stripe-signature"];
        const outcome = await ctx.stripe.receive(req.params.token, req.body, typeof header === "string" ? header : undefined);
        reply.headers(noStore);
        return { status: "success" as const, received: true as const, outcome };
      },
    );
  });
}
