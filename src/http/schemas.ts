// Shared TypeBox schemas: each is the validator, the TypeScript type and the OpenAPI entry.
import { Type, type TSchema } from "typebox";

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

export const UserSchema = Type.Object({
  id: Type.String(),
  email: Type.String(),
  name: Type.String(),
  email_verified: Type.Boolean(),
  plan: Type.String(),
  status: Type.String(),
  created_at: Type.String(),
  picture_url: Type.Union([Type.String(), Type.Null()]),
  is_admin: Type.Boolean({ description: "An operator of this service (the console under /app/admin)" }),
});

export const OkSchema = Type.Object({ status: Type.Literal("success") });

/** A closed object: unknown fields are refused (API.md, Conventions). */
export function Body<T extends Record<string, TSchema>>(props: T) {
  return Type.Object(props, { additionalProperties: false });
}

/** Standard error responses for the OpenAPI description. */
export const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [s, Type.Ref("ErrorBody")])) as Record<number, TSchema>;

/** `?cursor=&limit=` of the operator console's lists. */
export const PageQuery = {
  cursor: Type.Optional(Type.String({ maxLength: 200 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
};

/** A schema that also accepts null. */
export const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
