// Tags (docs/api.md, Tags): the public shapes, shared by the server's routes and the dashboard.
import { type Static, Type } from "typebox";

/** The palette a tag's colour comes from (the dashboard draws each in light and dark). */
export const TAG_COLORS = ["gray", "red", "orange", "yellow", "green", "teal", "blue", "purple", "pink", "brown"] as const;
export const MAX_TAG_NAME = 40;

export type TagColor = (typeof TAG_COLORS)[number];
export const TagColorSchema = Type.Unsafe<TagColor>({ type: "string", enum: [...TAG_COLORS] });

export const TagSchema = Type.Object({ id: Type.String(), name: Type.String(), color: TagColorSchema });
export type Tag = Static<typeof TagSchema>;

/** A tag in its owner's list, with how many links carry it. */
export const TagListItemSchema = Type.Object({ id: Type.String(), name: Type.String(), color: TagColorSchema, link_count: Type.Integer() });
export type TagListItem = Static<typeof TagListItemSchema>;

// Lengths here only stop absurd payloads early; the tags feature owns the rules and their messages.
export const CreateTagBody = Type.Object({ name: Type.String({ maxLength: 400 }), color: Type.Optional(TagColorSchema) }, { additionalProperties: false });
export type CreateTagInput = Static<typeof CreateTagBody>;

export const UpdateTagBody = Type.Object(
  { name: Type.Optional(Type.String({ maxLength: 400 })), color: Type.Optional(TagColorSchema) },
  { additionalProperties: false },
);
export type UpdateTagInput = Static<typeof UpdateTagBody>;

/** `?owner=`: a team owner's tags instead of the caller's. */
export const TagOwnerQuery = Type.Object(
  { owner: Type.Optional(Type.String({ maxLength: 64, description: "A team owner's user id: that owner's tags, for an active member (404 otherwise)" })) },
  { additionalProperties: false },
);

export const TagReply = Type.Object({ status: Type.Literal("success"), tag: TagSchema });
export const TagListReply = Type.Object({ status: Type.Literal("success"), tags: Type.Array(TagListItemSchema) });
export type TagListReply = Static<typeof TagListReply>;
export type TagReply = Static<typeof TagReply>;
