// Paths the app itself uses at the root: never valid short aliases (compared case-insensitively).
export const RESERVED_PATHS = [
  "api",
  "app",
  "docs",
  "healthz",
  "readyz",
  "metrics",
  "assets",
  "static",
  "favicon.ico",
  "favicon.svg",
  "robots.txt",
  "index.html",
  "admin",
  "login",
  "logout",
  "signup",
  "settings",
  "report",
];

const RESERVED = new Set(RESERVED_PATHS.map((p) => p.toLowerCase()));

export function isReservedAlias(alias: string): boolean {
  return RESERVED.has(alias.toLowerCase());
}
