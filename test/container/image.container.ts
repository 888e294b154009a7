// The image as self-hosters run it (docs/docker.md): podman with runc, a read-only root, the /data volume,
// the CLI inside the container, SIGTERM under load as PID 1, PostgreSQL beside it, secrets as files.
// Run by `npm run test:container` (test/container/run.sh builds the base and the image first), not by `npm test`.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../helpers/server.js";
import { IMAGE, RUN_FLAGS, podman, redirect, redirectLoad, run, waitReady } from "./podman.js";

const TAG = `snip-ct-${process.pid}`;
const GRACE_S = 30;
const PG_ADMIN = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const created: { containers: string[]; volumes: string[]; databases: string[] } = { containers: [], volumes: [], databases: [] };
/** Figures for the closing note and docs/docker.md, printed at the end. */
const figures: Record<string, string | number> = {};

function secretDir(): string {
  return mkdtempSync(join(tmpdir(), "snip-ct-secrets-"));
}

/** A file readable by the image's `node` user, as a Docker or Kubernetes secret is mounted. */
function secretFile(dir: string, name: string, content: string): string {
  const file = join(dir, name);
  writeFileSync(file, content, { mode: 0o644 });
  return file;
}

interface Started {
  name: string;
  port: number;
  base: string;
  /** Milliseconds from `podman run` to /readyz answering 200. */
  readyMs: number;
}

/** Starts the image detached as self-hosters do: read-only root, /tmp a tmpfs, /data a named volume. */
async function start(label: string, volume: string, env: Record<string, string>, extra: string[] = []): Promise<Started> {
  const name = `${TAG}-${label}`;
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const envArgs = Object.entries({ PORT: String(port), BASE_URL: `http://localhost:${port}`, ...env }).flatMap(([k, v]) => ["-e", `${k}=${v}`]);
  created.containers.push(name);
  const t0 = Date.now();
  // --read-only-tmpfs=false: as Docker's --read-only, only what is named is writable (podman adds /run and /var/tmp).
  await podman([
    "run",
    "-d",
    "--name",
    name,
    ...RUN_FLAGS,
    "--read-only",
    "--read-only-tmpfs=false",
    "--tmpfs",
    "/tmp",
    "-v",
    `${volume}:/data`,
    ...envArgs,
    ...extra,
    IMAGE,
  ]);
  await waitReady(name, port);
  return { name, port, base, readyMs: Date.now() - t0 };
}

async function volume(label: string): Promise<string> {
  const name = `${TAG}-${label}`;
  await podman(["volume", "create", name]);
  created.volumes.push(name);
  return name;
}

/** `snip ...` inside the running container, as `docker exec snip snip ...`. */
async function snipExec(name: string, args: string[]): Promise<string> {
  return (await podman(["exec", name, "snip", ...args])).stdout;
}

/** A user and a link made with the CLI inside the container (the link through `snip import csv`). */
async function userAndLink(name: string, email: string, alias: string): Promise<void> {
  expect(await snipExec(name, ["user", "create", "--email", email, "--password", "container-pass-1", "--verified"])).toMatch(/^created /);
  const csv = `url,alias\\nhttps://example.com/landing/${alias},${alias}\\n`;
  const out = await podman(["exec", name, "sh", "-c", `printf '${csv}' > /tmp/links.csv && snip import csv ${email} --file /tmp/links.csv`]);
  expect(out.stdout).toMatch(/1 created/);
}

