// The application's type (Fastify with the TypeBox provider) and its route list, apart from app.ts so route files need not import it.
import type { FastifyBaseLogger, FastifyInstance, FastifySchema, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";

export interface RouteInfo {
  method: string;
  url: string;
  csrf: boolean;
  /** The scopes of which any one admits an API key (contract/api-keys.ts); undefined: the route refuses keys. */
  keyScopes: readonly string[] | undefined;
  /** The route declares a body schema (routes without one take no body: input-guard.ts). */
  body: boolean;
  /** Its schemas (body, querystring, params), for tests that generate input for every route. */
  schema: FastifySchema | undefined;
}

declare module "fastify" {
  interface FastifyInstance {
    routeList: RouteInfo[];
  }
}

export type App = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;
