// Versioned migrations, statically imported; applied at start and by `snip migrate`, idempotent.
import { type Migration, type MigrationProvider, Migrator } from "kysely";
import type { Storage } from "./db.js";
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

function migrationsFor(storage: Storage): Record<string, Migration> {
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
  };
}

export async function migrateToLatest(storage: Storage): Promise<string[]> {
  const provider: MigrationProvider = { getMigrations: async () => migrationsFor(storage) };
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
