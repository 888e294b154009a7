// Versioned migrations, statically imported; applied at start and by `snip migrate`, idempotent.
import { type Migration, type MigrationProvider, Migrator, sql } from "kysely";
import type { Dialect, Storage } from "./db.js";
import { initial } from "./migrations/001-initial.js";
import { clickMonthly } from "./migrations/002-click-monthly.js";
import { rollupWatermark } from "./migrations/003-rollup-watermark.js";
import { leanClicks } from "./migrations/004-lean-clicks.js";
import { monthlyCompaction } from "./migrations/005-monthly-compaction.js";
import { linkNumbers } from "./migrations/006-link-numbers.js";
import { clickStaging } from "./migrations/007-click-staging.js";
import { aliasReservations } from "./migrations/008-alias-reservations.js";
import { clickJournal } from "./migrations/010-click-journal.js";
import { teams } from "./migrations/011-teams.js";
import { customDomains } from "./migrations/012-custom-domains.js";
import { webhooks } from "./migrations/013-webhooks.js";
import { operator } from "./migrations/014-operator.js";
import { mailOutbox } from "./migrations/015-mail-outbox.js";
import { deliveryPayload } from "./migrations/016-delivery-payload.js";
import { tags } from "./migrations/017-tags.js";
import { linkDetails } from "./migrations/018-link-details.js";
import { utmTemplates } from "./migrations/019-utm-templates.js";
import { linkList } from "./migrations/020-link-list.js";
import { targeting } from "./migrations/021-targeting.js";
import { visitors } from "./migrations/022-visitors.js";
import { finerPlaces } from "./migrations/023-finer-places.js";
import { imports } from "./migrations/024-imports.js";
import { twoFactor } from "./migrations/025-two-factor.js";
import { keyScopes } from "./migrations/026-key-scopes.js";
import { sso } from "./migrations/027-sso.js";
import { passkeys } from "./migrations/028-passkeys.js";
import { pgMonthlyCompaction } from "./migrations/030-pg-monthly-compaction.js";
import { clickStream } from "./migrations/031-click-stream.js";
import { linkStartRedirect } from "./migrations/032-link-start-redirect.js";
import { orphanVisits } from "./migrations/033-orphan-visits.js";
import { ssoIdentities } from "./migrations/037-sso-identities.js";
import { streamBatches } from "./migrations/038-stream-batches.js";
import { signInDoor } from "./migrations/039-sign-in-door.js";
import { ssoDomainClaims } from "./migrations/040-sso-domain-claims.js";
import { memberOrigin } from "./migrations/041-member-origin.js";
import { conversions } from "./migrations/042-conversions.js";
import { stripeAndSplitGoals } from "./migrations/043-stripe-and-split-goals.js";
import { webhookEvents } from "./migrations/044-webhook-events.js";
import { appAssociations } from "./migrations/045-app-associations.js";
import { appLinks } from "./migrations/046-app-links.js";
import { conversionRows } from "./migrations/047-conversion-rows.js";
import { appEvents } from "./migrations/048-app-events.js";
import { teamRoles } from "./migrations/049-team-roles.js";
import { folders } from "./migrations/050-folders.js";
import { saml } from "./migrations/051-saml.js";
import { auditTeam } from "./migrations/052-audit-team.js";
import { scim } from "./migrations/053-scim.js";
import { folderAccess } from "./migrations/054-folder-access.js";
import { auditTeamBackfill } from "./migrations/055-audit-team-backfill.js";
import { shares } from "./migrations/056-shares.js";
import { bioPages } from "./migrations/057-bio-pages.js";
import { linkHealth } from "./migrations/058-link-health.js";
import { feedReports } from "./migrations/059-feed-reports.js";
import { linkHealthState } from "./migrations/060-link-health-state.js";
import { pgClickOrder } from "./migrations/061-pg-click-order.js";
import { ownerMonths } from "./migrations/062-owner-months.js";
import { pgClickPartitions } from "./migrations/063-pg-click-partitions.js";
import { pgClickDailyDay } from "./migrations/064-pg-click-daily-day.js";
import { pgRecentClicks } from "./migrations/065-pg-recent-clicks.js";
import { pgClicksAt } from "./migrations/066-pg-clicks-at.js";
import { pgTriggerJoins } from "./migrations/067-pg-trigger-joins.js";
import { pgRollupKeys } from "./migrations/068-pg-rollup-keys.js";

