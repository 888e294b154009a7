// Reads messages the outbox mailer wrote (.eml files) and pulls links out of them, for the browser tests.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export interface OutboxMessage {
  file: string;
  to: string;
  subject: string;
  text: string;
}

/** Decodes a transfer-encoded body part (quoted-printable or base64; anything else as is). */
function decodeBody(body: string, encoding: string): string {
  const enc = encoding.trim().toLowerCase();
  if (enc === "base64") return Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
  if (enc === "quoted-printable") {
    const bytes = body.replace(/=\r?\n/g, "").replace(/=([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    return Buffer.from(bytes, "latin1").toString("utf8");
  }
  return body;
}

function header(head: string, name: string): string {
  const unfolded = head.replace(/\r?\n[ \t]+/g, " ");
  const m = new RegExp(`^${name}:[ \\t]*(.*)$`, "im").exec(unfolded);
  return m?.[1]?.trim() ?? "";
}

/** Splits a (possibly multipart) message and returns its text/plain content. */
function textOf(raw: string): string {
  const split = raw.search(/\r?\n\r?\n/);
  const head = split === -1 ? raw : raw.slice(0, split);
  const body = split === -1 ? "" : raw.slice(split).replace(/^\r?\n\r?\n/, "");
  const type = header(head, "Content-Type");
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (/^multipart\//i.test(type) && boundary) {
    const parts = body.split(`--${boundary}`).slice(1);
    const texts = parts.map((p) => p.replace(/^\r?\n/, "")).filter((p) => !p.startsWith("--"));
    const plain = texts.find((p) => /content-type:\s*text\/plain/i.test(p.slice(0, p.search(/\r?\n\r?\n/))));
    return textOf(plain ?? texts[0] ?? "");
  }
  return decodeBody(body, header(head, "Content-Transfer-Encoding"));
}

export function readOutbox(dir: string): OutboxMessage[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".eml"))
    .sort()
    .map((f) => {
      const raw = readFileSync(join(dir, f), "utf8");
      const head = raw.slice(0, Math.max(0, raw.search(/\r?\n\r?\n/)));
      return { file: f, to: header(head, "To"), subject: header(head, "Subject"), text: textOf(raw) };
    });
}

/** Waits for a message to `to` whose text contains a link matching `pattern`; returns that link. */
export async function waitForLink(dir: string, to: string, pattern: RegExp, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const m of readOutbox(dir).reverse()) {
      if (!m.to.toLowerCase().includes(to.toLowerCase())) continue;
      const link = (m.text.match(/https?:\/\/[^\s<>"]+/g) ?? []).find((l) => pattern.test(l));
      if (link) return link;
    }
    if (Date.now() > deadline) throw new Error(`no mail to ${to} with a link matching ${pattern} in ${dir}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
