// `snip` commands (README.md, Command line): serve, migrate, user, team, key, domain - over the same services as the server.
import { Command, CommanderError, Option } from "commander";
import { join, resolve } from "node:path";
import { ConfigError, type DatabaseConfig, loadConfig } from "./config.js";
import { BackupError, type BackupSummary, backupSqlite, restoreSqlite } from "./storage/backup.js";
import { createContext, type AppContext } from "./context.js";
import { serveForever } from "./main.js";
import { openStorage } from "./storage/db.js";
import { migrateToLatest, pendingMigrations } from "./storage/migrate.js";
import { DomainError } from "./shared/errors.js";
import { PLANS } from "./accounts/plans.js";
import type { Domain } from "./contract/domains.js";
import { setOperator } from "./admin/operators.js";
import { CLI_ACTOR } from "./admin/audit-log.js";
import pino from "pino";
import { type ImportOptions, runImport } from "./cli-import.js";
import { IMPORT_SOURCE_NAMES } from "./contract/imports.js";
import { API_KEY_SCOPES } from "./contract/api-keys.js";
import { SNIP_VERSION } from "./ops/version.js";

async function withContext<T>(fn: (ctx: AppContext) => Promise<T>): Promise<T> {
  const config = loadConfig();
  // Warnings go to stderr: stdout carries the command's output alone (`snip key create` prints a secret). A
  // LOG_LEVEL quieter than warn (error, fatal, silent) is the operator's to choose; a louder one stays at warn.
  const quieter = ["error", "fatal", "silent"].includes(config.logLevel);
  const ctx = await createContext(config, { log: pino({ level: quieter ? config.logLevel : "warn" }, process.stderr) });
  try {
    // Loaded as a server loads them before it listens (an import checks links against the blocklist); the
    // work a server begins once it listens (ctx.run()) is left to servers, but for `snip import`'s runner.
    await ctx.start();
    return await fn(ctx);
  } finally {
    await ctx.close();
  }
}