function migrationsFor(storage: Pick<Storage, "dialect">): Record<string, Migration> {
  return {
    "001-initial": initial(storage.dialect),
    "002-click-monthly": clickMonthly(storage.dialect),
    "003-rollup-watermark": rollupWatermark(),
    "004-lean-clicks": leanClicks(storage.dialect),
    "005-monthly-compaction": monthlyCompaction(storage.dialect),
    "006-link-numbers": linkNumbers(storage.dialect),
    "007-click-staging": clickStaging(storage.dialect),
    "008-alias-reservations": aliasReservations(storage.dialect),
    "010-click-journal": clickJournal(),
    "011-teams": teams(),
    "012-custom-domains": customDomains(),
    "013-webhooks": webhooks(storage.dialect),
    "014-operator": operator(storage.dialect),
    "015-mail-outbox": mailOutbox(),
    "016-delivery-payload": deliveryPayload(),
    "017-tags": tags(),
    "018-link-details": linkDetails(),
    "019-utm-templates": utmTemplates(),
    "020-link-list": linkList(),
    "021-targeting": targeting(storage.dialect),
    "022-visitors": visitors(storage.dialect),
    "023-finer-places": finerPlaces(storage.dialect),
    "024-imports": imports(storage.dialect),
    "025-two-factor": twoFactor(storage.dialect),
    "026-key-scopes": keyScopes(),
    "027-sso": sso(),
    "028-passkeys": passkeys(),
    "030-pg-monthly-compaction": pgMonthlyCompaction(storage.dialect),
    "031-click-stream": clickStream(storage.dialect),
    "032-link-start-redirect": linkStartRedirect(),
    "033-orphan-visits": orphanVisits(),
    "037-sso-identities": ssoIdentities(),
    "038-stream-batches": streamBatches(),
    "039-sign-in-door": signInDoor(),
    "040-sso-domain-claims": ssoDomainClaims(storage.dialect),
    "041-member-origin": memberOrigin(),
    "042-conversions": conversions(),
    "043-stripe-and-split-goals": stripeAndSplitGoals(),
    "044-webhook-events": webhookEvents(),
    "045-app-associations": appAssociations(),
    "046-app-links": appLinks(),
    "047-conversion-rows": conversionRows(),
    "048-app-events": appEvents(),
    "049-team-roles": teamRoles(),
    "050-folders": folders(),
    "051-saml": saml(),
    "052-audit-team": auditTeam(),
    "053-scim": scim(),
    "054-folder-access": folderAccess(),
    "055-audit-team-backfill": auditTeamBackfill(storage.dialect),
    "056-shares": shares(),
    "057-bio-pages": bioPages(),
    "058-link-health": linkHealth(),
    "059-feed-reports": feedReports(),
    "060-link-health-state": linkHealthState(),
    "061-pg-click-order": pgClickOrder(storage.dialect),
    "062-owner-months": ownerMonths(storage.dialect),
    "063-pg-click-partitions": pgClickPartitions(storage.dialect),
    "064-pg-click-daily-day": pgClickDailyDay(storage.dialect),
    "065-pg-recent-clicks": pgRecentClicks(storage.dialect),
    "066-pg-clicks-at": pgClicksAt(storage.dialect),
    "067-pg-trigger-joins": pgTriggerJoins(storage.dialect),
    "068-pg-rollup-keys": pgRollupKeys(storage.dialect),
  };
}

/** Every migration this code knows, in order. */
export function knownMigrations(dialect: Dialect): string[] {
  return Object.keys(migrationsFor({ dialect })).sort();
}

/** The database holds a migration this code does not know: a newer snip ran on it. */
export class NewerSchemaError extends Error {
  constructor(readonly unknown: string[]) {
    super(
      `the database schema is newer than this snip (it has migration ${unknown.join(", ")}, unknown here): ` +
        "run the snip version that migrated it, or restore a backup made before that upgrade",
    );
    this.name = "NewerSchemaError";
  }
}

/** Names of the migrations already applied, in order (none on a new database). */
async function appliedMigrations(storage: Storage): Promise<string[]> {
  const tables = await storage.db.introspection.getTables({ withInternalKyselyTables: true });
  if (!tables.some((t) => t.name === "kysely_migration")) return [];
  const rows = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(storage.db);
  return rows.rows.map((r) => r.name);
}

/**
 * The migrations that would run, in order; throws NewerSchemaError when the database holds one this
 * code does not know (migrating it, or serving on it, could damage what the newer version wrote).
 */
export async function pendingMigrations(storage: Storage): Promise<string[]> {
  const known = knownMigrations(storage.dialect);
  const applied = await appliedMigrations(storage);
  const unknown = applied.filter((name) => !known.includes(name));
  if (unknown.length > 0) throw new NewerSchemaError(unknown);
  const done = new Set(applied);
  return known.filter((name) => !done.has(name));
}

/** `extra`: migrations after the known ones (a test's probe of what a new migration changes). */
export async function migrateToLatest(storage: Storage, extra: Record<string, Migration> = {}): Promise<string[]> {
  await pendingMigrations(storage);
  const provider: MigrationProvider = { getMigrations: async () => ({ ...migrationsFor(storage), ...extra }) };
  const migrator = new Migrator({ db: storage.db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
}

/** Applies the migrations up to and including `name` (upgrade tests start from an older schema). */
export async function migrateTo(storage: Storage, name: string): Promise<void> {
  const provider: MigrationProvider = { getMigrations: async () => migrationsFor(storage) };
  const { error } = await new Migrator({ db: storage.db, provider }).migrateTo(name);
  if (error) throw error instanceof Error ? error : new Error(String(error));
}
