// Mail helpers for tests: a real SMTP server on loopback, and reading .eml files from the outbox.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SMTPServer } from "smtp-server";
import { waitFor } from "./wait.js";

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

export interface SmtpOptions {
  /** Called for each message: a reason string makes the server refuse it (554), null accepts it. */
  refuse?: () => string | null;
  /** A fixed port (a server that comes up where snip already points); 0 or absent: any free port. */
  port?: number;
}

export async function startSmtpServer(opts: SmtpOptions = {}): Promise<{ url: string; messages: ReceivedMail[]; close(): Promise<void> }> {
  const messages: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        const reason = opts.refuse?.() ?? null;
        if (reason !== null) return callback(Object.assign(new Error(reason), { responseCode: 554 }));
        messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString("utf8"),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, "127.0.0.1", resolve));
  const addr = server.server.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Raw .eml messages in an outbox folder, oldest first. */
export function readOutbox(dir: string): string[] {
  let files: string[];
  try {
    files = readdirSync(dir)
      .filter((f) => f.endsWith(".eml"))
      .sort();
  } catch {
    return [];
  }
  return files.map((f) => readFileSync(join(dir, f), "utf8"));
}

/** The first link in a message that contains the given path, with quoted-printable soft breaks undone. */
export function linkIn(raw: string, path: string): string {
  const text = raw.replace(/=\r?\n/g, "").replace(/=3D/g, "=");
  const m = new RegExp(`https?://[^\\s"<>]*${path.replace(/[/?]/g, "\\$&")}[^\\s"<>]*`).exec(text);
  if (!m) throw new Error(`no link with ${path} in message:\n${raw}`);
  return m[0];
}

export function tokenOf(link: string): string {
  const t = new URL(link).searchParams.get("token");
  if (!t) throw new Error(`no token in ${link}`);
  return t;
}

/** Waits for a message to `to` with a link containing `path`; returns that link. */
export function waitForLink(dir: string, to: string, path: string, timeoutMs = 10_000): Promise<string> {
  const find = (): string | null => {
    for (const raw of readOutbox(dir).reverse()) {
      const head = raw.slice(0, Math.max(0, raw.search(/\r?\n\r?\n/)));
      if (!head.toLowerCase().includes(`to: ${to.toLowerCase()}`)) continue;
      try {
        return linkIn(raw, path);
      } catch {
        // another message to the same address
      }
    }
    return null;
  };
  return waitFor(find, { timeoutMs, what: `a mail to ${to} with a link containing ${path} in ${dir}` });
}

/** The decoded body of a message's first MIME part of the given type (quoted-printable, base64 or plain). */
export function mimePart(raw: string, type: "text/plain" | "text/html"): string {
  const parts = raw.split(/\r?\n--[^\r\n]+\r?\n/);
  for (const part of parts) {
    const split = part.search(/\r?\n\r?\n/);
    if (split < 0) continue;
    const head = part.slice(0, split).toLowerCase();
    if (!head.includes(`content-type: ${type}`)) continue;
    const body = part
      .slice(split)
      .replace(/^\r?\n\r?\n/, "")
      .replace(/\r?\n--[^\r\n]*--\s*$/, "");
    if (head.includes("content-transfer-encoding: base64")) return Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
    if (head.includes("content-transfer-encoding: quoted-printable")) {
      const bytes = body.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
      return Buffer.from(bytes, "latin1").toString("utf8");
    }
    return body;
  }
  throw new Error(`no ${type} part in message:\n${raw}`);
}
