// Which host serves which links (API.md, Custom domains): a Host that is a custom domain of the service
// serves that domain's links only (404 while it is pending); any other Host (BASE_URL's, 127.0.0.1, a LAN
// address, a name nobody added) is the main host, so a fresh install answers at whatever address it is
// reached; on SQLite and PostgreSQL, through the fast path (cached) and the full one alike.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { ApiClient, signedInClient } from "../helpers/client.js";
import { TestDns } from "../helpers/dns.js";
import { hit } from "../helpers/host.js";

describe.each(ENGINES)("the main host and custom domains by Host on %s", (engine) => {
  let dns: TestDns;
  let server: TestServer;
  let owner: ApiClient;
  const port = () => new URL(server.url).port;

  beforeAll(async () => {
    dns = await TestDns.start();
    // BASE_URL names a host that the requests below never use, as on a laptop whose log says localhost.
    server = await startTestServer({ engine, env: { DNS_SERVERS: dns.address, CNAME_TARGET: "cname.snip.example", BASE_URL: "http://localhost:8080" } });
    owner = await signedInClient(server, "hosts@example.com", "business");
  });
  afterAll(async () => {
    await server?.close();
    await dns?.close();
  });

  /** Twice: the second answer comes from the link cache (the fast path). */
  const twice = async (alias: string, host: string) => {
    const first = await hit(server.url, `/${alias}`, host);
    const second = await hit(server.url, `/${alias}`, host);
    expect(second.status, host).toBe(first.status);
    expect(second.location, host).toBe(first.location);
    return first;
  };

  it("a signed-out visitor's first link answers at 127.0.0.1, localhost, a LAN address and any other name", async () => {
    const anon = await new ApiClient(server.url).init();
    const r = await anon.post("/api/links", { url: "https://example.com/first", alias: "first-try" });
    expect(r.status, r.text).toBe(201);
    expect(r.body.link.short_url).toBe("http://localhost:8080/first-try");
    for (const host of [`127.0.0.1:${port()}`, "127.0.0.1", `localhost:${port()}`, "LOCALHOST.", "192.168.1.20:8080", "[::1]:8080", "nobody-added.example"]) {
      expect(await twice("first-try", host), host).toMatchObject({ status: 302, location: "https://example.com/first" });
    }
    // Without a Host header at all (HTTP/1.0), too.
    const bare = await fetch(`${server.url}/first-try`, { redirect: "manual" });
    expect(bare.status).toBe(302);
  });

  it("a pending custom domain serves nothing (404), not the main host's links; verified, its own; deleted, the main host again", async () => {
    await owner.post("/api/links", { url: "https://example.com/main", alias: "shared-name" });
    expect((await twice("shared-name", "go.shop.example")).status).toBe(302);

    const d = (await owner.post("/api/domains", { hostname: "go.shop.example" })).body.domain;
    expect(d.status).toBe("pending");
    expect((await twice("shared-name", "go.shop.example")).status).toBe(404);
    expect((await twice("shared-name", "GO.Shop.Example.")).status).toBe(404);
    // The main host is unaffected.
    expect((await twice("shared-name", `127.0.0.1:${port()}`)).location).toBe("https://example.com/main");

    dns.serve(d);
    expect((await owner.post(`/api/domains/${d.id}/verify`)).body.domain.status).toBe("verified");
    expect((await twice("shared-name", "go.shop.example")).status).toBe(404);
    const own = await owner.post("/api/links", { url: "https://example.com/on-domain", alias: "shared-name", domain: d.hostname });
    expect(own.status, own.text).toBe(201);
    expect((await twice("shared-name", "go.shop.example")).location).toBe("https://example.com/on-domain");
    expect((await twice("shared-name", "localhost")).location).toBe("https://example.com/main");

    expect((await owner.delete(`/api/domains/${d.id}`)).status).toBe(200);
    expect((await twice("shared-name", "go.shop.example")).location).toBe("https://example.com/main");
  });

  it("the QR code of a main-host link asked through another address encodes BASE_URL's short URL", async () => {
    await owner.post("/api/links", { url: "https://example.com/qr", alias: "qr-main" });
    const viaLan = await fetch(`${server.url}/api/qr/qr-main?domain=192.168.1.20`);
    expect(viaLan.status).toBe(200);
    const plain = await fetch(`${server.url}/api/qr/qr-main`);
    expect(await viaLan.text()).toBe(await plain.text());
  });
});
