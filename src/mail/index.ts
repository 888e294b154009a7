// Mail as the service builds it: the transport (SMTP_URL, else .eml files in DATA_DIR/outbox) behind the
// outbox queue every email goes through.
import { join } from "node:path";
import type { Logger } from "pino";
import type { Config } from "../config.js";
import type { Db } from "../storage/db.js";
import type { Clock } from "../shared/clock.js";
import { SealedBox } from "../shared/secret-box.js";
import type { EventPublisher } from "../shared/events.js";
import { type Mailer, OutboxMailer, SmtpMailer } from "./mailer.js";
import { MailQueue } from "./mail-queue.js";

export interface MailDeps {
  settings: Pick<Config, "smtpUrl" | "mailFrom" | "dataDir" | "sessionSecret">;
  db: Db;
  clock: Clock;
  log: Logger;
  /** Publishes "mail.sent". */
  events: EventPublisher;
  /** A transport instead of SMTP or the outbox directory (tests). */
  transport?: Mailer;
  /** Tracing's wrapper around the SMTP transport (a span per message). */
  traceSmtp?: (smtp: Mailer, smtpUrl: string) => Mailer;
}

export interface Mail {
  transport: Mailer;
  mailer: MailQueue;
}

export function createMail(deps: MailDeps): Mail {
  const { settings } = deps;
  const smtp = (url: string): Mailer => {
    const mailer = new SmtpMailer(url, settings.mailFrom);
    return deps.traceSmtp?.(mailer, url) ?? mailer;
  };
  const transport =
    deps.transport ?? (settings.smtpUrl ? smtp(settings.smtpUrl) : new OutboxMailer(join(settings.dataDir, "outbox"), settings.mailFrom, deps.log));
  const box = new SealedBox(settings.sessionSecret, "queued emails v1");
  return { transport, mailer: new MailQueue({ db: deps.db, transport, box, clock: deps.clock, log: deps.log, events: deps.events }) };
}
