// The owner's daily link health digest (docs/health.md, Digest): one email listing the destinations that broke or
// recovered since the last one, at most one a day per owner, none when nothing changed. The changes are claimed by
// marking them (one instance sends each digest), then sent through the mail outbox.
import type { Db } from "../storage/db.js";
import type { Clock } from "../shared/clock.js";
import { iso } from "../shared/clock.js";
import type { MailSender } from "../mail/mail-queue.js";
import { shortUrl } from "../links/public-link.js";

export const DIGEST_EVERY_MS = 86_400_000;

export interface HealthDigestDeps {
  db: Db;
  clock: Clock;
  mailer: MailSender;
  origin: string;
}

export class HealthDigest {
  constructor(private readonly deps: HealthDigestDeps) {}

  /** Sends each owner's digest that is due (changes waiting, none sent in the last day). Answers how many were sent. */
  async sendDue(): Promise<number> {
    const { db } = this.deps;
    const now = this.deps.clock.now();
    const owners = await db.selectFrom("link_health_changes").select("owner_id").where("digested_at", "is", null).groupBy("owner_id").execute();
    let sent = 0;
    for (const { owner_id: ownerId } of owners) {
      const last = await db
        .selectFrom("link_health_changes")
        .select((eb) => eb.fn.max("digested_at").as("at"))
        .where("owner_id", "=", ownerId)
        .executeTakeFirst();
      if (last?.at != null && now - Number(last.at) < DIGEST_EVERY_MS) continue;
      if (await this.sendOne(ownerId, now)) sent++;
    }
    return sent;
  }

  private async sendOne(ownerId: string, now: number): Promise<boolean> {
    const { db } = this.deps;
    // The claim: only the instance whose update marks them lists them.
    const claimed = await db
      .updateTable("link_health_changes")
      .set({ digested_at: now })
      .where("owner_id", "=", ownerId)
      .where("digested_at", "is", null)
      .returning(["id", "link_id", "destination", "url", "change", "at"])
      .execute();
    if (claimed.length === 0) return false;
    const user = await db.selectFrom("users").select(["email"]).where("id", "=", ownerId).executeTakeFirst();
    if (!user) return false;
    const links = await db
      .selectFrom("links")
      .select(["id", "alias", "domain"])
      .where(
        "id",
        "in",
        claimed.map((c) => c.link_id),
      )
      .execute();
    const byId = new Map(links.map((l) => [l.id, l]));
    const sorted = [...claimed].sort((a, b) => Number(a.at) - Number(b.at));
    const lines = (change: string) =>
      sorted
        .filter((c) => c.change === change)
        .map((c) => {
          const link = byId.get(c.link_id);
          const short = link ? shortUrl(this.deps.origin, link.domain, link.alias) : c.link_id;
          return `- ${short} (${c.destination}): ${c.url}, ${iso(Number(c.at))}\n  ${this.deps.origin}/app/links/${c.link_id}`;
        });
    const broken = lines("broken");
    const recovered = lines("recovered");
    const parts = [`${broken.length} broke`, `${recovered.length} recovered`].filter((p) => !p.startsWith("0 "));
    const text = [
      "Link health since the last digest:",
      "",
      ...(broken.length > 0 ? ["Broken (three failed checks in a row):", ...broken, ""] : []),
      ...(recovered.length > 0 ? ["Recovered:", ...recovered, ""] : []),
      "Each link's page shows its destinations' last checks.",
    ].join("\n");
    await this.deps.mailer.send({ to: user.email, subject: `Link health: ${parts.join(", ")}`, text }, { key: `health-digest:${ownerId}:${now}` });
    return true;
  }
}
