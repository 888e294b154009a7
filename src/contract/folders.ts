// Folders (docs/folders.md): the public shapes, shared by the server's routes and the dashboard.
import { type Static, Type } from "typebox";
import { Body } from "./common.js";
import { MAX_FOLDER_NAME, MAX_FOLDERS_PER_OWNER, MAX_KEY_FOLDERS, NO_FOLDER } from "./tables.js";

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
