// QR code of a short URL (API.md, QR codes): public like the short URL; 404 when the link would answer 404.
import { Type } from "typebox";
import type { App } from "../app.js";
import type { AppContext } from "../../context.js";
import { DomainError } from "../../shared/errors.js";
import { QR_DEFAULT, QR_MAX, QR_MIN, renderQr } from "../../links/qr.js";
import { shortUrl } from "../../links/public-link.js";
import { errors } from "../schemas.js";

export async function qrRoutes(app: App, ctx: AppContext): Promise<void> {
  app.get(
    "/api/qr/:alias",
    {
      schema: {
        tags: ["links"],
        summary: "QR code image of a short URL (SVG by default, or PNG of size x size pixels)",
        params: Type.Object({ alias: Type.String({ maxLength: 200 }) }),
        querystring: Type.Object(
          {
            domain: Type.Optional(Type.String({ maxLength: 300 })),
            format: Type.Optional(Type.Union([Type.Literal("svg"), Type.Literal("png")])),
            size: Type.Optional(Type.Integer({ minimum: QR_MIN, maximum: QR_MAX })),
          },
          { additionalProperties: false },
        ),
        response: { ...errors(400, 404) },
      },
    },
    async (req, reply) => {
      const { alias } = req.params;
      const domain = ctx.redirects.domainFor(req.query.domain || ctx.config.baseUrl.hostname);
      // Same lookup as the redirect (cache included): unknown or deleted -> 404.
      const link = await ctx.redirects.find(domain, alias);
      if (!link) throw new DomainError("not_found", "No such short link");
      const img = await renderQr(shortUrl(ctx.config.origin, domain, alias), req.query.format ?? "svg", req.query.size ?? QR_DEFAULT);
      return reply.type(img.type).header("cache-control", "public, max-age=60").send(img.body);
    },
  );
}
