// Shapes every feature's answers share: the error body, the bare success answer, and TypeBox helpers.
// contract/ is the one description of what goes over the wire: the server validates and documents with these
// schemas (OpenAPI is generated from them), the dashboard imports their Static<> types.
import { Type, type Static, type TSchema } from "typebox";

export const ErrorBodySchema = Type.Object(
  {
    status: Type.Literal("error"),
    code: Type.String(),
    message: Type.String(),
    details: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
    required_plan: Type.Optional(Type.String()),
  },
  { $id: "ErrorBody", additionalProperties: true },
);
export type ErrorBody = Static<typeof ErrorBodySchema>;
export type FieldError = NonNullable<ErrorBody["details"]>[number];

export const OkSchema = Type.Object({ status: Type.Literal("success") });

/** A closed object: unknown fields are refused (docs/api.md, Conventions). */
export function Body<T extends Record<string, TSchema>>(props: T) {
  return Type.Object(props, { additionalProperties: false });
}

/** Standard error responses for the OpenAPI description. */
export const errors = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [s, Type.Ref("ErrorBody")])) as Record<number, TSchema>;

/**
 * `?owner=`: a team owner's user id, for a member whose role in that team allows the route (docs/roles.md); a
 * caller outside the team gets 404. `what` says what the route then acts on.
 */
export const TeamOwnerParam = (what: string) =>
  Type.Object(
    { owner: Type.Optional(Type.String({ maxLength: 64, description: `A team owner's user id: ${what} (404 for a caller outside the team)` })) },
    { additionalProperties: false },
  );

/** `/:id` of most routes: an object's opaque id. */
export const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

/** `?cursor=&limit=` of the operator console's lists. */
export const PageQuery = {
  cursor: Type.Optional(Type.String({ maxLength: 200 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
};

/** A string of one of `values` (an enum in the OpenAPI description, a union type in code). */
export const StringEnum = <T extends string>(values: readonly T[], description: string) => Type.Unsafe<T>({ type: "string", enum: [...values], description });

/** A schema that also accepts null. */
export const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

/** GET /healthz: the database answered (`database` names the engine); `version` is the release this instance runs. */
export const HealthReply = Type.Object({ status: Type.Literal("success"), database: Type.String(), version: Type.String() });
export type HealthReply = Static<typeof HealthReply>;
/** GET /readyz: this instance takes traffic. */
export const ReadyReply = Type.Object({ status: Type.Literal("success"), state: Type.Literal("ready") });
export type ReadyReply = Static<typeof ReadyReply>;
