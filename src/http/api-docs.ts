// The API reference at /docs (@fastify/swagger-ui): snip's name, logo, favicon and colours instead of the stock
// Swagger page, with the logo leading back to the dashboard. README.md (API) and the dashboard's API keys link here.
import type { FastifySwaggerUiOptions } from "@fastify/swagger-ui";

/** Where the API reference is served (README.md gives it; the dashboard links to it). */
export const API_DOCS_PATH = "/docs";
export const API_DOCS_TITLE = "snip API";

/** The dashboard's favicon (web/public/favicon.svg): the rounded square with an "s". */
const MARK = `<rect width="32" height="32" rx="8" fill="#4f46e5"/><text x="16" y="22" font-size="17" font-weight="700" text-anchor="middle" fill="#fff" font-family="system-ui,sans-serif">s</text>`;
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">${MARK}</svg>`;

/** The top bar's logo: the mark on a white tile, then "snip API" in white (the bar is snip's indigo). */
export const LOGO_SVG =
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 150 40" width="150" height="40" role="img" aria-label="${API_DOCS_TITLE}">` +
  `<rect x="2" y="4" width="32" height="32" rx="8" fill="#fff"/>` +
  `<text x="18" y="26" font-size="17" font-weight="700" text-anchor="middle" fill="#4f46e5" font-family="system-ui,sans-serif">s</text>` +
  `<text x="44" y="27" font-size="20" font-weight="700" fill="#fff" font-family="system-ui,sans-serif">${API_DOCS_TITLE}</text></svg>`;

/** snip's colours (web/src/styles.css: --primary #4f46e5, --primary-hover #4338ca) over Swagger UI's own sheet. */
export const THEME_CSS = `
body { margin: 0; background: #f7f7fb; }
.swagger-ui, .swagger-ui .info .title, .swagger-ui .opblock-tag { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
.swagger-ui .topbar { background: #4f46e5; padding: 6px 0; }
.swagger-ui .topbar a { max-width: none; }
.swagger-ui .topbar .download-url-wrapper { display: none; }
.swagger-ui .info a, .swagger-ui a.nostyle { color: #4338ca; }
.swagger-ui .btn.authorize { color: #4338ca; border-color: #4f46e5; }
.swagger-ui .btn.authorize svg { fill: #4338ca; }
.swagger-ui .btn.execute { background: #4f46e5; border-color: #4f46e5; }
.swagger-ui .opblock-tag { border-bottom-color: #e0e0ef; }
`;

export const apiDocsOptions: FastifySwaggerUiOptions = {
  routePrefix: API_DOCS_PATH,
  logo: { type: "image/svg+xml", content: LOGO_SVG },
  theme: {
    title: API_DOCS_TITLE,
    css: [{ filename: "snip.css", content: THEME_CSS }],
    favicon: [{ filename: "favicon.svg", rel: "icon", type: "image/svg+xml", sizes: "any", content: FAVICON_SVG }],
  },
  uiConfig: { deepLinking: true, docExpansion: "list", defaultModelsExpandDepth: 0 },
};
