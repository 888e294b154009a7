// QR code of a short URL (API.md, QR codes): public like the short URL; 404 when the link would answer 404.
// Images come from links/qr.ts (cached, drawn off the event loop, bounded per address); ETags let
// clients revalidate without a new drawing.
import { Type } from "typebox";
import type { App } from "../app.js";
import type { AppContext } from "../../context.js";
import { DomainError } from "../../shared/errors.js";
import { etagMatches, QR_DEFAULT, QR_MAX, QR_MIN, qrEtag, QrService } from "../../links/qr.js";
import { shortUrl } from "../../links/public-link.js";
import { errors } from "../schemas.js";

export async function qrRoutes(app: App, ctx: AppContext): Promise<void> {
  const qr = new QrService({ now: () => ctx.clock.now() });
  app.addHook("onClose", async () => qr.close());
  app.get(
    "/api/qr/:alias",
    {
      schema: {
        tags: ["links"],
        summary: "QR code image of a short URL (SVG by default, or PNG of size x size pixels)",
        description:
          "Cacheable for 60 s, with an ETag (If-None-Match answers 304). Images not cached are drawn in worker threads and " +
          "bounded per client address (64 units at once, one more per second; an SVG or a PNG up to 512 px costs 1, a 2048 px PNG 16); " +
          "past that, or when the drawing threads' queue is full, 429 rate_limited with Retry-After.",
        params: Type.Object({ alias: Type.String({ maxLength: 200 }) }),
        querystring: Type.Object(
          {
            domain: Type.Optional(Type.String({ maxLength: 300 })),
            format: Type.Optional(Type.Union([Type.Literal("svg"), Type.Literal("png")])),
            size: Type.Optional(Type.Integer({ minimum: QR_MIN, maximum: QR_MAX })),
          },
          { additionalProperties: false },
        ),
        response: { ...errors(400, 404, 429) },
      },
    },
    async (req, reply) => {
      const { alias } = req.params;
      const domain = ctx.redirects.domainFor(req.query.domain || ctx.config.baseUrl.hostname);
      // Same lookup as the redirect (cache included): unknown or deleted -> 404.
      const link = await ctx.redirects.find(domain, alias);
      if (!link) throw new DomainError("not_found", "No such short link");
      const job = { text: shortUrl(ctx.config.origin, domain, alias), format: req.query.format ?? "svg", size: req.query.size ?? QR_DEFAULT };
      QrService.validate(job);
      const etag = qrEtag(job);
      reply.header("cache-control", "public, max-age=60").header("etag", etag);
      if (etagMatches(req.headers["if-none-match"], etag)) return reply.code(304).send();
      const img = await qr.image(job, req.ip);
      return reply.type(img.type).send(img.body);
    },
  );
}
