// TypeBox schemas of the link object and link inputs (API.md, Links), shared by the dashboard and external routes.
import { Type } from "typebox";
import { Body, Nullable } from "./schemas.js";

export const LinkSchema = Type.Object({
  id: Type.String(),
  short_url: Type.String(),
  alias: Type.String(),
  domain: Nullable(Type.String()),
  url: Type.String(),
  ios_url: Nullable(Type.String()),
  android_url: Nullable(Type.String()),
  expires_at: Nullable(Type.String()),
  max_clicks: Nullable(Type.Integer()),
  has_password: Type.Boolean(),
  click_count: Type.Integer(),
  owner_id: Nullable(Type.String()),
  created_at: Type.String(),
  updated_at: Type.String(),
  updated_by: Nullable(Type.String({ description: "Id of the account that last edited the link (its owner or a team member)" })),
  updated_by_email: Nullable(Type.String({ description: "Email of that account, when it still exists" })),
  disabled: Nullable(
    Type.Object(
      { reason: Type.String(), status: Type.Integer({ description: "410, or 451 for legal reasons" }), at: Type.String() },
      { description: "Set when an operator disabled the link: visitors get `status` and a page saying so" },
    ),
  ),
  destination_blocked: Type.Boolean({ description: "A destination's host is on the operator's blocklist: visitors get 410" }),
});

// Lengths here only stop absurd payloads early; the links feature owns the real rules and messages.
const Url = Type.String({ maxLength: 8192 });
const Alias = Type.String({ maxLength: 200 });

/** The options a link has besides its address; `null` clears one on edit. */
const LinkOptions = {
  domain: Type.Optional(Nullable(Type.String({ maxLength: 300 }))),
  expires_at: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
  max_clicks: Type.Optional(Nullable(Type.Integer())),
  password: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
  ios_url: Type.Optional(Nullable(Url)),
  android_url: Type.Optional(Nullable(Url)),
};

export const CreateLinkBody = Body({ url: Url, alias: Type.Optional(Nullable(Alias)), ...LinkOptions });

export const UpdateLinkBody = Body({ url: Type.Optional(Url), alias: Type.Optional(Alias), ...LinkOptions });

export const LinkReply = Type.Object({ status: Type.Literal("success"), link: LinkSchema });
