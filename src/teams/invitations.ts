// Team invitations: invite, resend, cancel, preview and accept, with every transition of the
// invitation table in docs/teams.md. Tokens are random, stored as SHA-256 only; a resend replaces the live one.
import type { Transaction } from "kysely";
import { iso } from "../shared/clock.js";
import { DomainError, invalid } from "../shared/errors.js";
import { newId, randomToken, sha256Hex } from "../shared/ids.js";
import type { Database, TeamInvitationRow, UserRow } from "../storage/schema.js";
import { normalizeEmail } from "../accounts/accounts.js";
import { requireCapability } from "../accounts/plans.js";
import { isUniqueViolation } from "../storage/unique-violation.js";
import { invitationEmail } from "./invitation-email.js";
import type { Slot } from "../storage/rate-events.js";
import { INVITATION_EMAILS_PER_HOUR, INVITATION_TTL_MS, MAX_COLLABORATORS, RESEND_AFTER_MS, type TeamDeps, requireActiveAccount } from "./deps.js";
import { membershipOf } from "./memberships.js";
import { publicInvitation } from "./invitation-view.js";
import type { Invitation, InvitationPreview, Membership } from "../contract/teams.js";
import { type AssignableRole, type TeamRole, DEFAULT_ROLE, assignableRoleOf, mayChangeRole } from "../contract/roles.js";

/** Why an acceptance was refused, beside the API code (the landing page words each case). */
export type RefusalReason = "unknown" | "replaced" | "cancelled" | "used" | "wrong_account" | "expired" | "email_unverified";

function refuse(code: "not_found" | "conflict" | "forbidden" | "expired" | "email_unverified", reason: RefusalReason, message: string): DomainError {
  return new DomainError(code, message, undefined, { reason });
}

const TOKEN_RE = /^[A-Za-z0-9_-]{20,200}$/;

async function insertToken(trx: Transaction<Database>, invitationId: string, now: number): Promise<string> {
  const token = randomToken(32);
  await trx
    .insertInto("team_invitation_tokens")
    .values({ token_hash: sha256Hex(token), invitation_id: invitationId, created_at: now, replaced_at: null })
    .execute();
  return token;
}

const HOUR = 3_600_000;
const emailBucket = (owner: UserRow) => `team-invite-mail:${owner.id}`;

/**
 * At most INVITATION_EMAILS_PER_HOUR invitation emails per owner and hour (429 with Retry-After past it),
 * checked and counted in one step so concurrent invitations cannot together pass: a resend's slot is taken
 * before it is written and given back when no email goes; a new invitation's is taken in its own
 * transaction, after the collaborator limit (a burst past the allowance is 403 limit_reached, whatever the hour).
 */
const emailLimit = (owner: UserRow) => [{ bucket: emailBucket(owner), windowMs: HOUR, limit: INVITATION_EMAILS_PER_HOUR }];
const tooManyEmails = (retryAfter: number) =>
  new DomainError("rate_limited", `At most ${INVITATION_EMAILS_PER_HOUR} invitation emails per hour; try again later`, undefined, undefined, retryAfter);

async function takeEmailSlot(deps: TeamDeps, owner: UserRow, now: number): Promise<Slot> {
  const a = await deps.rate.attempt(emailLimit(owner), now);
  if ("full" in a) throw tooManyEmails(a.full.retryAfter);
  return a.slot;
}

