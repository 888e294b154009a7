// Webhook secrets: "whsec_" + 32 random bytes, signed with as a whole (docs/webhooks.md), so the service must be
// able to read them back: they are stored AES-256-GCM encrypted under a key derived from SESSION_SECRET,
// bound to their webhook's id, never in clear.
import { createHmac, randomBytes } from "node:crypto";
import { SealedBox } from "../shared/secret-box.js";

export const SECRET_PREFIX = "whsec_";

export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString("base64url");
}

/** Webhook secrets sealed under their own key (see shared/secret-box.ts), bound to their webhook's id. */
export class SecretBox extends SealedBox {
  constructor(sessionSecret: string) {
    super(sessionSecret, "webhook secrets v1");
  }
}

/** The X-Snip-Signature value: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>. */
export function signatureHeader(secret: string, unixSeconds: number, body: string): string {
  const mac = createHmac("sha256", secret).update(`${unixSeconds}.${body}`).digest("hex");
  return `t=${unixSeconds},v1=${mac}`;
}
