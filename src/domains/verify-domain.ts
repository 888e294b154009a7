// Verifying a custom domain (on request, throttled per domain) and re-checking verified ones: the
// state written, what the owner is told, and the claims that keep two instances from doing one check twice.
import type { DomainRow } from "../storage/schema.js";
import { DomainError } from "../shared/errors.js";
import type { DnsCheck } from "./dns-check.js";
import { expectedRecords, nextAction } from "./dns-check.js";
import type { DomainDeps } from "./deps.js";

/** What verifying asks of the domain service (DomainService passes itself): its dependencies, its DNS check, its cache announcement. */
export interface DomainVerifier {
  readonly deps: DomainDeps;
  check(d: Pick<DomainRow, "hostname" | "txt_token">): Promise<DnsCheck>;
  announce(hostname: string): Promise<void>;
}

/** One verify request per domain in this window (each may ask DNS for up to DNS_DEADLINE_MS). */
export const VERIFY_INTERVAL_MS = 5_000;
/** Re-checks claimed per run, and run at once. */
const RECHECK_BATCH = 50;
const RECHECK_PARALLEL = 5;

/** The TXT record is definitely gone or changed (not merely unanswered): the proof of ownership is lost. */
const txtLost = (c: DnsCheck) => c.txt.state === "missing" || c.txt.state === "wrong";

/** Claims this domain's verify slot; two requests at once: one passes, the other gets 429. */
async function claimVerify(svc: DomainVerifier, d: DomainRow, now: number): Promise<void> {
  const r = await svc.deps.db
    .updateTable("domains")
    .set({ verify_requested_at: now })
    .where("id", "=", d.id)
    .where((eb) => eb.or([eb("verify_requested_at", "is", null), eb("verify_requested_at", "<=", now - VERIFY_INTERVAL_MS)]))
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) === 1) return;
  const row = await svc.deps.db.selectFrom("domains").select("verify_requested_at").where("id", "=", d.id).executeTakeFirst();
  if (!row) throw new DomainError("not_found", "No such domain");
  const wait = Math.max(1, Math.ceil((Number(row.verify_requested_at) + VERIFY_INTERVAL_MS - now) / 1000));
  throw new DomainError("rate_limited", `${d.hostname} was checked a moment ago; try again in ${wait} s`, undefined, undefined, wait);
}

export async function verifyNow(svc: DomainVerifier, d: DomainRow, opts: { throttle: boolean }): Promise<void> {
  const { db, clock, recheckMs } = svc.deps;
  if (opts.throttle) await claimVerify(svc, d, clock.now());
  const check = await svc.check(d);
  const now = clock.now();
  const action = nextAction(check, expectedRecords(d, svc.deps.cnameTarget));
  if (action === null) {
    const r = await db
      .updateTable("domains")
      .set({
        status: "verified",
        next_action: null,
        last_checked_at: now,
        verified_at: d.status === "verified" && d.verified_at !== null ? d.verified_at : now,
        lost_at: null,
        next_check_at: now + recheckMs,
      })
      .where("id", "=", d.id)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) === 0) throw new DomainError("not_found", "No such domain");
    // Negative cache entries (a visitor who came before the domain was verified) are dropped everywhere.
    if (d.status !== "verified") await svc.announce(d.hostname);
    return;
  }
  if (d.status === "verified" && txtLost(check)) {
    await demote(svc, d, check, now);
    return;
  }
  // Pending stays pending; a verified domain whose CNAME changed or whose DNS did not answer stays
  // verified (only the TXT record proves ownership), with the problem shown.
  const r = await db.updateTable("domains").set({ next_action: action, last_checked_at: now }).where("id", "=", d.id).executeTakeFirst();
  if (Number(r.numUpdatedRows) === 0) throw new DomainError("not_found", "No such domain");
}

/** Back to pending: its links answer 404 on every instance, and the owner is told why (dashboard and email). */
async function demote(svc: DomainVerifier, d: DomainRow, check: DnsCheck, now: number): Promise<void> {
  const { db, log, mailer, origin } = svc.deps;
  const steps = nextAction({ cname: { state: "ok" }, txt: check.txt }, expectedRecords(d, svc.deps.cnameTarget)) ?? "";
  const action = `Verification lost: ${steps} Links on ${d.hostname} answer 404 until it is verified again.`;
  const r = await db
    .updateTable("domains")
    .set({ status: "pending", next_action: action, last_checked_at: now, verified_at: null, lost_at: now, next_check_at: null })
    .where("id", "=", d.id)
    .where("status", "=", "verified")
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) === 0) return;
  await svc.announce(d.hostname);
  const owner = await db.selectFrom("users").select(["email"]).where("id", "=", d.owner_id).executeTakeFirst();
  if (!owner) return;
  try {
    await mailer.send({
      to: owner.email,
      subject: `${d.hostname} is no longer verified`,
      text:
        `The regular check of your custom domain ${d.hostname} no longer finds its TXT record.\n\n${steps}\n\n` +
        `Until it is verified again, links on ${d.hostname} answer 404.\nVerify it again on ${origin}/app/domains once the record is back.\n`,
    });
  } catch (err) {
    log.warn({ err, hostname: d.hostname }, "could not email the owner of a domain that went back to pending");
  }
}

/** One claimed re-check: the claim moves next_check_at on, so no other instance takes the same one. */
async function recheckOne(svc: DomainVerifier, d: Pick<DomainRow, "id" | "next_check_at">, now: number): Promise<boolean> {
  const { db, recheckMs } = svc.deps;
  const claimed = await db
    .updateTable("domains")
    .set({ next_check_at: now + recheckMs })
    .where("id", "=", d.id)
    .where("status", "=", "verified")
    .where("next_check_at", "=", Number(d.next_check_at))
    .executeTakeFirst();
  if (Number(claimed.numUpdatedRows) !== 1) return false;
  const row = await db.selectFrom("domains").selectAll().where("id", "=", d.id).executeTakeFirst();
  if (!row || row.status !== "verified") return false;
  const check = await svc.check(row);
  const at = svc.deps.clock.now();
  if (txtLost(check)) await demote(svc, row, check, at);
  else {
    const action = nextAction(check, expectedRecords(row, svc.deps.cnameTarget));
    await db.updateTable("domains").set({ last_checked_at: at, next_action: action }).where("id", "=", d.id).where("status", "=", "verified").execute();
  }
  return true;
}

export async function runRecheck(svc: DomainVerifier): Promise<number> {
  const now = svc.deps.clock.now();
  const due = await svc.deps.db
    .selectFrom("domains")
    .select(["id", "next_check_at"])
    .where("status", "=", "verified")
    .where("next_check_at", "<=", now)
    .orderBy("next_check_at")
    .limit(RECHECK_BATCH)
    .execute();
  let ran = 0;
  for (let i = 0; i < due.length; i += RECHECK_PARALLEL) {
    const done = await Promise.all(due.slice(i, i + RECHECK_PARALLEL).map((d) => recheckOne(svc, d, now)));
    ran += done.filter(Boolean).length;
  }
  return ran;
}
