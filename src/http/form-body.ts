// Browser forms posted urlencoded (the link-password form, the abuse report form, a SAML identity provider's
// page): a parser of their own, for one plugin scope only, bounded to `limit` bytes.
import type { App } from "./app-type.js";

export function formBodies(scope: App, limit: number): void {
  scope.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string", bodyLimit: limit }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(body))));
  });
}
