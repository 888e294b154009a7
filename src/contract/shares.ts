// Shared statistics (docs/sharing.md): the public shapes of `POST/GET /api/shares` and `DELETE /api/shares/{id}`.
import { type Static, Type } from "typebox";
import { Body, Nullable, StringEnum } from "./common.js";
import { MAX_SHARES_PER_OWNER, SHARE_PANELS } from "./tables.js";

export { MAX_SHARES_PER_OWNER, SHARE_PANELS };
export type SharePanel = (typeof SHARE_PANELS)[number];

/** The longest share password, in characters. */
export const MAX_SHARE_PASSWORD = 200;

export const ShareSchema = Type.Object({
  id: Type.String(),
  url: Type.String({ description: "The shared page's address: <BASE_URL>/share/<token>; anyone with it sees the panels (and the password, when set)" }),
  link_id: Nullable(Type.String()),
  tag: Nullable(Type.String({ description: "A tag's id" })),
  folder_id: Nullable(Type.String()),
  /** What the page is titled with: the link's short URL, the tag's or the folder's name. */
  name: Type.String({ description: "What is shared, in words: the link's short URL, or the tag's or folder's name" }),
  panels: Type.Array(StringEnum(SHARE_PANELS, "A panel of the page")),
  has_password: Type.Boolean(),
  expires_at: Nullable(Type.String()),
  created_at: Type.String(),
});
export type Share = Static<typeof ShareSchema>;

export const CreateShareBody = Body({
  link_id: Type.Optional(Type.String({ maxLength: 64, description: "Share one link's statistics (exactly one of link_id, tag, folder_id)" })),
  tag: Type.Optional(Type.String({ maxLength: 64, description: "Share the statistics of the links with this tag (its id)" })),
  folder_id: Type.Optional(Type.String({ maxLength: 64, description: "Share the statistics of a folder's links" })),
  password: Type.Optional(
    Type.String({ maxLength: 1000, description: `Visitors must give it (1-${MAX_SHARE_PASSWORD} characters); stored as a hash, never shown again` }),
  ),
  expires_at: Type.Optional(Type.String({ maxLength: 64, description: "ISO date-time after which the page answers 404" })),
  panels: Type.Optional(
    Type.Array(StringEnum(SHARE_PANELS, "A panel of the page"), {
      minItems: 1,
      maxItems: SHARE_PANELS.length,
      description: "What the page shows (default: every panel)",
    }),
  ),
});
export type CreateShareInput = Static<typeof CreateShareBody>;

export const ShareOwnerQuery = Type.Object(
  { owner: Type.Optional(Type.String({ maxLength: 64, description: "A team owner's user id: that owner's shares, for an active member (404 otherwise)" })) },
  { additionalProperties: false },
);

const linkFilter = { link_id: Type.Optional(Type.String({ maxLength: 64, description: "Only the shares of this link" })) };
export const ShareListQuery = Type.Object({ ...ShareOwnerQuery.properties, ...linkFilter }, { additionalProperties: false });
/** The external API's list: a key reads its own account's shares (no `owner`). */
export const KeyShareListQuery = Type.Object(linkFilter, { additionalProperties: false });

export const ShareReply = Type.Object({ status: Type.Literal("success"), id: Type.String(), url: Type.String(), share: ShareSchema });
export const ShareListReply = Type.Object({
  status: Type.Literal("success"),
  shares: Type.Array(ShareSchema, { description: `Newest first; at most ${MAX_SHARES_PER_OWNER}` }),
});
