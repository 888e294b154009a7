// Click streams as their owner manages them (docs/api.md, Click streams; docs/stream.md): never the broker
// URL's password, which is sealed and shown as "***".
import { Type, type Static, type TLiteral } from "typebox";
import { Body, TeamOwnerParam } from "./common.js";
import { BROKER_KINDS } from "./broker-kinds.js";

/** List or create with it: a team owner's click streams (webhooks.manage, docs/roles.md). */
export const StreamOwnerQuery = TeamOwnerParam("that owner's click streams (webhooks.manage)");

/** The registry's kinds as a tuple of literals (a plain array of them would give Static `never`). */
type Literals<T extends readonly { kind: string }[]> = { -readonly [I in keyof T]: TLiteral<T[I]["kind"]> };
type KindLiterals = Literals<typeof BROKER_KINDS>;

/** One literal per kind of broker-kinds.ts (the registry), in its order. */
export const StreamKindSchema = Type.Union(BROKER_KINDS.map((k) => Type.Literal(k.kind)) as unknown as KindLiterals);
export type StreamKind = Static<typeof StreamKindSchema>;

export const StreamSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  kind: StreamKindSchema,
  url: Type.String({ description: "The broker URL, its password shown as ***" }),
  active: Type.Boolean(),
  created_at: Type.String(),
  status: Type.Object({
    delivered: Type.Integer({ description: "Events the broker confirmed" }),
    failed: Type.Integer({ description: "Publish rounds the broker did not confirm (kept and retried)" }),
    backlog: Type.Integer({ description: "Events waiting for the broker" }),
    full: Type.Boolean({ description: "The backlog reached the instance's bound: new clicks are not queued until it shrinks" }),
    last_ok_at: Type.Union([Type.String(), Type.Null()]),
    last_error: Type.Union([Type.String(), Type.Null()]),
    last_error_at: Type.Union([Type.String(), Type.Null()]),
  }),
});
export type Stream = Static<typeof StreamSchema>;

export const StreamReply = Type.Object({ status: Type.Literal("success"), stream: StreamSchema });
export const StreamListReply = Type.Object({
  status: Type.Literal("success"),
  streams: Type.Array(StreamSchema),
  private_receivers: Type.Boolean({ description: "WEBHOOK_ALLOW_PRIVATE: brokers on loopback and private networks are accepted" }),
});
export const CreateStreamBody = Body({ name: Type.String({ maxLength: 1000 }), kind: StreamKindSchema, url: Type.String({ maxLength: 4096 }) });
export const UpdateStreamBody = Body({
  name: Type.Optional(Type.String({ maxLength: 1000 })),
  url: Type.Optional(Type.String({ maxLength: 4096 })),
  active: Type.Optional(Type.Boolean()),
});
