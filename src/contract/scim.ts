// SCIM provisioning (docs/scim.md): the connection's token as its owner manages it under /api/sso/scim-token, and
// the loose shapes of /scim/v2 (RFC 7644's resources are checked by src/sso/scim, which answers SCIM's errors).
import { Type, type Static } from "typebox";
import { Nullable } from "./common.js";

const ScimTokenFields = {
  base_url: Type.String({ description: "the SCIM base URL to give the identity provider (<BASE_URL>/scim/v2)" }),
  token_set: Type.Boolean({ description: "whether the connection has a SCIM token" }),
  token_created_at: Nullable(Type.String({ description: "when the current token was made" })),
};

export const ScimTokenReply = Type.Object({ status: Type.Literal("success"), scim: Type.Object(ScimTokenFields) });
export type ScimTokenReply = Static<typeof ScimTokenReply>;

export const ScimTokenIssuedReply = Type.Object({
  status: Type.Literal("success"),
  token: Type.String({ description: "the bearer token, shown this once (only its SHA-256 is kept); it replaces the previous one" }),
  ...ScimTokenFields,
});
export type ScimTokenIssuedReply = Static<typeof ScimTokenIssuedReply>;

/** A SCIM request body: any JSON object (checked against RFC 7643's schemas by src/sso/scim). */
export const ScimBody = Type.Object({}, { additionalProperties: true, description: "a SCIM resource or PatchOp (application/scim+json)" });
/** A SCIM answer: a resource, a ListResponse or an Error. */
export const ScimAnswer = Type.Object({}, { additionalProperties: true, description: "a SCIM resource, ListResponse or Error (application/scim+json)" });

export const ScimListQuery = Type.Object(
  {
    filter: Type.Optional(Type.String({ maxLength: 4000, description: 'attribute eq "value" (joined by and)' })),
    startIndex: Type.Optional(Type.String({ maxLength: 10 })),
    count: Type.Optional(Type.String({ maxLength: 10 })),
    attributes: Type.Optional(Type.String({ maxLength: 1000 })),
    excludedAttributes: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);
export type ScimListQuery = Static<typeof ScimListQuery>;

export const ScimReadQuery = Type.Object(
  { attributes: Type.Optional(Type.String({ maxLength: 1000 })), excludedAttributes: Type.Optional(Type.String({ maxLength: 1000 })) },
  { additionalProperties: false },
);
export type ScimReadQuery = Static<typeof ScimReadQuery>;

export const ScimIdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
