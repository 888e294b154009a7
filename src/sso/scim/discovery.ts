// What the service provider tells identity providers about itself (RFC 7644 4; RFC 7643 5-7): its configuration,
// its resource types and the schemas of what it keeps.
import { ENTERPRISE_USER_SCHEMA, GROUP_SCHEMA, LIST_SCHEMA, USER_SCHEMA } from "./user-attributes.js";
import { SCIM_PATH } from "./tokens.js";

const DOCS = "https://github.com/snip/snip/blob/main/docs/scim.md";

export function serviceProviderConfig(origin: string) {
  return {
    schemas: ["urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig"],
    documentationUri: DOCS,
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: 200 },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [
      {
        type: "oauthbearertoken",
        name: "Bearer token",
        description: "The connection's SCIM token, made on the dashboard's Single sign-on page",
        primary: true,
      },
    ],
    meta: { resourceType: "ServiceProviderConfig", location: `${origin}${SCIM_PATH}/ServiceProviderConfig` },
  };
}

export function resourceTypes(origin: string) {
  const user = {
    schemas: ["urn:ietf:params:scim:schemas:core:2.0:ResourceType"],
    id: "User",
    name: "User",
    endpoint: "/Users",
    schema: USER_SCHEMA,
    schemaExtensions: [{ schema: ENTERPRISE_USER_SCHEMA, required: false }],
    meta: { resourceType: "ResourceType", location: `${origin}${SCIM_PATH}/ResourceTypes/User` },
  };
  const group = {
    schemas: ["urn:ietf:params:scim:schemas:core:2.0:ResourceType"],
    id: "Group",
    name: "Group",
    endpoint: "/Groups",
    schema: GROUP_SCHEMA,
    meta: { resourceType: "ResourceType", location: `${origin}${SCIM_PATH}/ResourceTypes/Group` },
  };
  return { schemas: [LIST_SCHEMA], totalResults: 2, startIndex: 1, itemsPerPage: 2, Resources: [user, group] };
}

const attr = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  type: "string",
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: "readWrite",
  returned: "default",
  uniqueness: "none",
  ...extra,
});

export function schemas(origin: string) {
  const sub = (names: string[]) => names.map((n) => attr(n));
  const user = {
    id: USER_SCHEMA,
    name: "User",
    description: "A person provisioned through a single sign-on connection",
    attributes: [
      attr("userName", { required: true, uniqueness: "server" }),
      attr("externalId", { caseExact: true }),
      attr("name", { type: "complex", subAttributes: sub(["givenName", "familyName", "formatted"]) }),
      attr("displayName"),
      attr("active", { type: "boolean" }),
      attr("emails", { type: "complex", multiValued: true, subAttributes: [...sub(["value", "type"]), attr("primary", { type: "boolean" })] }),
      attr("groups", { type: "complex", multiValued: true, mutability: "readOnly", subAttributes: sub(["value", "display"]) }),
    ],
    meta: { resourceType: "Schema", location: `${origin}${SCIM_PATH}/Schemas/${USER_SCHEMA}` },
  };
  const group = {
    id: GROUP_SCHEMA,
    name: "Group",
    description: "A directory group; admin, member and viewer give that role in the team",
    attributes: [
      attr("displayName", { required: true, uniqueness: "server" }),
      attr("externalId", { caseExact: true }),
      attr("members", { type: "complex", multiValued: true, subAttributes: sub(["value", "display"]) }),
    ],
    meta: { resourceType: "Schema", location: `${origin}${SCIM_PATH}/Schemas/${GROUP_SCHEMA}` },
  };
  return { schemas: [LIST_SCHEMA], totalResults: 2, startIndex: 1, itemsPerPage: 2, Resources: [user, group] };
}