// eslint-disable-next-line max-lines-per-function -- one declaration per command, in the order `snip --help` lists them
export function buildCli(): Command {
  const program = new Command("snip").description("snip: a self-hostable link shortener").version(SNIP_VERSION).exitOverride();

  program
    .command("serve")
    .description("start the service")
    .action(async () => {
      const config = loadConfig();
      // WORKERS=N: N processes on the port (src/cluster/); WORKERS=1 is the one process, as ever.
      if (config.workers > 1) await (await import("./cluster/run.js")).runCluster(config);
      else await serveForever(config);
    });

  program
    .command("migrate")
    .description("bring the database schema up to date")
    .option("--dry-run", "list the migrations that would run, and run none")
    .action(async (o: { dryRun?: boolean }) => {
      const storage = await openStorage(loadConfig().database);
      try {
        if (o.dryRun) {
          const pending = await pendingMigrations(storage);
          process.stdout.write(pending.length ? `would apply: ${pending.join(", ")}\n` : "schema is up to date\n");
          return;
        }
        const applied = await migrateToLatest(storage);
        process.stdout.write(applied.length ? `applied: ${applied.join(", ")}\n` : "schema is up to date\n");
      } finally {
        await storage.close();
      }
    });

  program
    .command("backup <file>")
    .description("copy the SQLite database to a new file while the service runs (PostgreSQL: pg_dump, docs/postgresql.md)")
    .action(async (file: string) => {
      const config = loadConfig();
      const db = sqliteOnly(config.database, "pg_dump");
      process.stdout.write(`${describeBackup(await backupSqlite(db.file, resolve(file)))}\n`);
    });

  program
    .command("restore <file>")
    .description("put a backup made by `snip backup` in place of the database (the service stopped)")
    .action((file: string) => {
      const config = loadConfig();
      const db = sqliteOnly(config.database, "pg_restore");
      const r = restoreSqlite(resolve(file), db.file, join(config.dataDir, "click-journal"));
      process.stdout.write(`restored ${describeBackup(r)}\n`);
      if (r.replaced) process.stdout.write(`the database it replaced: ${r.replaced}\n`);
      if (r.journalReplaced) process.stdout.write(`that database's click journal: ${r.journalReplaced}\n`);
    });

  const user = program.command("user").description("manage accounts");
  user
    .command("create")
    .description("create an account")
    .requiredOption("--email <email>", "email address")
    .requiredOption("--password <password>", "password (10 to 200 characters)")
    .option("--plan <plan>", `plan: ${PLANS.join("|")}`, "free")
    .option("--name <name>", "display name", "")
    .option("--verified", "mark the email address as verified", false)
    .option("--admin", "make the account an operator (the console under /app/admin)", false)
    .option("--break-glass", "with --admin: keep password sign-in for this operator under OIDC_ONLY (docs/sso.md)", false)
    .action(async (o: { email: string; password: string; plan: string; name: string; verified: boolean; admin: boolean; breakGlass: boolean }) => {
      if (o.breakGlass && !o.admin) throw new DomainError("invalid_request", "--break-glass is for operators: add --admin");
      await withContext(async (ctx) => {
        let u = await ctx.accounts.create({ email: o.email, password: o.password, plan: o.plan, name: o.name, verified: o.verified });
        if (o.admin) u = await setOperator({ db: ctx.storage.db, clock: ctx.clock, audit: ctx.audit }, CLI_ACTOR, u.email, true);
        if (o.breakGlass) await ctx.sso.policy.markBreakGlass(u.id);
        process.stdout.write(
          `created ${u.email} (${u.plan}${u.email_verified_at ? ", verified" : ""}${o.admin ? ", operator" : ""}${o.breakGlass ? ", break-glass" : ""}) id=${u.id}\n`,
        );
      });
    });
  user
    .command("plan <email> <plan>")
    .description(`set an account's plan (${PLANS.join("|")})`)
    .action(async (email: string, plan: string) => {
      await withContext(async (ctx) => {
        const u = await ctx.accounts.setPlan(email, plan);
        process.stdout.write(`${u.email}: plan ${u.plan}\n`);
      });
    });
  for (const [name, status] of [
    ["suspend", "suspended"],
    ["activate", "active"],
  ] as const) {
    user
      .command(`${name} <email>`)
      .description(`${name} an account`)
      .action(async (email: string) => {
        await withContext(async (ctx) => {
          const u = await ctx.accounts.setStatus(email, status);
          process.stdout.write(`${u.email}: ${u.status}\n`);
        });
      });
  }

  user
    .command("admin <email> <state>")
    .description("make an account an operator (on) or not (off)")
    .action(async (email: string, state: string) => {
      if (state !== "on" && state !== "off") throw new DomainError("invalid_request", `state must be on or off, got "${state}"`);
      await withContext(async (ctx) => {
        const u = await setOperator({ db: ctx.storage.db, clock: ctx.clock, audit: ctx.audit }, CLI_ACTOR, email, state === "on");
        process.stdout.write(`${u.email}: operator ${state}\n`);
      });
    });

  const key = program.command("key").description("manage API keys");
  key
    .command("create <email>")
    .description("create an API key for an account; prints the secret alone on stdout")
    .option("--name <name>", "label shown in the profile", "CLI key")
    .option("--scopes <list>", `comma-separated scopes (${API_KEY_SCOPES.join(", ")}); default links:create`)
    .option("--expires <time>", "a date (YYYY-MM-DD: refused from the end of that day, as the dashboard sets it) or an ISO-8601 time")
    .action(async (email: string, o: { name: string; scopes?: string; expires?: string }) => {
      await withContext(async (ctx) => {
        const scopes = o.scopes?.split(",").map((s) => s.trim());
        const { secret } = await ctx.apiKeys.create(await ctx.accounts.requireByEmail(email), { name: o.name, scopes, expires_at: keyExpiry(o.expires) });
        process.stdout.write(`${secret}\n`);
      });
    });

  const team = program.command("team").description("teams");
  team
    .command("list <email>")
    .description("an account's team: its members, its pending invitations, the teams it belongs to")
    .action(async (email: string) => {
      await withContext(async (ctx) => {
        const t = await ctx.teams.overview(await ctx.accounts.requireByEmail(email));
        const lines = [
          `members (${t.members.length}):`,
          ...t.members.map((m) => `  ${m.email}${m.name ? ` (${m.name})` : ""} joined ${m.joined_at}`),
          `pending invitations (${t.invitations.length}):`,
          ...t.invitations.map((i) => `  ${i.email} sent ${i.sent_at}${i.send_confirmed ? "" : " (sending not confirmed)"} expires ${i.expires_at}`),
          `member of (${t.memberships.length}):`,
          ...t.memberships.map((m) => `  ${m.owner_email} joined ${m.joined_at}${m.active ? "" : " (suspended: owner inactive or plan without sharing)"}`),
        ];
        process.stdout.write(`${lines.join("\n")}\n`);
      });
    });

  program
    .command("import <source> <email>")
    .description(`import links into an account from ${IMPORT_SOURCE_NAMES.join(", ")} (a progress bar on stderr; the counts on stdout; exit 0 when done)`)
    .option("--base-url <url>", "the source API's address (Bitly and Dub have defaults)")
    // The token from the environment keeps it out of the process list.
    .addOption(new Option("--token <token>", "API key, access token or signature").env("SNIP_IMPORT_TOKEN"))
    .option("--group <guid>", "Bitly: one group only")
    .option("--file <path>", "csv: a CSV file with a header row, or snip's JSON export")
    .option("--on-taken <what>", "a taken alias: skip the line, or generate one", "skip")
    .option("--resume <id>", "continue a failed or cancelled import")
    .option("--report <path>", "write the report (CSV) there at the end")
    .action(async (source: string, email: string, o: Omit<ImportOptions, "email">) => {
      await withContext(async (ctx) => {
        const code = await runImport(ctx, source, { ...o, email });
        if (code !== 0) throw new CliExit(code);
      });
    });

  const domain = program.command("domain").description("custom domains");
  domain
    .command("list <email>")
    .description("an account's custom domains: hostname, status, last check and what to fix")
    .action(async (email: string) => {
      await withContext(async (ctx) => {
        const list = await ctx.domains.list(await ctx.accounts.requireByEmail(email));
        if (list.length === 0) process.stdout.write(`${email}: no custom domains\n`);
        for (const d of list.map((x) => ctx.domains.toPublic(x))) process.stdout.write(`${describeDomain(d)}\n`);
      });
    });
  domain
    .command("verify <hostname>")
    .description("check a domain's DNS records now (exit code 0 when verified, 3 when still pending)")
    .action(async (hostname: string) => {
      await withContext(async (ctx) => {
        const row = await ctx.domains.verifyHostname(hostname);
        const d = ctx.domains.toPublic({ ...row, link_count: 0 });
        process.stdout.write(`${describeDomain(d)}\n`);
        if (d.status !== "verified") throw new CliExit(3);
      });
    });

  return program;
}

