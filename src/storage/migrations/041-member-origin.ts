// How each team member joined (docs/teams.md, Allowances): "invitation" (an accepted emailed invitation) or "sso"
// (a sign-in through the owner's Enterprise connection). The two count against different allowances: invited
// members with pending invitations against the 2 collaborators, single sign-on members against ENTERPRISE_MEMBERS_MAX.
import { type Kysely, sql } from "kysely";

export function memberOrigin() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable("team_members")
        .addColumn("joined_by", "text", (c) => c.notNull().defaultTo("invitation"))
        .execute();
      // Only two paths ever made a member: an accepted invitation, or a single sign-on. A member without an accepted
      // invitation from that owner came through single sign-on (counting it as invited would fill the 2 collaborators).
      await sql`update team_members set joined_by = 'sso' where not exists (
        select 1 from team_invitations i where i.owner_id = team_members.owner_id and i.accepted_by = team_members.member_id and i.state = 'accepted'
      )`.execute(db);
    },
  };
}
