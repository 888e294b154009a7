// The conversions pages' calls: the account's conversion settings, the Stripe endpoint, and customers (the
// session's routes under /api/conversions/customers; /api/customers is the same for API keys).
import { ApiError, call, snip } from "../shared/api";
import type { UpdateConversionSettingsBody } from "@contract/conversions";

const byExternalId = (externalId: string) => ({ params: { path: { external_id: externalId } } });

export const conversionsApi = {
  settings: () => call(snip.GET("/api/conversions/settings")).then((r) => r.settings),
  updateSettings: (body: UpdateConversionSettingsBody) => call(snip.PATCH("/api/conversions/settings", { body })).then((r) => r.settings),
  /** The Stripe endpoint, or null when none is set up (404). */
  stripe: () =>
    call(snip.GET("/api/integrations/stripe")).catch((e: unknown) => {
      if (e instanceof ApiError && e.httpStatus === 404) return null;
      throw e;
    }),
  setStripe: (signingSecret: string) => call(snip.PUT("/api/integrations/stripe", { body: { signing_secret: signingSecret } })),
  removeStripe: () => call(snip.DELETE("/api/integrations/stripe")),
  customers: (cursor: string | null) => call(snip.GET("/api/conversions/customers", { params: { query: cursor ? { cursor } : {} } })),
  customer: (externalId: string) => call(snip.GET("/api/conversions/customers/{external_id}", byExternalId(externalId))).then((r) => r.customer),
  eraseCustomer: (externalId: string) => call(snip.DELETE("/api/conversions/customers/{external_id}", byExternalId(externalId))),
};
