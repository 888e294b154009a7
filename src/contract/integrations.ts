// The Stripe integration over the wire (docs/conversions.md, Stripe): set the signing secret, see the endpoint's
// address (never the secret), remove it; and the webhook's acknowledgement.
import { Type, type Static } from "typebox";
import { Body } from "./common.js";

export const StripeEndpointBody = Body({
  signing_secret: Type.String({
    minLength: 1,
    maxLength: 300,
    description: "The endpoint's signing secret from Stripe's dashboard (whsec_...); sealed at rest, never shown again",
  }),
});
export type StripeEndpointBody = Static<typeof StripeEndpointBody>;

export const StripeEndpointReply = Type.Object({
  status: Type.Literal("success"),
  endpoint_url: Type.String({ description: "The address to give Stripe as the webhook endpoint (unguessable: keep it private)" }),
  created_at: Type.String(),
  updated_at: Type.String(),
});
export type StripeEndpointReply = Static<typeof StripeEndpointReply>;

export const StripeWebhookParams = Type.Object({ token: Type.String({ maxLength: 100 }) });

export const StripeWebhookReply = Type.Object({
  status: Type.Literal("success"),
  received: Type.Literal(true),
  outcome: Type.Union(
    [Type.Literal("lead"), Type.Literal("sale"), Type.Literal("lead_and_sale"), Type.Literal("refund"), Type.Literal("duplicate"), Type.Literal("ignored")],
    { description: "What the event became: duplicate for an event id seen before, ignored for other types or nothing to attribute" },
  ),
});