/** One line per domain: hostname, status, last check, and the next action when there is one. */
function describeDomain(d: Domain): string {
  const checked = d.last_checked_at ? `checked ${d.last_checked_at}` : "never checked";
  return `${d.hostname}\t${d.status}\t${checked}${d.next_action ? `\t${d.next_action}` : ""}`;
}

function sqliteOnly(database: DatabaseConfig, tool: string): { kind: "sqlite"; file: string } {
  if (database.kind !== "sqlite" || database.file === ":memory:") {
    throw new BackupError(`the database is PostgreSQL: use ${tool} (docs/postgresql.md, Backups)`);
  }
  return database;
}

function describeBackup(b: BackupSummary): string {
  return `${b.file}: ${b.links} links, ${b.clicks} clicks, ${(b.bytes / 1_048_576).toFixed(1)} MB, schema ${b.schema}`;
}

/** Ends a command with an exit code and nothing more to say (its answer is already on stdout). */
class CliExit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

export async function runCli(argv: string[]): Promise<number> {
  const program = buildCli();
  try {
    await program.parseAsync(argv, { from: "user" });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    if (err instanceof CliExit) return err.code;
    if (err instanceof ConfigError) process.stderr.write(`snip: configuration error: ${err.message}\n`);
    else if (err instanceof DomainError || err instanceof BackupError) process.stderr.write(`snip: ${err.message}\n`);
    else process.stderr.write(`snip: ${(err as Error).message ?? String(err)}\n`);
    return 1;
  }
}

/**
 * `--expires`: a day alone (2027-01-01) means the end of that day in this machine's time zone, as the dashboard's
 * date field sets it (23:59:59 local); anything else goes to the server's check as it was typed.
 */
export function keyExpiry(raw: string | undefined): string | undefined {
  if (raw === undefined || !/^\d{4}-\d{2}-\d{2}$/.test(raw)) return raw;
  const end = new Date(`${raw}T23:59:59`);
  const [y, m, d] = raw.split("-").map(Number);
  // 2027-02-30 rolls over to March in Date: refuse it as typed instead.
  return Number.isNaN(end.getTime()) || end.getFullYear() !== y || end.getMonth() + 1 !== m || end.getDate() !== d ? raw : end.toISOString();
}

// Run when executed directly (bin/snip.js or node dist/src/cli.js), not when imported by tests.
const invoked = process.argv[1] ?? "";
if (/(?:^|[\\/])(?:cli\.(?:ts|js)|snip(?:\.js)?)$/.test(invoked)) {
  const code = await runCli(process.argv.slice(2));
  if (code !== 0) process.exitCode = code;
}
