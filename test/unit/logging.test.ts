// Structured logs never carry secrets: authorization, cookies, CSRF tokens, passwords, tokens.
import { Writable } from "node:stream";
import { expect, it } from "vitest";
import { createLogger } from "../../src/ops/logging.js";

it("redacts secrets from structured logs", () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const log = createLogger({ logLevel: "info" }, sink);
  log.info(
    {
      req: { headers: { authorization: "Bearer snip_SECRETKEY", cookie: "snip_sid=SECRETSID", "x-csrf-token": "SECRETCSRF", host: "x" } },
      res: { headers: { "set-cookie": "snip_sid=SECRETSET" } },
      body: { password: "SECRETPW", new_password: "SECRETNEW", current_password: "SECRETCUR", token: "SECRETTOKEN", secret: "SECRETS", email: "a@example.com" },
    },
    "request",
  );
  const out = lines.join("");
  expect(out).not.toMatch(/SECRET/);
  expect(out).toContain('"host":"x"');
  expect(out).toContain("a@example.com");
  expect(out.match(/\[redacted\]/g)).toHaveLength(9);
});
