// A person signed in through an Enterprise connection joins its owner's team, within the allowance
// ENTERPRISE_MEMBERS_MAX of members made by single sign-on, counted under the owner's lock. Invited members and
// pending invitations count apart, against the 2 collaborators an owner may invite (docs/teams.md, Allowances).
import { DomainError } from "../shared/errors.js";
import type { SsoDeps } from "./deps.js";
import { ssoMemberCount } from "../teams/invitations.js";

export async function joinTeam(deps: Pick<SsoDeps, "db" | "caps" | "clock">, ownerId: string, memberId: string, max: number): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    await deps.caps.hold(trx, ownerId);
    const already = await trx
      .selectFrom("team_members")
      .select("member_id")
      .where("owner_id", "=", ownerId)
      .where("member_id", "=", memberId)
      .executeTakeFirst();
    if (already) return;
    if ((await ssoMemberCount(trx, ownerId)) >= max) {
      throw new DomainError("limit_reached", `The team has reached its ${max} members through single sign-on; ask its owner to make room`, undefined, {
        limit: max,
      });
    }
    await trx.insertInto("team_members").values({ owner_id: ownerId, member_id: memberId, joined_at: deps.clock.now(), joined_by: "sso" }).execute();
  });
}