/** Invites `rawEmail` into `owner`'s team with `role` (who may give which role: teams/roles.ts, requireAssignable). */
export async function invite(deps: TeamDeps, owner: UserRow, rawEmail: string, role: AssignableRole = DEFAULT_ROLE): Promise<Invitation> {
  requireActiveAccount(owner);
  requireCapability(owner.plan, "team_invite", "Team invitations");
  const email = normalizeEmail(rawEmail);
  if (email === owner.email) throw new DomainError("conflict", "You cannot invite yourself", [{ field: "email", message: "is your own address" }]);
  const now = deps.clock.now();
  const row: TeamInvitationRow = {
    id: newId(),
    owner_id: owner.id,
    email,
    state: "pending",
    sent_at: now,
    send_confirmed: 0,
    expires_at: now + INVITATION_TTL_MS,
    accepted_by: null,
    created_at: now,
    updated_at: now,
    role,
  };
  let token: string;
  try {
    // The count and the insert share one transaction that holds the owner's lock: two invitations racing
    // for the last collaborator slot (on any instance) cannot both pass.
    token = await deps.db.transaction().execute(async (trx) => {
      await deps.caps.hold(trx, owner.id);
      const member = await trx
        .selectFrom("team_members")
        .innerJoin("users", "users.id", "team_members.member_id")
        .select("users.id")
        .where("team_members.owner_id", "=", owner.id)
        .where("users.email", "=", email)
        .executeTakeFirst();
      if (member) throw new DomainError("conflict", `${email} is already a member of your team`, [{ field: "email", message: "is already a member" }]);
      const pending = await trx
        .selectFrom("team_invitations")
        .select("id")
        .where("owner_id", "=", owner.id)
        .where("email", "=", email)
        .where("state", "=", "pending")
        .executeTakeFirst();
      if (pending)
        throw new DomainError("conflict", `${email} already has a pending invitation; resend it instead`, [{ field: "email", message: "already invited" }]);
      const limit = MAX_COLLABORATORS;
      if ((await collaboratorCount(trx, owner.id)) >= limit) {
        throw new DomainError(
          "limit_reached",
          `You can invite at most ${limit} collaborators, invited members and pending invitations together; cancel an invitation or remove a member first`,
          undefined,
          {
            limit,
          },
        );
      }
      const mail = await deps.rate.attemptIn(trx, emailLimit(owner), now);
      if ("full" in mail) throw tooManyEmails(mail.full.retryAfter);
      await trx.insertInto("team_invitations").values(row).execute();
      return insertToken(trx, row.id, now);
    });
  } catch (err) {
    if (isUniqueViolation(err))
      throw new DomainError("conflict", `${email} already has a pending invitation; resend it instead`, [{ field: "email", message: "already invited" }]);
    throw err;
  }
  return publicInvitation(await send(deps, owner, row, token));
}

/**
 * The invitation allowance in use: members who joined by invitation and pending invitations together (read under
 * the owner's lock). Members made by single sign-on are not in it (ssoMemberCount).
 */
export async function collaboratorCount(db: Transaction<Database>, ownerId: string): Promise<number> {
  const members = await db
    .selectFrom("team_members")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("owner_id", "=", ownerId)
    .where("joined_by", "=", "invitation")
    .executeTakeFirstOrThrow();
  const pending = await db
    .selectFrom("team_invitations")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("owner_id", "=", ownerId)
    .where("state", "=", "pending")
    .executeTakeFirstOrThrow();
  return Number(members.n) + Number(pending.n);
}

