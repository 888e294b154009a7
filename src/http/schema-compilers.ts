// Validators and serializers compiled once per schema object. Route schemas are module constants, so a second app
// in one process (two servers in a test, a restart in place) reuses them: compiling every route's response
// serializer and body validator costs about 200 ms of CPU per app. Both are pure functions of their schema.
import type { FastifySchemaCompiler, FastifySerializerCompiler } from "fastify";
import fastJson from "fast-json-stringify";
import { TypeBoxValidatorCompiler } from "@fastify/type-provider-typebox";
import { ErrorBodySchema } from "../contract/common.js";

/** The schemas routes may $ref (app.addSchema adds the same one). */
export const SHARED_SCHEMAS = [ErrorBodySchema] as const;

const sharedById = Object.fromEntries(SHARED_SCHEMAS.map((s) => [(s as unknown as { $id: string }).$id, s]));
const validators = new WeakMap<object, Map<string, ReturnType<FastifySchemaCompiler<unknown>>>>();
const serializers = new WeakMap<object, (data: unknown) => string>();

export const cachedValidatorCompiler: FastifySchemaCompiler<unknown> = (route) => {
  const schema = route.schema as object;
  let byPart = validators.get(schema);
  if (!byPart) validators.set(schema, (byPart = new Map()));
  const part = route.httpPart ?? "";
  let validate = byPart.get(part);
  if (!validate) {
    validate = TypeBoxValidatorCompiler(route as Parameters<typeof TypeBoxValidatorCompiler>[0]);
    byPart.set(part, validate);
  }
  return validate;
};

export const cachedSerializerCompiler: FastifySerializerCompiler<unknown> = ({ schema }) => {
  const key = schema as object;
  let serialize = serializers.get(key);
  if (!serialize) {
    serialize = fastJson(schema as Parameters<typeof fastJson>[0], { schema: sharedById as Record<string, Parameters<typeof fastJson>[0]> });
    serializers.set(key, serialize);
  }
  return serialize;
};
