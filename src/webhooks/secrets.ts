// Webhook secrets: "whsec_" + 32 random bytes, signed with as a whole (API.md), so the service must be
// able to read them back: they are stored AES-256-GCM encrypted under a key derived from SESSION_SECRET,
// bound to their webhook's id, never in clear.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from "node:crypto";

export const SECRET_PREFIX = "whsec_";

export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString("base64url");
}

const VERSION = "v1";

export class SecretBox {
  private readonly key: Buffer;

  constructor(sessionSecret: string) {
    this.key = Buffer.from(hkdfSync("sha256", sessionSecret, "snip", "webhook secrets v1", 32));
  }

  /** "v1.<iv>.<tag>.<ciphertext>" (base64url); the webhook id is authenticated data, so a copied value fails. */
  seal(secret: string, webhookId: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    cipher.setAAD(Buffer.from(webhookId));
    const ct = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
    return [VERSION, iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), ct.toString("base64url")].join(".");
  }

  /** The secret, or null when it cannot be read (SESSION_SECRET changed, or the value was tampered with). */
  open(sealed: string, webhookId: string): string | null {
    const [v, iv, tag, ct] = sealed.split(".");
    if (v !== VERSION || !iv || !tag || ct === undefined) return null;
    try {
      const decipher = createDecipheriv("aes-256-gcm", this.key, Buffer.from(iv, "base64url"));
      decipher.setAAD(Buffer.from(webhookId));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(ct, "base64url")), decipher.final()]).toString("utf8");
    } catch {
      return null;
    }
  }
}

/** The X-Snip-Signature value: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>. */
export function signatureHeader(secret: string, unixSeconds: number, body: string): string {
  const mac = createHmac("sha256", secret).update(`${unixSeconds}.${body}`).digest("hex");
  return `t=${unixSeconds},v1=${mac}`;
}
