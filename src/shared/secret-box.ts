// Secrets the service must read back (webhook signing secrets, queued emails with their links), sealed with
// AES-256-GCM under a key derived from SESSION_SECRET, bound to the row that holds them, never in clear.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

const VERSION = "v1";

export class SealedBox {
  private readonly key: Buffer;

  /** `purpose` separates the keys: a value sealed for one purpose cannot be opened as another's. */
  constructor(sessionSecret: string, purpose: string) {
    this.key = Buffer.from(hkdfSync("sha256", sessionSecret, "snip", purpose, 32));
  }

  /** "v1.<iv>.<tag>.<ciphertext>" (base64url); `boundTo` (the owning row's id) is authenticated data, so a copied value fails. */
  seal(secret: string, boundTo: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    cipher.setAAD(Buffer.from(boundTo));
    const ct = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
    return [VERSION, iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), ct.toString("base64url")].join(".");
  }

  /** The secret, or null when it cannot be read (SESSION_SECRET changed, or the value was tampered with). */
  open(sealed: string, boundTo: string): string | null {
    const [v, iv, tag, ct] = sealed.split(".");
    if (v !== VERSION || !iv || !tag || ct === undefined) return null;
    try {
      const decipher = createDecipheriv("aes-256-gcm", this.key, Buffer.from(iv, "base64url"));
      decipher.setAAD(Buffer.from(boundTo));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(ct, "base64url")), decipher.final()]).toString("utf8");
    } catch {
      return null;
    }
  }
}