/** SIGTERM (the image's STOPSIGNAL) through `podman stop`, under redirect load; the load's counts and the stop's duration. */
async function stopUnderLoad(c: Started, alias: string): Promise<{ answered: number; failed: number; other: number; stopMs: number }> {
  const load = redirectLoad(`${c.base}/${alias}`, 8);
  // Enough answered before the signal that the drain has clicks in its buffers and requests in flight.
  await new Promise((r) => setTimeout(r, 2_000));
  const t0 = Date.now();
  await podman(["stop", "--time", String(GRACE_S), c.name], { timeoutMs: (GRACE_S + 30) * 1000 });
  const stopMs = Date.now() - t0;
  load.stop();
  const counts = await load.done;
  const state = (await podman(["inspect", "--format", "{{.State.ExitCode}} {{.State.OOMKilled}}", c.name])).stdout.trim();
  // 0: snip's own clean exit; 137 would be the SIGKILL after the grace period, 1 its shutdown timer.
  expect(state).toBe("0 false");
  expect(stopMs).toBeLessThan(GRACE_S * 1000);
  return { ...counts, stopMs };
}

/** Every answered 302 stored, and none beyond those a broken connection may have been sent. */
function expectAllStored(stored: number, before: number, load: { answered: number; failed: number }): void {
  expect(load.answered).toBeGreaterThan(100);
  expect(stored - before).toBeGreaterThanOrEqual(load.answered);
  expect(stored - before).toBeLessThanOrEqual(load.answered + load.failed);
}

/** The link's click rows and click_count, read from the volume by the image's own Node and SQLite driver. */
async function sqliteClicks(vol: string, alias: string): Promise<{ rows: number; clickCount: number }> {
  const query = "SELECT (SELECT count(*) FROM clicks c WHERE c.link_num = l.num) AS rows, l.click_count AS clickCount FROM links l WHERE l.alias = ?";
  const script =
    "const D = require('/app/node_modules/better-sqlite3'); const db = new D('/data/snip.db', { readonly: true, fileMustExist: true });" +
    "process.stdout.write(JSON.stringify(db.prepare(process.argv[1]).get(process.argv[2])));";
  const out = await podman(["run", "--rm", ...RUN_FLAGS, "-v", `${vol}:/data`, "--entrypoint", "node", IMAGE, "-e", script, query, alias]);
  const row = JSON.parse(out.stdout) as { rows: number; clickCount: number };
  return { rows: Number(row.rows), clickCount: Number(row.clickCount) };
}

beforeAll(async () => {
  const size = Number((await podman(["image", "inspect", "--format", "{{.Size}}", IMAGE])).stdout.trim());
  figures["image size (MB)"] = Math.round(size / 1e6);
});

afterAll(async () => {
  for (const c of created.containers) await podman(["rm", "-f", "-t", "0", c], { allowFail: true });
  for (const v of created.volumes) await podman(["volume", "rm", "-f", v], { allowFail: true });
  for (const d of created.databases) await run("psql", [PG_ADMIN, "-qc", `DROP DATABASE IF EXISTS ${d} WITH (FORCE)`], { allowFail: true });
  process.stdout.write(`\ncontainer figures: ${JSON.stringify(figures)}\n`);
});

