// SCIM provisioning's tables (migration 053, docs/scim.md).
import type { Selectable } from "kysely";

/** A connection's SCIM bearer token: its SHA-256 only. */
export interface ScimTokensTable {
  connection_id: string;
  token_hash: string;
  created_at: number;
}

/** A person the identity provider provisioned through a connection, bound to their snip account. */
export interface ScimUsersTable {
  id: string;
  connection_id: string;
  user_id: string;
  user_name: string;
  user_name_key: string;
  external_id: string | null;
  active: number;
  /** JSON: name, displayName, emails as the provider gave them. */
  attributes: string;
  created_at: number;
  updated_at: number;
}

export interface ScimGroupsTable {
  id: string;
  connection_id: string;
  display_name: string;
  display_key: string;
  external_id: string | null;
  created_at: number;
  updated_at: number;
}

export interface ScimGroupMembersTable {
  group_id: string;
  scim_user_id: string;
}

export type ScimUserRow = Selectable<ScimUsersTable>;
export type ScimGroupRow = Selectable<ScimGroupsTable>;

export interface ScimTables {
  scim_tokens: ScimTokensTable;
  scim_users: ScimUsersTable;
  scim_groups: ScimGroupsTable;
  scim_group_members: ScimGroupMembersTable;
}
