// Secrets as files: <NAME>_FILE read for each secret setting (the Docker and Kubernetes convention), never both at once.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, SECRET_SETTINGS, loadConfig } from "../../src/config.js";

const dir = () => mkdtempSync(join(tmpdir(), "snip-cfg-file-"));

function secretFile(content: string): string {
  const file = join(dir(), "secret");
  writeFileSync(file, content, { mode: 0o600 });
  return file;
}

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return e as ConfigError;
  }
  throw new Error("no ConfigError thrown");
}

describe("secret settings from <NAME>_FILE", () => {
  it("reads each secret from its file alone, without the trailing newline", () => {
    const secret = "s".repeat(40);
    const c = loadConfig({
      DATA_DIR: dir(),
      SESSION_SECRET_FILE: secretFile(`${secret}\n`),
      DATABASE_URL_FILE: secretFile("postgres://snip:pw@db:5432/snip\n"),
      SMTP_URL_FILE: secretFile("smtps://u:p@mail.example:465"),
      METRICS_TOKEN_FILE: secretFile("metrics-token-0123456789\n"),
    });
    expect(c.sessionSecret).toBe(secret);
    expect(c.database).toEqual({ kind: "postgres", url: "postgres://snip:pw@db:5432/snip", waitMs: 30_000 });
    expect(c.smtpUrl).toBe("smtps://u:p@mail.example:465");
    expect(c.metricsToken).toBe("metrics-token-0123456789");
  });

  it("validates a value from a file as it validates the variable", () => {
    const err = configError(() => loadConfig({ DATA_DIR: dir(), SESSION_SECRET_FILE: secretFile("short\n") }));
    expect(err.message).toBe("SESSION_SECRET: must be at least 32 characters");
  });

  it.each(SECRET_SETTINGS.map((name) => [name]))("refuses %s given both ways, in one line naming the variable", (name) => {
    const err = configError(() => loadConfig({ DATA_DIR: dir(), [name]: "x".repeat(40), [`${name}_FILE`]: secretFile("y".repeat(40)) }));
    expect(err.variable).toBe(name);
    expect(err.message).toBe(`${name}: set both ${name} and ${name}_FILE; give only one`);
    expect(err.message).not.toContain("\n");
  });

  it("refuses a file that cannot be read, or is empty, naming <NAME>_FILE and the path", () => {
    const missing = join(dir(), "no-such-file");
    const notFound = configError(() => loadConfig({ DATA_DIR: dir(), SESSION_SECRET_FILE: missing }));
    expect(notFound.variable).toBe("SESSION_SECRET_FILE");
    expect(notFound.message).toBe(`SESSION_SECRET_FILE: cannot read ${missing}: ENOENT`);

    const aDir = dir();
    expect(configError(() => loadConfig({ DATA_DIR: dir(), DATABASE_URL_FILE: aDir })).message).toBe(`DATABASE_URL_FILE: cannot read ${aDir}: EISDIR`);

    const empty = secretFile("\n");
    expect(configError(() => loadConfig({ DATA_DIR: dir(), METRICS_TOKEN_FILE: empty })).message).toBe(`METRICS_TOKEN_FILE: ${empty} is empty`);
  });

  it("ignores an empty <NAME>_FILE, as an empty variable is ignored", () => {
    const c = loadConfig({ DATA_DIR: dir(), METRICS_TOKEN: "metrics-token-0123456789", METRICS_TOKEN_FILE: " " });
    expect(c.metricsToken).toBe("metrics-token-0123456789");
  });
});
