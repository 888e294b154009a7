// The server's and the CLI's logger: pino, with secrets redacted before anything is written.
import pretty from "pino-pretty";
import pino, { type Logger } from "pino";
import type { Config } from "../config.js";

export const REDACT_PATHS = [
  "req.headers.authorization",
  "req.headers.cookie",
  "req.headers['x-csrf-token']",
  "res.headers['set-cookie']",
  "*.password",
  "*.new_password",
  "*.current_password",
  "*.secret",
  "*.token",
];

/**
 * JSON lines (for log collectors), or for a person at a terminal one readable line per event (pino-pretty
 * on the main thread: only ever used interactively). Redaction happens before either is written.
 */
export function createLogger(config: Pick<Config, "logLevel"> & Partial<Pick<Config, "logFormat">>, destination?: pino.DestinationStream): Logger {
  const options = { level: config.logLevel, redact: { paths: REDACT_PATHS, censor: "[redacted]" } };
  if (config.logFormat !== "pretty") return pino(options, destination);
  const colorize = destination === undefined && process.stdout.isTTY === true;
  return pino(
    options,
    pretty({ colorize, destination: destination ?? 1, translateTime: "SYS:HH:MM:ss.l", ignore: "pid,hostname", singleLine: true, sync: true }),
  );
}
