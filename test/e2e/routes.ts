// The dashboard's routes as its router declares them: the `<Route>` elements of web/src/main.tsx, read with
// TypeScript's parser (no React loaded), nested routes joined to their parent's path and index routes given it.
// The browser walks (every-page, contrast) check with these that every route was visited, so a page added to the
// router without a walk fails them.
import { readFileSync } from "node:fs";
import ts from "typescript";

export const ROUTER_FILE = new URL("../../web/src/main.tsx", import.meta.url);

/** The full path of each `<Route>` in the source, in source order (`*` for a catch-all, `:name` for a parameter). */
export function routesOf(source: string, fileName = "main.tsx"): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const routes: string[] = [];
  const visit = (node: ts.Node, parent: string): void => {
    const open = ts.isJsxElement(node) ? node.openingElement : ts.isJsxSelfClosingElement(node) ? node : null;
    if (open && open.tagName.getText(file) === "Route") {
      const full = join(parent, routeAttribute(open, file));
      routes.push(full);
      if (ts.isJsxElement(node)) for (const child of node.children) visit(child, full);
      return;
    }
    ts.forEachChild(node, (child) => visit(child, parent));
  };
  visit(file, "");
  return routes;
}

/** `path="…"`, or "" for an index route (it answers its parent's path). */
function routeAttribute(open: ts.JsxOpeningLikeElement, file: ts.SourceFile): string {
  for (const attr of open.attributes.properties) {
    if (!ts.isJsxAttribute(attr)) continue;
    const name = attr.name.getText(file);
    if (name === "index") return "";
    if (name === "path") {
      if (attr.initializer && ts.isStringLiteral(attr.initializer)) return attr.initializer.text;
      throw new Error(`a <Route> path that is not a string literal: ${attr.getText(file)}`);
    }
  }
  throw new Error(`a <Route> with neither path nor index: ${open.getText(file).slice(0, 120)}`);
}

function join(parent: string, path: string): string {
  if (path === "") return parent;
  if (path.startsWith("/") || parent === "") return path;
  return `${parent.replace(/\/$/, "")}/${path}`;
}

/** The dashboard's routes, from the router's file. */
export function dashboardRoutes(): string[] {
  return [...new Set(routesOf(readFileSync(ROUTER_FILE, "utf8")))];
}

/**
 * The route that answers a path, as the router ranks them: the one with the most static segments, then the fewest
 * parameters; a catch-all only when nothing else matches. Undefined when none does.
 */
export function routeFor(routes: readonly string[], pathname: string): string | undefined {
  const segments = pathname.split("/").filter(Boolean);
  let best: { route: string; score: number } | undefined;
  for (const route of routes) {
    const parts = route.split("/").filter(Boolean);
    const splat = parts.at(-1) === "*";
    const fixed = splat ? parts.slice(0, -1) : parts;
    if (splat ? segments.length < fixed.length : segments.length !== fixed.length) continue;
    if (!fixed.every((p, i) => p.startsWith(":") || p === segments[i])) continue;
    const statics = fixed.filter((p) => !p.startsWith(":")).length;
    const score = (splat ? 0 : 1_000_000) + statics * 1000 - (fixed.length - statics);
    if (!best || score > best.score) best = { route, score };
  }
  return best?.route;
}

/** Whether the dashboard's router answers a path: `/` and everything under `/app` (the server writes the rest). */
export function isDashboardPath(pathname: string): boolean {
  return pathname === "/" || pathname === "/app" || pathname.startsWith("/app/");
}

/**
 * The routes none of the walked paths (path and query, as given to page.goto) reached. Paths the server answers
 * itself (a short link, /report) reach no route, though the router's catch-all would match them.
 */
export function routesNotWalked(routes: readonly string[], walked: Iterable<string>): string[] {
  const reached = new Set<string>();
  for (const path of walked) {
    const { pathname } = new URL(path, "http://x");
    const route = isDashboardPath(pathname) ? routeFor(routes, pathname) : undefined;
    if (route) reached.add(route);
  }
  return routes.filter((r) => !reached.has(r));
}