describe("the image", () => {
  it("runs as the node user, with a health check, a stop signal, and no compiler or CA bundle of the build", async () => {
    const [image] = JSON.parse((await podman(["image", "inspect", IMAGE])).stdout) as {
      Config: { User: string; StopSignal: string; ExposedPorts: Record<string, unknown>; Volumes: Record<string, unknown>; Env: string[] };
      /** Kept by podman only with --format docker (OCI's image format has no health check). */
      Healthcheck?: { Test: string[] };
    }[];
    const cfg = image?.Config;
    if (!cfg) throw new Error(`podman image inspect ${IMAGE}: no image`);
    expect(cfg.User).toBe("node");
    expect(image.Healthcheck?.Test.join(" ")).toContain("/readyz");
    expect(cfg.StopSignal).toBe("SIGTERM");
    expect(Object.keys(cfg.ExposedPorts)).toEqual(["8080/tcp"]);
    expect(Object.keys(cfg.Volumes)).toEqual(["/data"]);
    expect(cfg.Env.join("\n")).not.toContain("NODE_EXTRA_CA_CERTS");
    // Neither the compiler nor the CA bundle handed to the build stage reached the runtime stage.
    const probe = await podman(
      [
        "run",
        "--rm",
        ...RUN_FLAGS,
        "--entrypoint",
        "sh",
        IMAGE,
        "-c",
        "command -v gcc g++ cc make python3; ls /run/secrets /etc/ssl/certs/ca-certificates.crt 2>&1; id -u",
      ],
      { allowFail: true },
    );
    expect(probe.stdout).not.toMatch(/\/(gcc|g\+\+|cc|make|python3)\n/);
    expect(probe.stdout).toMatch(/cannot access '\/run\/secrets'/);
    expect(probe.stdout).toMatch(/cannot access '\/etc\/ssl\/certs\/ca-certificates.crt'/);
    expect(probe.stdout.trim().split("\n").at(-1)).toBe("1000");
  });

  it("refuses a secret given both as SESSION_SECRET and SESSION_SECRET_FILE, in one clear line", async () => {
    const dir = secretDir();
    const file = secretFile(dir, "session_secret", "f".repeat(48));
    const res = await podman(
      [
        "run",
        "--rm",
        ...RUN_FLAGS,
        "--read-only",
        "-e",
        `SESSION_SECRET=${"e".repeat(48)}`,
        "-e",
        "SESSION_SECRET_FILE=/run/secrets/session_secret",
        "-v",
        `${file}:/run/secrets/session_secret:ro`,
        IMAGE,
      ],
      { allowFail: true },
    );
    expect(res.code).toBe(1);
    // podman's own lines (it cannot reach systemd here to schedule the health check) are not the container's.
    const containerStderr = res.stderr.split("\n").filter((line) => line && !line.startsWith("time="));
    expect(containerStderr).toEqual(["snip: configuration error: SESSION_SECRET: set both SESSION_SECRET and SESSION_SECRET_FILE; give only one"]);
  });
});

describe("on SQLite in the /data volume", () => {
  let vol: string;
  let c: Started;
  const alias = "ct-sqlite";

  beforeAll(async () => {
    vol = await volume("sqlite");
    c = await start("sqlite", vol, { DRAIN_DELAY_MS: "1000" });
    figures["start to /readyz, first start (ms)"] = c.readyMs;
  });

  it("answers /readyz as the non-root user, PID 1 node, on a read-only root; its health check passes", async () => {
    const status = (await podman(["exec", c.name, "sh", "-c", "grep -E '^(Uid|Gid):' /proc/1/status; tr '\\0' ' ' < /proc/1/cmdline"])).stdout;
    expect(status).toMatch(/^Uid:\s+1000\s+1000\s+1000\s+1000$/m);
    expect(status).toMatch(/^node .*snip(\.js)? serve/m);
    const ro = await podman(["exec", c.name, "sh", "-c", "touch /app/x 2>&1; touch /data/.w && rm /data/.w && echo data-writable"], { allowFail: true });
    expect(ro.stdout).toMatch(/Read-only file system/);
    expect(ro.stdout).toMatch(/data-writable/);
    expect((await podman(["healthcheck", "run", c.name], { allowFail: true })).code).toBe(0);
  });

  it("makes a user and a link with the CLI inside the container; the redirect is answered from outside", async () => {
    await userAndLink(c.name, "owner@example.com", alias);
    expect(await redirect(`${c.base}/${alias}`)).toEqual({ status: 302, location: `https://example.com/landing/${alias}` });
  });

  it("drains on SIGTERM under redirect load within the grace period, every answered click stored", async () => {
    const load = await stopUnderLoad(c, alias);
    figures["SQLite: 302s answered under load"] = load.answered;
    figures["SQLite: SIGTERM to exit (ms)"] = load.stopMs;
    const stored = await sqliteClicks(vol, alias);
    figures["SQLite: clicks stored of the load (failed requests)"] = `${stored.rows - 1} (${load.failed})`;
    expectAllStored(stored.rows, 1, load);
    expect(stored.clickCount).toBe(stored.rows);
  });

  it("keeps its links and clicks in the volume across a stop and a start", async () => {
    const before = await sqliteClicks(vol, alias);
    const t0 = Date.now();
    await podman(["start", c.name]);
    figures["start to /readyz, restart (ms)"] = await waitReady(c.name, c.port).then(() => Date.now() - t0);
    expect(await redirect(`${c.base}/${alias}`)).toEqual({ status: 302, location: `https://example.com/landing/${alias}` });
    // docs/docker.md's upgrade and backup steps, inside the running container.
    expect(await snipExec(c.name, ["migrate", "--dry-run"])).toBe("schema is up to date\n");
    expect(await snipExec(c.name, ["backup", "/data/backup.db"])).toMatch(/^\/data\/backup\.db: 1 links, \d+ clicks/);
    await podman(["stop", "--time", String(GRACE_S), c.name]);
    expect((await sqliteClicks(vol, alias)).rows).toBe(before.rows + 1);
  });

  it("works with the session secret given only as SESSION_SECRET_FILE (none generated into /data)", async () => {
    const dir = secretDir();
    const file = secretFile(dir, "session_secret", `${"s".repeat(48)}\n`);
    const fresh = await volume("secret-file");
    const s = await start("secret-file", fresh, { SESSION_SECRET_FILE: "/run/secrets/session_secret" }, ["-v", `${file}:/run/secrets/session_secret:ro`]);
    // Without SESSION_SECRET snip would have generated DATA_DIR/secret: its absence shows the file's value was used.
    const files = (await podman(["exec", s.name, "ls", "-A", "/data"])).stdout.split("\n");
    expect(files).toContain("snip.db");
    expect(files).not.toContain("secret");
  });
});

