// The reading of the dashboard's router that the browser walks check their coverage against (test/e2e/routes.ts):
// nested and index routes, the ranking of a path among routes, and the real router read whole.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ROUTER_FILE, dashboardRoutes, routeFor, routesNotWalked, routesOf } from "../e2e/routes.js";

const SAMPLE = `
const x = (
  <Routes>
    <Route path="/" element={<Home />} />
    <Route path="/app/links/:id" element={<RequireAuth><Link /></RequireAuth>} />
    <Route path="/app/links/new" element={<RequireAuth key="create"><Form /></RequireAuth>} />
    <Route path="/app/admin" element={<RequireAuth><Layout /></RequireAuth>}>
      <Route index element={<Overview />} />
      <Route path="audit" element={<Audit />} />
      <Route path="*" element={<NotFound />} />
    </Route>
    <Route path="*" element={<NotFound />} />
  </Routes>
);`;

describe("the dashboard's routes read from its router", () => {
  it("joins nested routes to their parent and gives an index route its parent's path", () => {
    expect(routesOf(SAMPLE)).toEqual(["/", "/app/links/:id", "/app/links/new", "/app/admin", "/app/admin", "/app/admin/audit", "/app/admin/*", "*"]);
  });

  it("refuses a route whose path it cannot read", () => {
    expect(() => routesOf(`<Route path={dynamic} element={<A />} />`)).toThrow(/not a string literal/);
    expect(() => routesOf(`<Route element={<A />} />`)).toThrow(/neither path nor index/);
  });

  it("ranks a path as the router does: static segments over parameters, a catch-all last", () => {
    const routes = ["/", "/app/links/:id", "/app/links/new", "/app/admin", "/app/admin/audit", "/app/admin/*", "*"];
    expect(routeFor(routes, "/app/links/new")).toBe("/app/links/new");
    expect(routeFor(routes, "/app/links/abc")).toBe("/app/links/:id");
    expect(routeFor(routes, "/app/admin")).toBe("/app/admin");
    expect(routeFor(routes, "/app/admin/audit")).toBe("/app/admin/audit");
    expect(routeFor(routes, "/app/admin/nothing/here")).toBe("/app/admin/*");
    expect(routeFor(routes, "/app/links/abc/more")).toBe("*");
    expect(routeFor(routes, "/")).toBe("/");
  });

  it("names the routes no walked path reached, leaving out paths the server answers itself", () => {
    const routes = ["/", "/app/links/:id", "/app/admin", "*"];
    expect(routesNotWalked(routes, ["/", "/app/links/x?tab=1", "/some-short-link", "/report?link=a"])).toEqual(["/app/admin", "*"]);
    expect(routesNotWalked(routes, ["/", "/app/links/x", "/app/admin", "/app/nothing"])).toEqual([]);
  });

  it("reads every <Route> of web/src/main.tsx, the admin console's nested ones included", () => {
    const source = readFileSync(ROUTER_FILE, "utf8");
    const routes = routesOf(source);
    expect(routes.length).toBe(source.match(/<Route\b/g)?.length);
    const unique = dashboardRoutes();
    for (const page of ["/app/security", "/app/sso", "/app/admin/sso", "/app/live", "/app/links/:id", "/app/admin", "/app/admin/*", "*"]) {
      expect(unique).toContain(page);
    }
    // The admin console's and the bio pages' index routes answer /app/admin and /app/bio, which their layout routes already name.
    expect(unique).toContain("/app/bio/:id");
    expect(unique.length).toBe(routes.length - 2);
  });
});
