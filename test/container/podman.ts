// The container tests' helpers: podman as CI runs it here, waiting for /readyz, a redirect load from the host.
import { execFile } from "node:child_process";
import { Agent, request } from "undici";

export const IMAGE = process.env.SNIP_IMAGE ?? "snip:ci";

/**
 * runc: crun refuses this machine's hybrid cgroups. Host networking: the tests reach the container and the
 * container reaches the host's PostgreSQL on 127.0.0.1. The limits: podman's defaults exceed the machine's
 * hard limits, which a container may not raise.
 */
export const RUN_FLAGS = ["--network=host", "--ulimit", "nofile=16384:16384", "--ulimit", "nproc=4096:4096"];

export interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `podman --runtime runc ...args`; throws with podman's stderr unless allowFail. */
export function podman(args: string[], opts: { allowFail?: boolean; timeoutMs?: number } = {}): Promise<Result> {
  return run("podman", ["--runtime", "runc", ...args], opts);
}

export function run(cmd: string, args: string[], opts: { allowFail?: boolean; timeoutMs?: number } = {}): Promise<Result> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { timeout: opts.timeoutMs ?? 120_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
      if (code !== 0 && !opts.allowFail) reject(new Error(`${cmd} ${args.join(" ")} exited ${code}: ${stderr.trim() || stdout.trim()}`));
      else resolve({ code, stdout, stderr });
    });
  });
}

/** Milliseconds until GET /readyz answers 200; throws with the container's log after timeoutMs. */
export async function waitReady(name: string, port: number, timeoutMs = 60_000): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2_000) });
      await res.arrayBuffer();
      if (res.status === 200) return Date.now() - started;
    } catch {
      // Not listening yet.
    }
    const state = (await podman(["inspect", "--format", "{{.State.Status}}", name], { allowFail: true })).stdout.trim();
    if (state === "exited") break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const logs = await podman(["logs", name], { allowFail: true });
  throw new Error(`${name} not ready on ${port} after ${Date.now() - started} ms:\n${logs.stdout}${logs.stderr}`);
}

export const BROWSER_UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36";

/** One redirect from the host, as a browser asks for it; the status and Location. */
export async function redirect(url: string): Promise<{ status: number; location: string | undefined }> {
  const res = await request(url, { headers: { "user-agent": BROWSER_UA } });
  await res.body.dump();
  const location = res.headers.location;
  return { status: res.statusCode, location: Array.isArray(location) ? location[0] : location };
}

export interface Load {
  /** Resolves once every worker stopped: the 302s answered and the requests that failed (refused, reset). */
  done: Promise<{ answered: number; other: number; failed: number }>;
  stop(): void;
}

/**
 * Redirects from `concurrency` workers on keep-alive connections until stop(), or until the server refuses:
 * each worker ends at its first failed request (the server closed), so none retries into a restarted one.
 * Only 127.0.0.1.
 */
export function redirectLoad(url: string, concurrency: number): Load {
  if (new URL(url).hostname !== "127.0.0.1") throw new Error("the load goes to 127.0.0.1 only");
  const agent = new Agent({ connections: concurrency, pipelining: 1 });
  let stopped = false;
  let answered = 0;
  let other = 0;
  let failed = 0;
  const worker = async () => {
    while (!stopped) {
      try {
        const res = await request(url, { dispatcher: agent, headers: { "user-agent": BROWSER_UA }, headersTimeout: 20_000, bodyTimeout: 20_000 });
        await res.body.dump();
        if (res.statusCode === 302) answered++;
        else other++;
      } catch {
        failed++;
        return;
      }
    }
  };
  const done = Promise.all(Array.from({ length: concurrency }, worker)).then(async () => {
    await agent.close().catch(() => undefined);
    return { answered, other, failed };
  });
  return {
    done,
    stop() {
      stopped = true;
    },
  };
}
