// compose.yaml and the Dockerfile read as Compose and Docker would: no Docker engine runs here, so the
// references that `docker compose config` would check (volumes, secrets, profiles, health checks) are checked here.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { SECRET_SETTINGS } from "../../src/config.js";

const root = join(import.meta.dirname, "..", "..");

interface Service {
  image?: string;
  build?: string;
  profiles?: string[];
  depends_on?: Record<string, { condition: string }>;
  environment?: Record<string, string>;
  secrets?: string[];
  volumes?: string[];
  ports?: string[];
  read_only?: boolean;
  tmpfs?: string[];
  stop_grace_period?: string;
  healthcheck?: { test: string[] };
}

// merge: the `<<: *snip` keys, which Compose resolves (YAML 1.1's merge key).
const compose = parse(readFileSync(join(root, "compose.yaml"), "utf8"), { merge: true }) as {
  services: { db: Service; snip: Service; "snip-sqlite": Service };
  volumes: Record<string, unknown>;
  secrets: Record<string, { file: string }>;
};
const dockerfile = readFileSync(join(root, "Dockerfile"), "utf8");

describe("compose.yaml", () => {
  const { services } = compose;

  it("runs snip on PostgreSQL 16 by default and snip on SQLite alone under the sqlite profile", () => {
    expect(Object.keys(services).sort()).toEqual(["db", "snip", "snip-sqlite"]);
    expect(services.snip.image).toBe("snip:local");
    expect(services["snip-sqlite"].build).toBe(".");
    expect(services.db.image).toMatch(/^postgres:16(-|$)/);
    expect(services.db.profiles).toBeUndefined();
    expect(services.snip.profiles).toBeUndefined();
    expect(services["snip-sqlite"].profiles).toEqual(["sqlite"]);
    expect(services.snip.depends_on).toEqual({ db: { condition: "service_healthy" } });
    expect(services["snip-sqlite"].depends_on).toBeUndefined();
    expect(services["snip-sqlite"].environment?.DATABASE_URL_FILE).toBeUndefined();
  });

  it("initialises PostgreSQL with the locale snip is tested on (C.UTF-8), not the image's en_US.UTF-8", () => {
    expect(services.db.environment?.POSTGRES_INITDB_ARGS).toBe("--locale=C.UTF-8");
  });

  it("gives every service a health check, snip's on /readyz as the image's", () => {
    expect(services.db.healthcheck?.test).toContain("pg_isready");
    expect(dockerfile).toMatch(/^HEALTHCHECK .*\n.*\/readyz/m);
    for (const name of ["snip", "snip-sqlite"] as const) expect(services[name].healthcheck?.test.join(" ")).toContain("/readyz");
  });

  it("declares every named volume and secret it uses, and mounts each <NAME>_FILE's secret", () => {
    for (const [name, svc] of Object.entries(services)) {
      for (const v of svc.volumes ?? []) {
        const [source = ""] = v.split(":");
        if (!source.startsWith(".") && !source.startsWith("/")) expect(compose.volumes, `${name}: volume ${source}`).toHaveProperty(source);
      }
      for (const s of svc.secrets ?? []) expect(compose.secrets, `${name}: secret ${s}`).toHaveProperty(s);
      for (const [key, value] of Object.entries(svc.environment ?? {})) {
        if (!key.endsWith("_FILE")) continue;
        const secret = /^\/run\/secrets\/(.+)$/.exec(value)?.[1];
        expect(svc.secrets, `${name}: ${key}`).toContain(secret);
        // snip reads <NAME>_FILE only for its secret settings; the postgres image reads POSTGRES_PASSWORD_FILE.
        if (name !== "db") expect(SECRET_SETTINGS as readonly string[]).toContain(key.replace(/_FILE$/, ""));
      }
    }
    for (const s of Object.values(compose.secrets)) expect(s.file).toMatch(/^\.\/secrets\//);
  });

  it("runs snip read-only with /data as a volume, /tmp a tmpfs, and a stop grace period past its drain", () => {
    for (const name of ["snip", "snip-sqlite"] as const) {
      const svc = services[name];
      expect(svc.read_only).toBe(true);
      expect(svc.tmpfs).toContain("/tmp");
      expect(svc.volumes?.some((v) => v.endsWith(":/data"))).toBe(true);
      expect(svc.ports).toEqual(["8080:8080"]);
      // snip's shutdown timer is 15 s (plus DRAIN_DELAY_MS, 0 here); Compose's default of 10 s would kill it first.
      expect(Number.parseInt(svc.stop_grace_period ?? "10s", 10)).toBeGreaterThan(15);
    }
  });
});

describe("Dockerfile", () => {
  it("builds on node:22-bookworm-slim in two stages and runs as node with /data, 8080 and SIGTERM", () => {
    expect(dockerfile.match(/^FROM .*/gm)).toEqual(["FROM node:22-bookworm-slim AS build", "FROM node:22-bookworm-slim"]);
    const runtime = dockerfile.slice(dockerfile.lastIndexOf("\nFROM "));
    expect(runtime).toMatch(/^USER node$/m);
    expect(runtime).toMatch(/^VOLUME \/data$/m);
    expect(runtime).toMatch(/^EXPOSE 8080$/m);
    expect(runtime).toMatch(/^STOPSIGNAL SIGTERM$/m);
    // The CA bundle is a build secret of the build stage only; the runtime stage installs nothing.
    expect(runtime).not.toMatch(/secret|apt-get|npm (ci|install)/);
  });
});
