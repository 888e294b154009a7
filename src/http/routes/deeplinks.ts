// Links that open apps (docs/deep-links.md): the apps of a custom domain (its owner's, under /api with the
// session), the main host's (the operator's, in the console's scope), and the two association files every host
// serves from memory (the fast path in fast-redirect.ts answers them first; these routes answer the rest, e.g. HEAD
// with a query string).
import type { FastifyReply } from "fastify";
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { errors, IdParams, OkSchema } from "../../contract/common.js";
import { AppsBody, AppsReply, DeepLinkSettingsReply, UpdateDeepLinkSettingsBody, type Apps } from "../../contract/deeplinks.js";
import { deepLinkSettingsOf, updateDeepLinkSettings } from "../../deeplinks/settings.js";
import { ANDROID_PATH, APPLE_PATH, AppAssociations, type ServedFile } from "../../deeplinks/app-associations.js";
import { activeUser, operatorOf, signedIn, signedInRoutes } from "../auth.js";
import { SECURITY_HEADERS } from "../security-headers.js";
import { DomainError } from "../../shared/errors.js";

/** The services these routes use: the compiler refuses any other. */
type Deps = Pick<AppContext, "appAssociations" | "clock" | "sessions" | "storage" | "redirects">;

const reply = (host: string, apps: Apps) => ({ status: "success" as const, host, apps, files: AppAssociations.filesOf(apps) });

/** Headers of both files: JSON, cacheable a few minutes (Apple's CDN and Google's verifier fetch them), never a redirect. */
export const ASSOCIATION_HEADERS: Record<string, string> = {
  ...SECURITY_HEADERS,
  "content-type": "application/json",
  "cache-control": "public, max-age=300",
};

/** `GET|PUT|DELETE /api/domains/{id}/apps` (session and CSRF). */
export async function domainAppRoutes(app: App, ctx: Deps): Promise<void> {
  await signedInRoutes(app, ctx, async (scope) => {
    const schema = { tags: ["deep links"], params: IdParams };
    scope.get(
      "/api/domains/:id/apps",
      {
        schema: {
          ...schema,
          summary: "The apps this custom domain opens, and the two association files it serves",
          response: { 200: AppsReply, ...errors(401, 403, 404) },
        },
      },
      async (req, r) => {
        const { host, apps } = await ctx.appAssociations.forDomain(signedIn(req), req.params.id);
        r.header("cache-control", "no-store");
        return reply(host, apps);
      },
    );
    scope.put(
      "/api/domains/:id/apps",
      {
        schema: {
          ...schema,
          summary: "Set the iOS and Android apps of this custom domain (served from /.well-known/ at once)",
          body: AppsBody,
          response: { 200: AppsReply, ...errors(400, 401, 403, 404) },
        },
      },
      async (req) => {
        const { host, apps } = await ctx.appAssociations.setForDomain(activeUser(req), req.params.id, req.body);
        return reply(host, apps);
      },
    );
    scope.delete(
      "/api/domains/:id/apps",
      {
        schema: {
          ...schema,
          summary: "Remove this custom domain's apps (its association files answer 404)",
          response: { 200: OkSchema, ...errors(401, 403, 404) },
        },
      },
      async (req) => {
        await ctx.appAssociations.deleteForDomain(activeUser(req), req.params.id);
        return { status: "success" as const };
      },
    );
    const settings = { tags: ["deep links"], response: { 200: DeepLinkSettingsReply, ...errors(400, 401, 403) } };
    scope.get(
      "/api/deeplinks/settings",
      { schema: { ...settings, summary: "The account's default way out of in-app browsers for its links" } },
      async (req, r) => {
        r.header("cache-control", "no-store");
        return { status: "success" as const, settings: deepLinkSettingsOf(signedIn(req)) };
      },
    );
    scope.patch(
      "/api/deeplinks/settings",
      { schema: { ...settings, summary: "Change the default of the account's links: a way out of in-app browsers", body: UpdateDeepLinkSettingsBody } },
      async (req) => {
        const stored = await updateDeepLinkSettings(ctx.storage.db, activeUser(req), req.body);
        // Cached links carry the default; other instances follow within the cache's five minutes.
        ctx.redirects.cache.clear();
        return { status: "success" as const, settings: stored };
      },
    );
  });
}

/** `GET|PUT|DELETE /api/admin/apps`: `scope` is the operator scope of routes/admin.ts. */
export async function adminAppRoutes(scope: App, ctx: Pick<AppContext, "appAssociations" | "config">): Promise<void> {
  const host = ctx.config.baseUrl.hostname;
  scope.get(
    "/api/admin/apps",
    { schema: { tags: ["operator"], summary: "The apps the main host opens, and its association files", response: { 200: AppsReply, ...errors(401, 403) } } },
    async (_req, r) => {
      r.header("cache-control", "no-store");
      return reply(host, await ctx.appAssociations.main());
    },
  );
  scope.put(
    "/api/admin/apps",
    {
      schema: {
        tags: ["operator"],
        summary: "Set the main host's iOS and Android apps (audit log: apps.update)",
        body: AppsBody,
        response: { 200: AppsReply, ...errors(400, 401, 403) },
      },
    },
    async (req) => reply(host, await ctx.appAssociations.setMain(operatorOf(req), req.body)),
  );
  scope.delete(
    "/api/admin/apps",
    { schema: { tags: ["operator"], summary: "Remove the main host's apps (audit log: apps.remove)", response: { 200: OkSchema, ...errors(401, 403) } } },
    async (req) => {
      await ctx.appAssociations.deleteMain(operatorOf(req));
      return { status: "success" as const };
    },
  );
}

function send(r: FastifyReply, file: ServedFile | null) {
  if (file === null) throw new DomainError("not_found", "No app is associated with this host");
  return r.headers(ASSOCIATION_HEADERS).send(file.body);
}

/** Both files on every host, outside /api (no session, no CSRF). */
export async function associationFileRoutes(app: App, ctx: Pick<AppContext, "appAssociations">): Promise<void> {
  for (const path of [APPLE_PATH, ANDROID_PATH] as const) {
    app.get(path, { schema: { hide: true } }, async (req, r) => send(r, ctx.appAssociations.file(req.hostname, path)));
  }
}