describe("on PostgreSQL on the host (--network=host)", () => {
  const db = `snip_ct_${process.pid}`;
  const alias = "ct-pg";
  let c: Started;

  const pgUrl = () => {
    const u = new URL(PG_ADMIN);
    u.pathname = `/${db}`;
    return u.href;
  };
  const psql = async (query: string) => (await run("psql", [pgUrl(), "-Atc", query])).stdout.trim();

  beforeAll(async () => {
    await run("psql", [PG_ADMIN, "-qc", `CREATE DATABASE ${db}`]);
    created.databases.push(db);
    // DATABASE_URL as a file too: the URL holds the database password where one is set.
    const file = secretFile(secretDir(), "database_url", `${pgUrl()}\n`);
    c = await start("pg", await volume("pg"), { DATABASE_URL_FILE: "/run/secrets/database_url", DRAIN_DELAY_MS: "1000" }, [
      "-v",
      `${file}:/run/secrets/database_url:ro`,
    ]);
    figures["start to /readyz on PostgreSQL, fresh database (ms)"] = c.readyMs;
  });

  it("migrates the database at start and answers redirects of a link made with the CLI", async () => {
    expect(Number(await psql("SELECT count(*) FROM links"))).toBe(0);
    await userAndLink(c.name, "pg-owner@example.com", alias);
    expect(await redirect(`${c.base}/${alias}`)).toEqual({ status: 302, location: `https://example.com/landing/${alias}` });
  });

  it("drains on SIGTERM under redirect load, every answered click in PostgreSQL", async () => {
    const load = await stopUnderLoad(c, alias);
    figures["PostgreSQL: 302s answered under load"] = load.answered;
    figures["PostgreSQL: SIGTERM to exit (ms)"] = load.stopMs;
    const rows = Number(await psql(`SELECT count(*) FROM clicks c JOIN links l ON l.num = c.link_num WHERE l.alias = '${alias}'`));
    figures["PostgreSQL: clicks stored of the load (failed requests)"] = `${rows - 1} (${load.failed})`;
    expectAllStored(rows, 1, load);
    expect(Number(await psql(`SELECT click_count FROM links WHERE alias = '${alias}'`))).toBe(rows);
  });
});
