// Account security as the service builds it: passkeys (docs/passkeys.md).
import type { Config } from "../config.js";
import type { Storage } from "../storage/db.js";
import type { Clock } from "../shared/clock.js";
import { type AuditWriter, type PasskeyDeps, PasskeyService } from "./passkeys.js";

export interface SecurityDeps {
  settings: Pick<Config, "baseUrl" | "origin">;
  storage: Storage;
  clock: Clock;
  audit: AuditWriter;
  checkPassword: PasskeyDeps["checkPassword"];
}

export function createSecurity(deps: SecurityDeps): { passkeys: PasskeyService } {
  const { settings } = deps;
  return {
    passkeys: new PasskeyService({
      db: deps.storage.db,
      clock: deps.clock,
      audit: deps.audit,
      // WebAuthn binds a passkey to a domain: BASE_URL's hostname, and its origin in every signed answer.
      rpId: settings.baseUrl.hostname,
      origin: settings.origin,
      rpName: "snip",
      checkPassword: deps.checkPassword,
    }),
  };
}
