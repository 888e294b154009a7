// The apps each host is associated with (docs/deep-links.md, App association): kept in app_associations, served
// from memory. Every instance holds every host's two files, ready to send (a few hundred bytes per host with apps);
// a change reloads them here at once and on the other instances through the change feed, and a full reload every
// minute catches a lost notification. A custom domain's files are its own; every other host is the main host.
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Db, ChangeFeed } from "../storage/db.js";
import type { Database, UserRow } from "../storage/schema.js";
import type { Clock } from "../shared/clock.js";
import type { DomainChanges } from "../domains/domain-changes.js";
import type { CustomHosts } from "../domains/custom-hosts.js";
import type { DomainService } from "../domains/domains.js";
import type { Apps, AppsBody } from "../contract/deeplinks.js";
import { OwnEchoes } from "../storage/own-echoes.js";
import { androidFile, appleFile, checkApps, type HostApps } from "./association-files.js";

export const APPS_CHANNEL = "apps_changed";
const RELOAD_MS = 60_000;
/** The main host's row. */
const MAIN = "main";

export const APPLE_PATH = "/.well-known/apple-app-site-association";
export const ANDROID_PATH = "/.well-known/assetlinks.json";

/** A file as it is sent: the JSON's bytes. */
export interface ServedFile {
  body: Buffer;
}

interface HostFiles {
  apple: ServedFile | null;
  android: ServedFile | null;
}

type Audit = (trx: Kysely<Database>, at: number) => Promise<void>;

const served = (json: unknown): ServedFile | null => (json === null ? null : { body: Buffer.from(JSON.stringify(json)) });

function parseApps(ios: string, android: string): HostApps {
  try {
    return { ios: JSON.parse(ios) as HostApps["ios"], android: JSON.parse(android) as HostApps["android"] };
  } catch {
    return { ios: [], android: [] }; // written by checkApps() only: unreadable means nothing is served
  }
}

export interface AppAssociationDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  feed: ChangeFeed;
  domains: Pick<DomainService, "get">;
  customHosts: Pick<CustomHosts, "has">;
  domainChanges: DomainChanges;
  audit: RecordAppsChange;
}

/** Who changed the main host's apps (an operator), as the audit log names them. */
export interface Operator {
  id: string | null;
  email: string;
}

/** The audit entry of the operator's change, written in its transaction (admin/'s AuditLog, handed in by the context). */
export type RecordAppsChange = (
  trx: Kysely<Database>,
  operator: Operator,
  at: number,
  entry: { action: "apps.update" | "apps.remove"; targetType: "host"; targetId: string; summary: string; before: unknown; after?: unknown },
) => Promise<void>;

export class AppAssociations {
  /** Custom domain hostname (or "" for the main host) -> its files. */
  private files = new Map<string, HostFiles>();
  private timer: NodeJS.Timeout | null = null;
  private loads = 0;
  private readonly echoes: OwnEchoes;

  constructor(private readonly deps: AppAssociationDeps) {
    this.echoes = new OwnEchoes(deps.feed);
    deps.feed.subscribe(APPS_CHANNEL, (payload) => {
      if (!this.echoes.consume(payload)) void this.reloadLogged();
    });
    deps.feed.onResync(() => void this.reloadLogged());
    // A domain deleted and added again gets a new id: its old apps must not be served meanwhile.
    deps.domainChanges.listen(() => this.reloadLogged());
  }

