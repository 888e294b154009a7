// POST /api/deeplinks/open (docs/deep-links.md, The open API): what an app asks when it opens, with a key of the
// scope deeplinks:open (a key with that scope alone is publishable: this is the only route it reaches). Throttled
// per client address; every input checked by the schema and here (exactly one of the three forms).
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { errors } from "../../contract/common.js";
import { DeepLinkOpenBody, DeepLinkOpenReply } from "../../contract/deeplinks.js";
import { openFromClick, openFromDevice, openFromLink, type OpenDeps } from "../../deeplinks/app-opens.js";
import { addressHash, addressKey, languageTag } from "../../deeplinks/pending-matches.js";
import { DomainError, invalid } from "../../shared/errors.js";
import { admitKey, keyCaller, keyRoute } from "../key-auth.js";

/** The services this route uses: the compiler refuses any other. */
type Deps = Pick<AppContext, "apiKeys" | "storage" | "clock" | "rate" | "config" | "redirects" | "events" | "clicks">;

/** Asks per client address and minute before 429 rate_limited (an app asks once per launch; a carrier's NAT shares an address). */
export const OPENS_PER_MINUTE = 60;
const MINUTE = 60_000;

/** The short link an address names: its host must be the main host or a custom domain, its path one alias; null otherwise. */
function linkAddress(raw: string, mainHost: string, domainFor: (host: string) => string): { domain: string; alias: string; query: string } | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw invalid("url", "must be an absolute http(s) address of a short link");
  }
  if (u.protocol !== "https:" && u.protocol !== "http:") throw invalid("url", "must be an absolute http(s) address of a short link");
  const host = u.hostname.toLowerCase();
  const domain = host === mainHost ? "" : domainFor(host);
  if (domain === "" && host !== mainHost) return null;
  const m = /^\/([^/]+)\/?$/.exec(u.pathname);
  if (m === null) return null;
  let alias: string;
  try {
    alias = decodeURIComponent(m[1] as string);
  } catch {
    return null;
  }
  return { domain, alias, query: u.search.slice(1) };
}

export async function deeplinkOpenRoutes(app: App, ctx: Deps): Promise<void> {
  const admit = admitKey(ctx, "The deep link API");
  const key = addressKey(ctx.config.sessionSecret);
  const deps = (): OpenDeps => ({ db: ctx.storage.db, events: ctx.events, flush: () => ctx.clicks.writeBuffered() });
  const mainHost = ctx.config.baseUrl.hostname.toLowerCase();

  app.post(
    "/api/deeplinks/open",
    {
      config: keyRoute("POST /api/deeplinks/open"),
      onRequest: admit,
      schema: {
        tags: ["deep links"],
        security: [{ bearer: [] }],
        summary: "The link that opened the app, and where in the app to go: by click id, by the short link's address, or by the device on a first launch",
        body: DeepLinkOpenBody,
        response: { 200: DeepLinkOpenReply, ...errors(400, 401, 403, 429) },
      },
    },
    async (req) => {
      const body = req.body;
      const device = body.os_version !== undefined || body.device_model !== undefined || body.language !== undefined;
      const forms = [body.click_id !== undefined, body.url !== undefined, body.platform !== undefined].filter(Boolean).length;
      if (forms !== 1) throw invalid("body", "give exactly one of click_id, url, or platform with os_version, device_model and language");
      if (device && body.platform === undefined) throw invalid("platform", "os_version, device_model and language go with platform (a first launch)");
      const now = ctx.clock.now();
      const slot = await ctx.rate.attempt([{ bucket: `deeplink-open:${req.ip}`, windowMs: MINUTE, limit: OPENS_PER_MINUTE }], now);
      if ("full" in slot)
        throw new DomainError("rate_limited", "Too many deep link asks from this address; try again later", undefined, undefined, slot.full.retryAfter);
      const ownerId = keyCaller(req).user.id;
      let answer;
      if (body.click_id !== undefined) answer = await openFromClick(deps(), ownerId, body.click_id, now);
      else if (body.url !== undefined) {
        const at = linkAddress(body.url, mainHost, (h) => ctx.redirects.domainFor(h));
        const link = at === null ? null : await ctx.redirects.find(at.domain, at.alias);
        answer = await openFromLink(deps(), ownerId, link?.id ?? null, at?.query ?? "", now);
      } else {
        const facts = { os_version: body.os_version ?? null, device_model: body.device_model ?? null, language: languageTag(body.language) };
        answer = await openFromDevice(deps(), { ownerId, address: addressHash(key, req.ip), platform: body.platform as "ios" | "android", facts }, now);
      }
      return { status: "success" as const, ...answer };
    },
  );
}
