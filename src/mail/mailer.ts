// Mailer: SMTP through nodemailer when SMTP_URL is set, else .eml files in DATA_DIR/outbox.
import { PRIVATE_FILE_MODE, makePrivateDir } from "../shared/private-files.js";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import nodemailer from "nodemailer";
import { randomToken } from "../shared/ids.js";

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

export interface MailLogger {
  info(obj: object, msg: string): void;
}

/** An SMTP connection silent this long is given up (the attempt fails and the outbox retries later). */
export const SMTP_IDLE_TIMEOUT_MS = 15_000;

export class SmtpMailer implements Mailer {
  private readonly transport: nodemailer.Transporter;
  constructor(
    url: string,
    private readonly from: string,
  ) {
    // Bounded waits (nodemailer's defaults are minutes): an attempt on a server that is unreachable or never
    // answers ends within SMTP_IDLE_TIMEOUT_MS (a server that accepts the connection and never greets is
    // caught by the idle timeout, not the greeting one), well inside the outbox's claim on the message.
    this.transport = nodemailer.createTransport({ url, connectionTimeout: 5_000, greetingTimeout: 5_000, socketTimeout: SMTP_IDLE_TIMEOUT_MS });
  }
  async send(m: MailMessage): Promise<void> {
    await this.transport.sendMail({ from: this.from, to: m.to, subject: m.subject, text: m.text, html: m.html });
  }
  close(): void {
    this.transport.close();
  }
}

/** Development mailer: writes each message as an .eml file and logs its first link. */
export class OutboxMailer implements Mailer {
  private readonly transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" });
  constructor(
    readonly dir: string,
    private readonly from: string,
    private readonly log?: MailLogger,
  ) {
    // The messages hold live verification and password-reset tokens.
    makePrivateDir(dir, true);
  }
  async send(m: MailMessage): Promise<void> {
    const info = await this.transport.sendMail({ from: this.from, to: m.to, subject: m.subject, text: m.text, html: m.html });
    const file = join(this.dir, `${Date.now()}-${randomToken(6)}.eml`);
    await writeFile(file, info.message as Buffer, { mode: PRIVATE_FILE_MODE });
    const link = /https?:\/\/\S+/.exec(m.text)?.[0];
    // The link is logged on purpose: without SMTP this is how a local operator reads it.
    this.log?.info({ file, to: m.to, subject: m.subject, link }, "mail written to outbox");
  }
  close(): void {}
}
