// Team routes (docs/api.md, Team; docs/roles.md): the lists, invitations (invite, resend, cancel), the acceptance
// and its landing-page preview, a member's role, removing a member and leaving a team. The owner manages its own
// team; an admin of an Enterprise team manages it with ?owner= (members and viewers only).
import { Type } from "typebox";
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { OkSchema, errors } from "../../contract/common.js";
import {
  InvitationPreviewReply,
  InvitationReply,
  InviteBody,
  MembershipReply,
  RoleBody,
  RoleReply,
  TeamOwnerQuery,
  TeamReply,
  TokenBody,
} from "../../contract/teams.js";
import { activeUser, currentUser, signedIn, signedInRoutes } from "../auth.js";
import { teamAuditRoutes } from "./team-audit.js";

/** The services these routes use: the compiler refuses any other. */
type Deps = Pick<AppContext, "sessions" | "teams"> & Parameters<typeof teamAuditRoutes>[1];

const Id = Type.String({ maxLength: 64 });

export async function teamRoutes(app: App, ctx: Deps): Promise<void> {
  await signedInRoutes(app, ctx, async (scope) => {
    scope.get(
      "/api/team",
      {
        schema: {
          tags: ["team"],
          summary:
            "My team's members (each with their role), the invitations I sent that are still pending, and the teams I belong to (with my role in each), kept apart",
          description:
            "With ?owner= an admin reads the members and pending invitations of the team it administers (404 without access, 403 forbidden for other roles).",
          querystring: TeamOwnerQuery,
          response: { 200: TeamReply, ...errors(401, 403, 404) },
        },
      },
      async (req, reply) => {
        const team = await ctx.teams.overview(signedIn(req), req.query.owner);
        reply.header("cache-control", "no-store");
        return { status: "success" as const, ...team };
      },
    );

    scope.post(
      "/api/team/invitations",
      {
        schema: {
          tags: ["team"],
          summary: "Invite a collaborator by email (Business and above; at most 2 invited members and pending invitations together, on Enterprise too)",
          description:
            "The third collaborator answers 403 limit_reached. Members made by single sign-on (Enterprise) do not count here: ENTERPRISE_MEMBERS_MAX bounds them. " +
            "role (default member) is the role the invitee joins with: admin and viewer need the owner on Enterprise (403 plan_required); an admin (?owner=) " +
            "invites members and viewers only (403 forbidden).",
          querystring: TeamOwnerQuery,
          body: InviteBody,
          response: { 201: InvitationReply, ...errors(400, 401, 403, 404, 409) },
        },
      },
      async (req, reply) => {
        const invitation = await ctx.teams.invite(activeUser(req), req.body.email, req.body.role, req.query.owner);
        return reply.code(201).send({ status: "success" as const, invitation });
      },
    );

    scope.post(
      "/api/team/invitations/:id/resend",
      {
        schema: {
          tags: ["team"],
          summary: "Send the invitation again with a new link (the previous one stops working); 429 within a minute of the last send",
          params: Type.Object({ id: Id }),
          querystring: TeamOwnerQuery,
          response: { 200: InvitationReply, ...errors(401, 403, 404, 409, 429) },
        },
      },
      async (req) => ({ status: "success" as const, invitation: await ctx.teams.resend(activeUser(req), req.params.id, req.query.owner) }),
    );

    scope.delete(
      "/api/team/invitations/:id",
      {
        schema: {
          tags: ["team"],
          summary: "Cancel a pending invitation: its link can no longer be accepted",
          params: Type.Object({ id: Id }),
          querystring: TeamOwnerQuery,
          response: { 200: InvitationReply, ...errors(401, 403, 404, 409) },
        },
      },
      async (req) => ({ status: "success" as const, invitation: await ctx.teams.cancel(signedIn(req), req.params.id, req.query.owner) }),
    );

    scope.delete(
      "/api/team/members/:user_id",
      {
        schema: {
          tags: ["team"],
          summary: "Remove a member from my team (or with ?owner= from a team I administer): their access ends at once",
          description: "An admin removes members and viewers only (403 forbidden for another admin).",
          params: Type.Object({ user_id: Id }),
          querystring: TeamOwnerQuery,
          response: { 200: OkSchema, ...errors(401, 403, 404) },
        },
      },
      async (req) => {
        await ctx.teams.removeMember(signedIn(req), req.params.user_id, req.query.owner);
        return { status: "success" as const };
      },
    );

    roleRoute(scope, ctx);
    await teamAuditRoutes(scope, ctx);

    scope.delete(
      "/api/memberships/:owner_id",
      {
        schema: {
          tags: ["team"],
          summary: "Leave a team (any plan): access to its links ends at once",
          params: Type.Object({ owner_id: Id }),
          response: { 200: OkSchema, ...errors(401, 404) },
        },
      },
      async (req) => {
        await ctx.teams.leave(signedIn(req), req.params.owner_id);
        return { status: "success" as const };
      },
    );
  });

  app.post(
    "/api/invitations/preview",
    {
      schema: {
        tags: ["team"],
        summary: "What an invitation link is about (for its landing page, signed in or not): invited address, inviter, state",
        body: TokenBody,
        response: { 200: InvitationPreviewReply, ...errors(400, 404) },
      },
    },
    async (req) => ({ status: "success" as const, invitation: await ctx.teams.preview(req.body.token) }),
  );

  app.post(
    "/api/invitations/accept",
    {
      schema: {
        tags: ["team"],
        summary: "Accept an invitation: signed in with the invited address, verified, within 7 days; accepting again is harmless",
        description:
          "Refusals name the failed condition: 401 unauthenticated, 403 forbidden (another address), 403 email_unverified, 409 conflict " +
          "(cancelled or already used), 410 expired, 404 not_found (unknown, or replaced by a resend); the body's `reason` says which.",
        body: TokenBody,
        response: { 200: MembershipReply, ...errors(400, 401, 403, 404, 409, 410) },
      },
    },
    async (req) => ({ status: "success" as const, membership: await ctx.teams.accept(await currentUser(ctx, req), req.body.token) }),
  );
}

/** PATCH /api/team/members/{user_id}: a member's role (docs/roles.md). */
function roleRoute(scope: App, ctx: Deps): void {
  scope.patch(
    "/api/team/members/:user_id",
    {
      schema: {
        tags: ["team"],
        summary: "Change a member's role (audited): it holds from the member's next request, on every instance",
        description:
          "The owner gives admin, member or viewer; an admin (?owner=) changes members and viewers between member and viewer only, never another admin " +
          "or the owner (403 forbidden). Roles other than member need the owner on Enterprise (403 plan_required).",
        params: Type.Object({ user_id: Id }),
        querystring: TeamOwnerQuery,
        body: RoleBody,
        response: { 200: RoleReply, ...errors(400, 401, 403, 404) },
      },
    },
    async (req) => {
      const role = await ctx.teams.changeRole(activeUser(req), req.params.user_id, req.body.role, req.query.owner);
      return { status: "success" as const, user_id: req.params.user_id, role };
    },
  );
}
