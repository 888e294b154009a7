// SCIM 2.0 provisioning on Enterprise connections (docs/scim.md): the token, Users and Groups.
import type { SsoDeps } from "../deps.js";
import { ScimTokens } from "./tokens.js";
import { ScimUsers } from "./users.js";
import { ScimGroups } from "./groups.js";

export interface Scim {
  tokens: ScimTokens;
  users: ScimUsers;
  groups: ScimGroups;
}

export function createScim(deps: SsoDeps): Scim {
  return { tokens: new ScimTokens(deps), users: new ScimUsers(deps), groups: new ScimGroups(deps) };
}