/** Members single sign-on made (read under the owner's lock): ENTERPRISE_MEMBERS_MAX bounds them. */
export async function ssoMemberCount(db: Transaction<Database>, ownerId: string): Promise<number> {
  const r = await db
    .selectFrom("team_members")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("owner_id", "=", ownerId)
    .where("joined_by", "=", "sso")
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/**
 * Sends the email; send_confirmed records whether the transport accepted it. Not accepted now, the
 * invitation is kept and the email waits in the outbox: a retry that sends it confirms it (mailSent).
 */
async function send(deps: TeamDeps, owner: UserRow, row: TeamInvitationRow, token: string): Promise<TeamInvitationRow> {
  const link = `${deps.origin}/app/invitations/accept?token=${encodeURIComponent(token)}`;
  // Keyed by the invitation: a resend's email replaces a queued older one (whose link it replaced).
  const outcome = await deps.mailer.send(invitationEmail(owner, row.email, link, INVITATION_TTL_MS / 86_400_000), {
    key: `invitation:${row.id}`,
    expiresAt: row.expires_at,
  });
  if (outcome !== "sent") {
    deps.log.warn({ invitation: row.id, outcome }, "invitation email not accepted by the mail transport yet");
    return row;
  }
  // Only this send's row: a later resend has its own sent_at and its own outcome.
  await deps.db.updateTable("team_invitations").set({ send_confirmed: 1 }).where("id", "=", row.id).where("sent_at", "=", row.sent_at).execute();
  return { ...row, send_confirmed: 1 };
}

/** The outbox sent an invitation's email after its request had answered: it shows as confirmed. */
export async function mailSent(deps: TeamDeps, invitationId: string): Promise<void> {
  await deps.db.updateTable("team_invitations").set({ send_confirmed: 1 }).where("id", "=", invitationId).where("state", "=", "pending").execute();
}

/** One of the team's invitations, for a manager whose rank is above the role it gives (an admin: members and viewers). */
async function ownInvitation(deps: TeamDeps, owner: UserRow, id: string, manager: TeamRole = "owner"): Promise<TeamInvitationRow> {
  const row = await deps.db.selectFrom("team_invitations").selectAll().where("id", "=", id).where("owner_id", "=", owner.id).executeTakeFirst();
  if (!row) throw new DomainError("not_found", "No such invitation");
  if (!mayChangeRole(manager, assignableRoleOf(row.role), null)) {
    throw new DomainError("forbidden", `As ${manager} you cannot change an invitation for the ${row.role} role`, undefined, {
      role: manager,
      member_role: row.role,
    });
  }
  return row;
}

function tooSoon(row: TeamInvitationRow, now: number): DomainError {
  const wait = Math.max(1, Math.ceil((Number(row.sent_at) + RESEND_AFTER_MS - now) / 1000));
  return new DomainError("rate_limited", `This invitation was sent less than a minute ago; resend it in ${wait} s`, undefined, undefined, wait);
}

export async function resend(deps: TeamDeps, owner: UserRow, id: string, manager: TeamRole = "owner"): Promise<Invitation> {
  requireActiveAccount(owner);
  requireCapability(owner.plan, "team_invite", "Team invitations");
  const row = await ownInvitation(deps, owner, id, manager);
  if (row.state !== "pending") throw new DomainError("conflict", `This invitation is ${row.state}, no longer pending`);
  const now = deps.clock.now();
  if (now < Number(row.sent_at) + RESEND_AFTER_MS) throw tooSoon(row, now);
  const slot = await takeEmailSlot(deps, owner, now);
  const next: TeamInvitationRow = { ...row, sent_at: now, send_confirmed: 0, expires_at: now + INVITATION_TTL_MS, updated_at: now };
  const token = await deps.db
    .transaction()
    .execute(async (trx) => {
      // Guarded by the previous sent_at: of two concurrent resends one wins, the other is told to wait.
      const r = await trx
        .updateTable("team_invitations")
        .set({ sent_at: now, send_confirmed: 0, expires_at: next.expires_at, updated_at: now })
        .where("id", "=", row.id)
        .where("state", "=", "pending")
        .where("sent_at", "=", row.sent_at)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) === 0) return null;
      // The previous link stops working at once.
      await trx.updateTable("team_invitation_tokens").set({ replaced_at: now }).where("invitation_id", "=", row.id).where("replaced_at", "is", null).execute();
      return insertToken(trx, row.id, now);
    })
    .catch(async (e: unknown) => {
      await slot.release();
      throw e;
    });
  if (token === null) {
    await slot.release();
    const fresh = await ownInvitation(deps, owner, id);
    if (fresh.state !== "pending") throw new DomainError("conflict", `This invitation is ${fresh.state}, no longer pending`);
    throw tooSoon(fresh, now);
  }
  return publicInvitation(await send(deps, owner, next, token));
}

export async function cancel(deps: TeamDeps, owner: UserRow, id: string, manager: TeamRole = "owner"): Promise<Invitation> {
  const row = await ownInvitation(deps, owner, id, manager);
  const now = deps.clock.now();
  const r = await deps.db
    .updateTable("team_invitations")
    .set({ state: "cancelled", updated_at: now })
    .where("id", "=", id)
    .where("state", "=", "pending")
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) === 0) {
    const fresh = await ownInvitation(deps, owner, id);
    throw new DomainError("conflict", `This invitation is ${fresh.state}, no longer pending`);
  }
  return publicInvitation({ ...row, state: "cancelled", updated_at: now });
}