  async start(): Promise<void> {
    await this.reload();
    this.timer ??= setInterval(() => void this.reloadLogged(), RELOAD_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** The file for a request's host name (no port), or null: 404. At redirect speed: two Map lookups. */
  file(hostname: string, path: typeof APPLE_PATH | typeof ANDROID_PATH): ServedFile | null {
    const host = hostname.toLowerCase().replace(/\.$/, "");
    const files = this.files.get(this.deps.customHosts.has(host) ? host : "");
    if (!files) return null;
    return path === APPLE_PATH ? files.apple : files.android;
  }

  /** A custom domain's apps (its owner's); 404 not_found for another account's domain. */
  async forDomain(actor: UserRow, domainId: string): Promise<{ host: string; apps: Apps }> {
    const d = await this.deps.domains.get(actor, domainId);
    return { host: d.hostname, apps: await this.read(d.id) };
  }

  async setForDomain(actor: UserRow, domainId: string, body: AppsBody): Promise<{ host: string; apps: Apps }> {
    const apps = checkApps(body);
    const d = await this.deps.domains.get(actor, domainId);
    await this.write(d.id, d.id, apps);
    return { host: d.hostname, apps: await this.read(d.id) };
  }

  async deleteForDomain(actor: UserRow, domainId: string): Promise<void> {
    const d = await this.deps.domains.get(actor, domainId);
    await this.remove(d.id);
  }

  /** The main host's apps (the operator's). */
  main(): Promise<Apps> {
    return this.read(MAIN);
  }

  /** The operator's change, in the audit log with the lists before and after. */
  async setMain(operator: Operator, body: AppsBody): Promise<Apps> {
    const apps = checkApps(body);
    const before = await this.read(MAIN);
    await this.write(MAIN, null, apps, (trx, at) =>
      this.deps.audit(trx, operator, at, {
        action: "apps.update",
        targetType: "host",
        targetId: MAIN,
        summary: `main host: ${apps.ios.length} iOS and ${apps.android.length} Android apps`,
        before: { ios: before.ios, android: before.android },
        after: apps,
      }),
    );
    return this.read(MAIN);
  }

  async deleteMain(operator: Operator): Promise<void> {
    const before = await this.read(MAIN);
    await this.remove(MAIN, (trx, at) =>
      this.deps.audit(trx, operator, at, {
        action: "apps.remove",
        targetType: "host",
        targetId: MAIN,
        summary: "main host: apps removed",
        before: { ios: before.ios, android: before.android },
      }),
    );
  }

  /** What the two files hold for these apps (the dashboard shows them as the systems read them). */
  static filesOf(apps: Pick<Apps, "ios" | "android">): { apple_app_site_association: object | null; assetlinks: object[] | null } {
    return { apple_app_site_association: appleFile(apps), assetlinks: androidFile(apps) };
  }

  private async read(id: string): Promise<Apps> {
    const row = await this.deps.db.selectFrom("app_associations").selectAll().where("id", "=", id).executeTakeFirst();
    if (!row) return { ios: [], android: [], updated_at: null };
    return { ...parseApps(row.ios, row.android), updated_at: new Date(Number(row.updated_at)).toISOString() };
  }

  private async write(id: string, domainId: string | null, apps: HostApps, audit?: Audit): Promise<void> {
    const at = this.deps.clock.now();
    const values = { ios: JSON.stringify(apps.ios), android: JSON.stringify(apps.android), updated_at: at };
    await this.deps.db.transaction().execute(async (trx) => {
      await trx
        .insertInto("app_associations")
        .values({ id, domain_id: domainId, ...values })
        .onConflict((oc) => oc.column("id").doUpdateSet(values))
        .execute();
      await audit?.(trx, at);
    });
    await this.changed();
  }

  private async remove(id: string, audit?: Audit): Promise<void> {
    await this.deps.db.transaction().execute(async (trx) => {
      await trx.deleteFrom("app_associations").where("id", "=", id).execute();
      await audit?.(trx, this.deps.clock.now());
    });
    await this.changed();
  }

  /** Served here before the answer goes out; the other instances hear it through the feed. */
  private async changed(): Promise<void> {
    await this.reload();
    await this.echoes.publish(APPS_CHANNEL, String(this.deps.clock.now()));
  }

  private reloadLogged(): Promise<void> {
    return this.reload().catch((err) => this.deps.log.warn({ err }, "app association reload failed (the minute's reload retries)"));
  }

  /** Every host's files, swapped in at once; a slower load that began earlier does not overwrite a newer one. */
  private async reload(): Promise<void> {
    const seq = ++this.loads;
    const rows = await this.deps.db
      .selectFrom("app_associations as a")
      .leftJoin("domains as d", "d.id", "a.domain_id")
      .select(["a.id", "a.ios", "a.android", "d.hostname"])
      .execute();
    if (seq !== this.loads) return;
    const next = new Map<string, HostFiles>();
    for (const r of rows) {
      const host = r.id === MAIN ? "" : r.hostname;
      if (host === null) continue;
      const apps = parseApps(r.ios, r.android);
      next.set(host, { apple: served(appleFile(apps)), android: served(androidFile(apps)) });
    }
    this.files = next;
  }
}
