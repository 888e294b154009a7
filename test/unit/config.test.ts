// Configuration: defaults, validation naming the variable, the persisted secret.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.js";

const dir = () => mkdtempSync(join(tmpdir(), "snip-cfg-"));

describe("loadConfig", () => {
  it("has the documented defaults", () => {
    const d = dir();
    const c = loadConfig({ DATA_DIR: d });
    expect(c.port).toBe(8080);
    expect(c.host).toBe("127.0.0.1");
    expect(c.origin).toBe("http://localhost:8080");
    expect(c.database).toEqual({ kind: "sqlite", file: join(d, "snip.db") });
    expect(c.smtpUrl).toBeNull();
    expect(c.trustProxy).toBe(false);
    expect(c.secureCookies).toBe(false);
    expect(c.clickJournal).toBe(true);
    expect(loadConfig({ DATA_DIR: d, CLICK_JOURNAL: "off" }).clickJournal).toBe(false);
    expect(Object.isFrozen(c)).toBe(true);
  });

  it("selects PostgreSQL from a postgres:// URL and secure cookies from an https BASE_URL", () => {
    const c = loadConfig({ DATA_DIR: dir(), DATABASE_URL: "postgres://u@db:5432/snip", BASE_URL: "https://s.example" });
    expect(c.database).toEqual({ kind: "postgres", url: "postgres://u@db:5432/snip" });
    expect(c.secureCookies).toBe(true);
  });

  it.each([
    ["PORT", "abc"],
    ["PORT", "70000"],
    ["BASE_URL", "not a url"],
    ["BASE_URL", "ftp://x.example"],
    ["BASE_URL", "https://x.example/path"],
    ["DATABASE_URL", "mysql://x"],
    ["SMTP_URL", "http://mail"],
    ["DNS_SERVERS", "1.2.3.4:99999"],
    ["DNS_SERVERS", "resolver.example"],
    ["TRUST_PROXY", "maybe"],
    ["LOG_LEVEL", "loud"],
    ["GEOIP_DB", "/nonexistent/file.mmdb"],
    ["SESSION_SECRET", "short"],
    ["LINK_CACHE_SIZE", "-1"],
    ["CNAME_TARGET", "10.0.0.1"],
    ["CNAME_TARGET", "bad_name!.example"],
    ["DOMAIN_RECHECK_MINUTES", "0"],
    ["DOMAIN_RECHECK_MINUTES", "soon"],
    ["CLICK_JOURNAL", "maybe"],
  ])("refuses %s=%s naming the variable", (name, value) => {
    let err: unknown;
    try {
      loadConfig({ DATA_DIR: dir(), [name]: value });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).variable).toBe(name);
    expect((err as ConfigError).message.startsWith(`${name}: `)).toBe(true);
    expect((err as ConfigError).message).not.toContain("\n");
  });

  it("defaults CNAME_TARGET to BASE_URL's host and DOMAIN_RECHECK_MINUTES to 60", () => {
    const d = dir();
    const c = loadConfig({ DATA_DIR: d, BASE_URL: "https://Sn.IP" });
    expect(c.cnameTarget).toBe("sn.ip");
    expect(c.domainRecheckMinutes).toBe(60);
    const set = loadConfig({ DATA_DIR: d, CNAME_TARGET: "Custom.Sn.Example.", DOMAIN_RECHECK_MINUTES: "15" });
    expect(set.cnameTarget).toBe("custom.sn.example");
    expect(set.domainRecheckMinutes).toBe(15);
  });

  it("parses TRUST_PROXY and DNS_SERVERS forms", () => {
    const d = dir();
    expect(loadConfig({ DATA_DIR: d, TRUST_PROXY: "true" }).trustProxy).toBe(true);
    expect(loadConfig({ DATA_DIR: d, TRUST_PROXY: "2" }).trustProxy).toBe(2);
    expect(loadConfig({ DATA_DIR: d, TRUST_PROXY: "10.0.0.0/8, 127.0.0.1" }).trustProxy).toEqual(["10.0.0.0/8", "127.0.0.1"]);
    expect(loadConfig({ DATA_DIR: d, DNS_SERVERS: "127.0.0.1:5353,[::1]:53" }).dnsServers).toEqual(["127.0.0.1:5353", "[::1]:53"]);
  });

  it("generates a session secret once and keeps it under DATA_DIR", () => {
    const d = dir();
    const a = loadConfig({ DATA_DIR: d }).sessionSecret;
    const b = loadConfig({ DATA_DIR: d }).sessionSecret;
    expect(a.length).toBeGreaterThanOrEqual(32);
    expect(b).toBe(a);
    expect(readFileSync(join(d, "secret"), "utf8").trim()).toBe(a);
    expect(loadConfig({ DATA_DIR: dir() }).sessionSecret).not.toBe(a);
  });
});