interface TokenMatch {
  invitation: TeamInvitationRow;
  replaced: boolean;
}

async function byToken(deps: TeamDeps, token: string): Promise<TokenMatch | null> {
  if (!TOKEN_RE.test(token)) return null;
  const t = await deps.db.selectFrom("team_invitation_tokens").selectAll().where("token_hash", "=", sha256Hex(token)).executeTakeFirst();
  if (!t) return null;
  const invitation = await deps.db.selectFrom("team_invitations").selectAll().where("id", "=", t.invitation_id).executeTakeFirst();
  return invitation ? { invitation, replaced: t.replaced_at !== null } : null;
}

const UNKNOWN = () => refuse("not_found", "unknown", "This invitation link is not valid; check that you copied it whole");
const REPLACED = () => refuse("not_found", "replaced", "This invitation link was replaced by a newer one: open the link in the most recent invitation email");

export async function preview(deps: TeamDeps, token: string): Promise<InvitationPreview> {
  const match = await byToken(deps, token);
  if (!match) throw UNKNOWN();
  const { invitation } = match;
  const inviter = await deps.db.selectFrom("users").select(["name", "email"]).where("id", "=", invitation.owner_id).executeTakeFirstOrThrow();
  const state = match.replaced
    ? "replaced"
    : invitation.state === "pending" && deps.clock.now() >= Number(invitation.expires_at)
      ? "expired"
      : (invitation.state as InvitationPreview["state"]);
  return {
    email: invitation.email,
    inviter_name: inviter.name,
    inviter_email: inviter.email,
    state,
    expires_at: iso(Number(invitation.expires_at)),
    role: assignableRoleOf(invitation.role),
  };
}

export async function accept(deps: TeamDeps, actor: UserRow | null, token: string): Promise<Membership> {
  if (!actor) throw new DomainError("unauthenticated", "Sign in (or sign up) with the invited email address to accept");
  if (typeof token !== "string" || token.length === 0) throw invalid("token", "is required");
  const match = await byToken(deps, token);
  if (!match) throw UNKNOWN();
  const { invitation } = match;
  // Accepting again as the same member is harmless, whatever happened to the link since.
  if (invitation.state === "accepted" && invitation.accepted_by === actor.id) {
    const again = await membershipOf(deps.db, invitation.owner_id, actor);
    if (again) return again;
  }
  if (match.replaced) throw REPLACED();
  if (invitation.state === "cancelled") throw refuse("conflict", "cancelled", "This invitation was cancelled by the person who sent it");
  if (invitation.state !== "pending") throw refuse("conflict", "used", "This invitation has already been used; ask for a new one");
  if (actor.email !== invitation.email) {
    throw refuse(
      "forbidden",
      "wrong_account",
      `This invitation is for ${invitation.email}; you are signed in as ${actor.email}. Sign in with the invited address`,
    );
  }
  const now = deps.clock.now();
  if (now >= Number(invitation.expires_at)) throw refuse("expired", "expired", "This invitation link is more than 7 days old; ask for it to be sent again");
  if (actor.email_verified_at === null)
    throw refuse("email_unverified", "email_unverified", "Confirm your email address first: open the link we emailed you, then accept");
  requireActiveAccount(actor);

  const accepted = await deps.db.transaction().execute(async (trx) => {
    const r = await trx
      .updateTable("team_invitations")
      .set({ state: "accepted", accepted_by: actor.id, updated_at: now })
      .where("id", "=", invitation.id)
      .where("state", "=", "pending")
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) === 0) return false;
    await trx
      .insertInto("team_members")
      .values({ owner_id: invitation.owner_id, member_id: actor.id, joined_at: now, joined_by: "invitation", role: assignableRoleOf(invitation.role) })
      .onConflict((oc) => oc.columns(["owner_id", "member_id"]).doNothing())
      .execute();
    return true;
  });
  // Lost a race (a cancel, or this member's own second click): answer from the state that won.
  if (!accepted) return accept(deps, actor, token);
  const membership = await membershipOf(deps.db, invitation.owner_id, actor);
  if (!membership) throw new DomainError("conflict", "The team's owner no longer exists");
  return membership;
}
