// API keys as the profile lists them (docs/api.md, API keys): the secret itself is only in the creation answer.
import { Type, type Static } from "typebox";
import { Body } from "./common.js";

export const ApiKeySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String({ description: "The first characters of the secret, for recognising the key" }),
  created_at: Type.String(),
  last_used_at: Type.Union([Type.String(), Type.Null()]),
  revoked_at: Type.Union([Type.String(), Type.Null()]),
});
export type ApiKey = Static<typeof ApiKeySchema>;

export const KeyReply = Type.Object({ status: Type.Literal("success"), key: ApiKeySchema });
export type KeyReply = Static<typeof KeyReply>;
export const KeyListReply = Type.Object({ status: Type.Literal("success"), keys: Type.Array(ApiKeySchema) });
export type KeyListReply = Static<typeof KeyListReply>;
export const CreateKeyBody = Body({ name: Type.String({ maxLength: 1000 }) });
export const CreatedKeyReply = Type.Object({ status: Type.Literal("success"), key: ApiKeySchema, secret: Type.String() });
export type CreatedKeyReply = Static<typeof CreatedKeyReply>;
