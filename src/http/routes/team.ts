// Team routes (API.md, Team): the lists, invitations (invite, resend, cancel), the acceptance and its
// landing-page preview, removing a member and leaving a team.
import { Type } from "typebox";
import type { App } from "../app.js";
import type { AppContext } from "../../context.js";
import { Body, OkSchema, errors } from "../schemas.js";
import { currentUser, requireActiveUser, requireUser } from "../auth.js";

const InvitationSchema = Type.Object({
  id: Type.String(),
  email: Type.String(),
  state: Type.String({ description: "pending, accepted or cancelled" }),
  sent_at: Type.String({ description: "When the email was last sent (or attempted)" }),
  send_confirmed: Type.Boolean({ description: "true only when the mail transport accepted the last email" }),
  expires_at: Type.String({ description: "When the current link stops working (7 days after sending)" }),
  can_resend_at: Type.String({ description: "Earliest resend: one minute after the last send" }),
});

const MembershipSchema = Type.Object({
  owner_id: Type.String(),
  owner_email: Type.String(),
  owner_name: Type.String(),
  joined_at: Type.String(),
  active: Type.Boolean({ description: "false while the owner is suspended or the owner's plan no longer allows sharing" }),
});

const MemberSchema = Type.Object({ user_id: Type.String(), email: Type.String(), name: Type.String(), joined_at: Type.String() });

const InvitationReply = Type.Object({ status: Type.Literal("success"), invitation: InvitationSchema });
const Token = Type.String({ maxLength: 500 });
const Id = Type.String({ maxLength: 64 });

export async function teamRoutes(app: App, ctx: AppContext): Promise<void> {
  app.get(
    "/api/team",
    {
      schema: {
        tags: ["team"],
        summary: "My team's members, the invitations I sent that are still pending, and the teams I belong to, kept apart",
        response: {
          200: Type.Object({
            status: Type.Literal("success"),
            members: Type.Array(MemberSchema),
            invitations: Type.Array(InvitationSchema),
            memberships: Type.Array(MembershipSchema),
          }),
          ...errors(401),
        },
      },
    },
    async (req, reply) => {
      const team = await ctx.teams.overview(await requireUser(ctx, req));
      reply.header("cache-control", "no-store");
      return { status: "success" as const, ...team };
    },
  );

  app.post(
    "/api/team/invitations",
    {
      schema: {
        tags: ["team"],
        summary: "Invite a collaborator by email (Business and above; at most 2 members and pending invitations together)",
        body: Body({ email: Type.String({ maxLength: 320 }) }),
        response: { 201: InvitationReply, ...errors(400, 401, 403, 409) },
      },
    },
    async (req, reply) => {
      const invitation = await ctx.teams.invite(await requireActiveUser(ctx, req), req.body.email);
      return reply.code(201).send({ status: "success" as const, invitation });
    },
  );

  app.post(
    "/api/team/invitations/:id/resend",
    {
      schema: {
        tags: ["team"],
        summary: "Send the invitation again with a new link (the previous one stops working); 429 within a minute of the last send",
        params: Type.Object({ id: Id }),
        response: { 200: InvitationReply, ...errors(401, 403, 404, 409, 429) },
      },
    },
    async (req) => ({ status: "success" as const, invitation: await ctx.teams.resend(await requireActiveUser(ctx, req), req.params.id) }),
  );

  app.delete(
    "/api/team/invitations/:id",
    {
      schema: {
        tags: ["team"],
        summary: "Cancel a pending invitation: its link can no longer be accepted",
        params: Type.Object({ id: Id }),
        response: { 200: InvitationReply, ...errors(401, 404, 409) },
      },
    },
    async (req) => ({ status: "success" as const, invitation: await ctx.teams.cancel(await requireUser(ctx, req), req.params.id) }),
  );

  app.delete(
    "/api/team/members/:user_id",
    {
      schema: {
        tags: ["team"],
        summary: "Remove a member from my team: their access ends at once",
        params: Type.Object({ user_id: Id }),
        response: { 200: OkSchema, ...errors(401, 404) },
      },
    },
    async (req) => {
      await ctx.teams.removeMember(await requireUser(ctx, req), req.params.user_id);
      return { status: "success" as const };
    },
  );

  app.delete(
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
      await ctx.teams.leave(await requireUser(ctx, req), req.params.owner_id);
      return { status: "success" as const };
    },
  );

  app.post(
    "/api/invitations/preview",
    {
      schema: {
        tags: ["team"],
        summary: "What an invitation link is about (for its landing page, signed in or not): invited address, inviter, state",
        body: Body({ token: Token }),
        response: {
          200: Type.Object({
            status: Type.Literal("success"),
            invitation: Type.Object({
              email: Type.String(),
              inviter_name: Type.String(),
              inviter_email: Type.String(),
              state: Type.String({ description: "pending, accepted, cancelled, expired or replaced (a resend sent a newer link)" }),
              expires_at: Type.String(),
            }),
          }),
          ...errors(400, 404),
        },
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
        body: Body({ token: Token }),
        response: { 200: Type.Object({ status: Type.Literal("success"), membership: MembershipSchema }), ...errors(400, 401, 403, 404, 409, 410) },
      },
    },
    async (req) => ({ status: "success" as const, membership: await ctx.teams.accept(await currentUser(ctx, req), req.body.token) }),
  );
}
