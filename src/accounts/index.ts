// Accounts as the service builds them: users (sign-up, sign-in, plans, deletion), sessions and API keys.
import type { Config } from "../config.js";
import type { Storage } from "../storage/db.js";
import type { OwnerCaps } from "../storage/owner-caps.js";
import type { RateEvents } from "../storage/rate-events.js";
import type { Clock } from "../shared/clock.js";
import type { EventPublisher } from "../shared/events.js";
import type { MailSender } from "../mail/mail-queue.js";
import { AccountService } from "./accounts.js";
import { SessionService } from "./sessions.js";
import { ApiKeyService } from "./api-keys.js";

export interface AccountsDeps {
  settings: Pick<Config, "origin" | "sessionSecret" | "sessionTtlDays">;
  storage: Storage;
  caps: OwnerCaps;
  clock: Clock;
  rate: RateEvents;
  mailer: MailSender;
  /** Publishes "account.changed". */
  events: EventPublisher;
}

export interface Accounts {
  accounts: AccountService;
  sessions: SessionService;
  apiKeys: ApiKeyService;
}

export function createAccounts(deps: AccountsDeps): Accounts {
  const { settings, storage, clock, rate } = deps;
  return {
    accounts: new AccountService({ db: storage.db, dialect: storage.dialect, clock, mailer: deps.mailer, rate, origin: settings.origin, events: deps.events }),
    sessions: new SessionService(storage.db, clock, settings.sessionSecret, settings.sessionTtlDays * 86_400_000),
    apiKeys: new ApiKeyService({ storage, caps: deps.caps, clock, rate }),
  };
}
