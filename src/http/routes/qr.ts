// QR code of a short URL (docs/api.md, QR codes): public like the short URL; 404 when the link would answer 404.
// Images come from links/qr.ts (cached, drawn off the event loop, bounded per address); ETags let
// clients revalidate without a new drawing. A centre logo (the owner's picture) is drawn only for the
// owner and the members of the owner's team, signed in (links/qr-logo.ts), and cached privately.
import { Type } from "typebox";
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { DomainError } from "../../shared/errors.js";
import { etagMatches, QR_DEFAULT, qrDesign, qrEtag, QrService } from "../../links/qr.js";
import { qrLogoPicture } from "../../links/qr-logo.js";
import { shortUrl } from "../../links/public-link.js";
import { qrTarget } from "../../redirect/qr-marker.js";
import { errors } from "../../contract/common.js";
import { QrQuery } from "../../contract/qr.js";
import { currentUser } from "../auth.js";
import { wholeNumbersInQuery } from "../input-guard.js";

/** The services these routes use: the compiler refuses any other. */
type Deps = Pick<AppContext, "accounts" | "clock" | "config" | "redirects" | "sessions" | "storage">;

export async function qrRoutes(app: App, ctx: Deps): Promise<void> {
  const qr = new QrService({ now: () => ctx.clock.now() });
  app.addHook("onClose", async () => qr.close());
  app.get(
    "/api/qr/:alias",
    {
      preValidation: wholeNumbersInQuery("size", "margin"),
      schema: {
        tags: ["links"],
        summary: "QR code image of a short URL (SVG by default, or PNG of size x size pixels), in the colours, quiet zone and level asked for",
        description:
          "Cacheable for 60 s (privately with a logo), with an ETag (If-None-Match answers 304). Images not cached are drawn in worker threads and " +
          "bounded per client address (64 units at once, one more per second; an SVG or a PNG up to 512 px costs 1, a 2048 px PNG 16, a logo 1 more); " +
          "past that, or when the drawing threads' queue is full, 429 rate_limited with Retry-After. Colours of too little contrast, or a light " +
          "foreground on a dark background, are refused with 400 invalid_request naming fg or bg.",
        params: Type.Object({ alias: Type.String({ maxLength: 200 }) }),
        querystring: QrQuery,
        response: { ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (req, reply) => {
      const { alias } = req.params;
      const design = qrDesign(req.query);
      const domain = ctx.redirects.domainFor(req.query.domain || ctx.config.baseUrl.hostname);
      // Same lookup as the redirect (cache included): unknown or deleted -> 404.
      const link = await ctx.redirects.find(domain, alias);
      if (!link) throw new DomainError("not_found", "No such short link");
      const logo = req.query.logo === "1" ? await qrLogoPicture(ctx.storage.db, await currentUser(ctx, req), link.owner_id) : null;
      const job = {
        text: qrTarget(shortUrl(ctx.config.origin, domain, alias)),
        format: req.query.format ?? "svg",
        size: req.query.size ?? QR_DEFAULT,
        design,
        logo: logo?.id ?? null,
      };
      QrService.validate(job);
      const etag = qrEtag(job);
      reply.header("cache-control", logo ? "private, max-age=60" : "public, max-age=60").header("etag", etag);
      if (logo) reply.header("qr-logo", logo.id ? "drawn" : "none").header("vary", "Cookie");
      if (etagMatches(req.headers["if-none-match"], etag)) return reply.code(304).send();
      const img = await qr.image(job, req.ip, async () => (logo ? ((await ctx.accounts.picture(logo.ownerId))?.data ?? null) : null));
      return reply.type(img.type).send(img.body);
    },
  );
}
