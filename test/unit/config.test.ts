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
    // Start-up waits DATABASE_WAIT_S (default 30 s) for the database (docs/operations.md).
    expect(c.database).toEqual({ kind: "postgres", url: "postgres://u@db:5432/snip", waitMs: 30_000 });
    expect(c.secureCookies).toBe(true);
    expect(loadConfig({ DATA_DIR: dir(), DATABASE_URL: "postgres://u@db:5432/snip", DATABASE_WAIT_S: "0" }).database).toEqual({
      kind: "postgres",
      url: "postgres://u@db:5432/snip",
      waitMs: 0,
    });
    expect(() => loadConfig({ DATA_DIR: dir(), DATABASE_URL: "postgres://u@db:5432/snip", DATABASE_WAIT_S: "3601" })).toThrow("DATABASE_WAIT_S");
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

  it("tracing: off without an OTLP endpoint; the OTEL_* settings read, defaulted and checked", () => {
    const d = dir();
    expect(loadConfig({ DATA_DIR: d, OTEL_SERVICE_NAME: "x", OTEL_TRACES_SAMPLER: "always_on" }).tracing).toBeNull();
    expect(loadConfig({ DATA_DIR: d, OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }).tracing).toEqual({
      url: "http://collector:4318/v1/traces",
      protocol: "http/protobuf",
      serviceName: "snip",
      sampler: "parentbased_always_on",
      samplerRatio: 1,
      redirectRatio: 0.01,
    });
    const t = loadConfig({
      DATA_DIR: d,
      OTEL_EXPORTER_OTLP_ENDPOINT: "https://otlp.example/base/",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
      OTEL_SERVICE_NAME: "snip-eu",
      OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "0.25",
      OTEL_REDIRECT_SAMPLE_RATIO: "0",
    }).tracing;
    expect(t).toEqual({
      url: "https://otlp.example/base/v1/traces",
      protocol: "http/json",
      serviceName: "snip-eu",
      sampler: "parentbased_traceidratio",
      samplerRatio: 0.25,
      redirectRatio: 0,
    });
    // The traces endpoint is used as given, and alone turns tracing on.
    expect(loadConfig({ DATA_DIR: d, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://c:4318/custom/path" }).tracing?.url).toBe("http://c:4318/custom/path");
    expect(loadConfig({ DATA_DIR: d, OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "true" }).tracing).toBeNull();
    expect(loadConfig({ DATA_DIR: d, OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_TRACES_EXPORTER: "none" }).tracing).toBeNull();

    const bad = (env: Record<string, string>) => () => loadConfig({ DATA_DIR: d, OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", ...env });
    expect(bad({ OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).toThrow(
      new ConfigError("OTEL_EXPORTER_OTLP_PROTOCOL", 'must be one of http/protobuf, http/json, got "grpc"'),
    );
    expect(bad({ OTEL_REDIRECT_SAMPLE_RATIO: "1.5" })).toThrow(new ConfigError("OTEL_REDIRECT_SAMPLE_RATIO", 'must be a number from 0 to 1, got "1.5"'));
    expect(bad({ OTEL_TRACES_SAMPLER_ARG: "half" })).toThrow(new ConfigError("OTEL_TRACES_SAMPLER_ARG", 'must be a number from 0 to 1, got "half"'));
    expect(bad({ OTEL_TRACES_SAMPLER: "jaeger_remote" })).toThrow(ConfigError);
    expect(bad({ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" })).toThrow(
      new ConfigError("OTEL_EXPORTER_OTLP_ENDPOINT", "must start with http:// or https:// (OTLP over HTTP)"),
    );
    expect(bad({ OTEL_EXPORTER_OTLP_ENDPOINT: "not a url" })).toThrow(new ConfigError("OTEL_EXPORTER_OTLP_ENDPOINT", '"not a url" is not an absolute URL'));
  });
});

describe("WORKERS", () => {
  const d = dir();
  it("is 1 by default, a whole number from 1 to 256, or auto (every core)", async () => {
    const { availableParallelism } = await import("node:os");
    expect(loadConfig({ DATA_DIR: d }).workers).toBe(1);
    expect(loadConfig({ DATA_DIR: d, WORKERS: "4" }).workers).toBe(4);
    expect(loadConfig({ DATA_DIR: d, WORKERS: " 256 " }).workers).toBe(256);
    expect(loadConfig({ DATA_DIR: d, WORKERS: "auto" }).workers).toBe(availableParallelism());
  });

  it("refuses anything else, naming the variable", () => {
    for (const [raw, msg] of [
      ["0", "must be between 1 and 256, got 0"],
      ["257", "must be between 1 and 256, got 257"],
      ["-2", 'must be a whole number, got "-2"'],
      ["2.5", 'must be a whole number, got "2.5"'],
      ["AUTO", 'must be a whole number, got "AUTO"'],
      ["9".repeat(400), "must be between 1 and 256"],
    ] as const) {
      expect(() => loadConfig({ DATA_DIR: d, WORKERS: raw })).toThrow(ConfigError);
      expect(() => loadConfig({ DATA_DIR: d, WORKERS: raw })).toThrow(msg);
    }
  });
});
