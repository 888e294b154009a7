// API keys as the profile lists them (docs/api.md, API keys): the secret itself is only in the creation answer.
// And the key scopes: what each scope allows, and which scope each key route needs (KEY_ROUTE_SCOPES, read by
// the routes' config and by the test that walks every route).
import { Type, type Static } from "typebox";
import { Body } from "./common.js";
import { MAX_KEY_FOLDERS } from "./tables.js";
import { API_KEY_SCOPES, type ApiKeyScope } from "./tables.js";

export { API_KEY_SCOPES, DEFAULT_KEY_SCOPES, SCOPE_LABELS, type ApiKeyScope } from "./tables.js";

/**
 * The routes a key reaches, "METHOD /path" -> the scopes of which any one admits the key. A route not listed
 * here refuses every key (401 unauthenticated); a listed one without the scope answers 403 insufficient_scope.
 */
export const KEY_ROUTE_SCOPES = {
  "POST /api/external-create.php": ["links:create", "links:write"],
  "GET /api/external-export": ["export"],
  "GET /api/external/links": ["links:read"],
  "GET /api/external/links/:id": ["links:read"],
  "PATCH /api/external/links/:id": ["links:write"],
  "DELETE /api/external/links/:id": ["links:write"],
  "GET /api/external/links/:id/stats": ["stats:read"],
  "GET /api/external/links/:id/health": ["links:read"],
  "POST /api/track/lead": ["conversions:write"],
  "POST /api/track/sale": ["conversions:write"],
  "POST /api/track/refund": ["conversions:write"],
  "GET /api/customers": ["conversions:write"],
  "GET /api/customers/:external_id": ["conversions:write"],
  "DELETE /api/customers/:external_id": ["conversions:write"],
  "POST /api/deeplinks/open": ["deeplinks:open"],
  "GET /api/external/shares": ["shares:read"],
  "POST /api/external/shares": ["shares:write"],
  "DELETE /api/external/shares/:id": ["shares:write"],
  "GET /api/external/bio-pages": ["bio_pages:read"],
  "GET /api/external/bio-pages/:id": ["bio_pages:read"],
  "POST /api/external/bio-pages": ["bio_pages:write"],
  "PATCH /api/external/bio-pages/:id": ["bio_pages:write"],
  "DELETE /api/external/bio-pages/:id": ["bio_pages:write"],
} as const satisfies Record<string, readonly ApiKeyScope[]>;
export type KeyRoute = keyof typeof KEY_ROUTE_SCOPES;

export const ApiKeySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String({ description: "The first characters of the secret, for recognising the key" }),
  scopes: Type.Array(Type.String(), { description: `What the key may do: ${API_KEY_SCOPES.join(", ")}` }),
  created_at: Type.String(),
  expires_at: Type.Union([Type.String(), Type.Null()], { description: "From this time on the key is refused (401 invalid_api_key); null: never" }),
  last_used_at: Type.Union([Type.String(), Type.Null()], { description: "Updated at most once a minute" }),
  revoked_at: Type.Union([Type.String(), Type.Null()]),
  folder_ids: Type.Union([Type.Array(Type.String()), Type.Null()], {
    description: "The folders the key is limited to: it reads, creates and changes only links in them (docs/folders.md); null: every link of the account",
  }),
});
export type ApiKey = Static<typeof ApiKeySchema>;

export const KeyReply = Type.Object({ status: Type.Literal("success"), key: ApiKeySchema });
export type KeyReply = Static<typeof KeyReply>;
export const KeyListReply = Type.Object({ status: Type.Literal("success"), keys: Type.Array(ApiKeySchema) });
export type KeyListReply = Static<typeof KeyListReply>;
export const CreateKeyBody = Body({
  name: Type.String({ maxLength: 1000 }),
  scopes: Type.Optional(
    Type.Array(Type.String({ maxLength: 50 }), {
      maxItems: 20,
      description: `One or more of ${API_KEY_SCOPES.join(", ")}, each once; default ["links:create"]`,
    }),
  ),
  expires_at: Type.Optional(Type.Union([Type.String({ maxLength: 40, description: "ISO-8601 time in the future" }), Type.Null()])),
  folder_ids: Type.Optional(
    Type.Union([
      Type.Array(Type.String({ maxLength: 64 }), {
        maxItems: MAX_KEY_FOLDERS,
        description: "Limit the key to these folders of the account (Business and above); absent or null: every link",
      }),
      Type.Null(),
    ]),
  ),
});
export type CreateKeyBody = Static<typeof CreateKeyBody>;
export const CreatedKeyReply = Type.Object({ status: Type.Literal("success"), key: ApiKeySchema, secret: Type.String() });
export type CreatedKeyReply = Static<typeof CreatedKeyReply>;
