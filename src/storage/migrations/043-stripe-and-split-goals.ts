// Stripe's webhook endpoint per account and the split goals (docs/conversions.md, Stripe and Splits that pick
// their winner): the endpoint's token (its hash to find it, sealed to show its address) and signing secret
// (sealed, never shown); the ids of the Stripe events already processed, so a replay changes nothing; the
// Stripe customers bound to an account's customers; and on links a split's goal, its end and its decision.
import { type Kysely } from "kysely";

export function stripeAndSplitGoals() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("stripe_endpoints")
        .addColumn("owner_id", "text", (c) => c.primaryKey().references("users.id").onDelete("cascade"))
        .addColumn("token_hash", "text", (c) => c.notNull().unique())
        .addColumn("token_sealed", "text", (c) => c.notNull())
        .addColumn("secret_sealed", "text", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("stripe_events")
        .addColumn("owner_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("event_id", "text", (c) => c.notNull())
        .addColumn("type", "text", (c) => c.notNull())
        // What it became: lead, sale, refund, ignored (why in the log), duplicate never stored.
        .addColumn("outcome", "text", (c) => c.notNull())
        .addColumn("at", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("stripe_events_pk", ["owner_id", "event_id"])
        .execute();
      await db.schema
        .createTable("stripe_customers")
        .addColumn("owner_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("stripe_customer_id", "text", (c) => c.notNull())
        .addColumn("external_id", "text", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("stripe_customers_pk", ["owner_id", "stripe_customer_id"])
        .execute();

      // clicks, leads, sales or revenue; null: the split runs until edited, as before.
      await db.schema.alterTable("links").addColumn("split_goal", "text").execute();
      await db.schema.alterTable("links").addColumn("split_ends_at", "bigint").execute();
      await db.schema.alterTable("links").addColumn("split_min_visits", "integer").execute();
      // When the split (or its goal) was last set: its visits and conversions are counted from then.
      await db.schema.alterTable("links").addColumn("split_started_at", "bigint").execute();
      // JSON of the last decision ({at, result: "winner" | "no_clear_winner", ...}); null while undecided.
      await db.schema.alterTable("links").addColumn("split_decision", "text").execute();
      await db.schema.createIndex("links_split_due").on("links").columns(["split_goal", "split_decision"]).execute();
    },
  };
}
