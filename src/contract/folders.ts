// Folders (docs/folders.md): the public shapes, shared by the server's routes and the dashboard.
import { type Static, type TLiteral, Type } from "typebox";
import { Body } from "./common.js";
import { ASSIGNABLE_ROLES, FOLDER_ACCESS, MAX_FOLDER_NAME, MAX_FOLDERS_PER_OWNER, MAX_KEY_FOLDERS, NO_FOLDER } from "./tables.js";

export { MAX_FOLDER_NAME, MAX_FOLDERS_PER_OWNER, MAX_KEY_FOLDERS, NO_FOLDER };

export const FolderSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  created_at: Type.String(),
  updated_at: Type.String(),
});
export type Folder = Static<typeof FolderSchema>;

/** A folder in its owner's list, with how many links (archived ones aside) it holds. */
export const FolderListItemSchema = Type.Object({
  ...FolderSchema.properties,
  link_count: Type.Integer({ description: "Links in the folder, archived ones aside (what the list shows for it)" }),
});
export type FolderListItem = Static<typeof FolderListItemSchema>;

// The length here only stops absurd payloads early; the folders feature owns the rules and their messages.
export const FolderBody = Body({ name: Type.String({ maxLength: 400, description: `1-${MAX_FOLDER_NAME} characters, unique per account ignoring case` }) });
export type FolderInput = Static<typeof FolderBody>;

/** `?owner=`: a team owner's folders instead of the caller's. */
export const FolderOwnerQuery = Type.Object(
  { owner: Type.Optional(Type.String({ maxLength: 64, description: "A team owner's user id: that owner's folders, for an active member (404 otherwise)" })) },
  { additionalProperties: false },
);

/** The link field and the filters: a folder's id; `null` on a link, and `none` as a filter, for no folder. */
export const FolderIdField = Type.String({ maxLength: 64, description: `A folder of the link's owner (docs/folders.md); null: in no folder` });
export const FolderIdFilter = Type.String({
  minLength: 1,
  maxLength: 64,
  description: `Only links in this folder (its id), or \`${NO_FOLDER}\` for links in no folder`,
});

export const FolderReply = Type.Object({ status: Type.Literal("success"), folder: FolderSchema });
export type FolderReply = Static<typeof FolderReply>;
export const FolderListReply = Type.Object({
  status: Type.Literal("success"),
  folders: Type.Array(FolderListItemSchema, { description: `In name order; at most ${MAX_FOLDERS_PER_OWNER}` }),
});
export type FolderListReply = Static<typeof FolderListReply>;
export const FolderDeleteReply = Type.Object({
  status: Type.Literal("success"),
  moved: Type.Integer({ description: "Links that were in the folder, now in none" }),
});
export type FolderDeleteReply = Static<typeof FolderDeleteReply>;

/** none, read or write (docs/folders.md, Access). */
const accessLiterals = (): [TLiteral<"none">, TLiteral<"read">, TLiteral<"write">] => [
  Type.Literal(FOLDER_ACCESS[0]),
  Type.Literal(FOLDER_ACCESS[1]),
  Type.Literal(FOLDER_ACCESS[2]),
];
export const FolderAccessSchema = Type.Union(accessLiterals(), {
  description: "none: the folder and its links are hidden; read: seen, not changed; write: as the role allows",
});

/** PUT /api/folders/{id}/access. */
export const FolderAccessBody = Body({
  user_id: Type.String({ maxLength: 64, description: "An active member of the folder owner's team" }),
  access: FolderAccessSchema,
});
export type FolderAccessInput = Static<typeof FolderAccessBody>;

export const FolderAccessParams = Type.Object({ id: Type.String({ maxLength: 64 }), user_id: Type.String({ maxLength: 64 }) });

/** One member's access to a folder: its role, the access set for it (null: none set, the role decides) and what holds. */
export const FolderMemberAccessSchema = Type.Object({
  user_id: Type.String(),
  email: Type.String(),
  role: Type.Union([Type.Literal(ASSIGNABLE_ROLES[0]), Type.Literal(ASSIGNABLE_ROLES[1]), Type.Literal(ASSIGNABLE_ROLES[2])], {
    description: "The member's role as it applies now (docs/roles.md)",
  }),
  access: Type.Union([FolderAccessSchema, Type.Null()], { description: "The access set for this member; null: none set (the role's default)" }),
  group_access: Type.Union([FolderAccessSchema, Type.Null()], {
    description:
      "What the member's SCIM groups give in this folder (a group named folder:<name>:<access>, docs/scim.md); null: none. The access set wins over it",
  }),
  effective: Type.Union(accessLiterals(), {
    description:
      "What holds: the access set, else the groups', never above the role's (a viewer reads at most); without either, read for a viewer and write for the others",
  }),
});
export type FolderMemberAccess = Static<typeof FolderMemberAccessSchema>;

export const FolderAccessListReply = Type.Object({
  status: Type.Literal("success"),
  folder_id: Type.String(),
  members: Type.Array(FolderMemberAccessSchema, { description: "Every member of the owner's team, in email order" }),
});
export type FolderAccessListReply = Static<typeof FolderAccessListReply>;

export const FolderAccessReply = Type.Object({ status: Type.Literal("success"), folder_id: Type.String(), member: FolderMemberAccessSchema });
export type FolderAccessReply = Static<typeof FolderAccessReply>;
