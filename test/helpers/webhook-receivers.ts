// Real parts for webhook tests: a throwaway certificate authority (openssl), HTTPS receivers on loopback
// that record what arrives, and a loopback DNS server (dns2) whose answers a test controls.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rootCertificates } from "node:tls";
import dns2 from "dns2";

export interface TestCa {
  dir: string;
  /** PEM file of the CA (what NODE_EXTRA_CA_CERTS names). */
  caFile: string;
  caPem: string;
  /** A leaf certificate for localhost, *.test and the loopback addresses, signed by the CA. */
  key: string;
  cert: string;
  /** Node's bundled roots plus the CA: what an in-process server gets as its webhook CA list. */
  trust: string[];
}

/** A CA and a server certificate made by openssl for this test run (EC keys: fast). */
export function makeTestCa(): TestCa {
  const dir = mkdtempSync(join(tmpdir(), "snip-ca-"));
  const run = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  run(
    "req",
    "-x509",
    ...ec,
    "-keyout",
    "ca.key",
    "-out",
    "ca.crt",
    "-days",
    "2",
    "-subj",
    "/CN=snip test CA",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  );
  run("req", ...ec, "-keyout", "leaf.key", "-out", "leaf.csr", "-subj", "/CN=hook.test");
  writeFileSync(
    join(dir, "leaf.ext"),
    "subjectAltName=DNS:localhost,DNS:hook.test,DNS:*.hook.test,DNS:rebind.test,DNS:private.test,DNS:public.test,IP:127.0.0.1,IP:127.0.0.2,IP:::1\nextendedKeyUsage=serverAuth\n",
  );
  run("x509", "-req", "-in", "leaf.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-out", "leaf.crt", "-days", "2", "-extfile", "leaf.ext");
  const caPem = readFileSync(join(dir, "ca.crt"), "utf8");
  return {
    dir,
    caFile: join(dir, "ca.crt"),
    caPem,
    key: readFileSync(join(dir, "leaf.key"), "utf8"),
    cert: readFileSync(join(dir, "leaf.crt"), "utf8"),
    trust: [...rootCertificates, caPem],
  };
}

export interface Received {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
  at: number;
}

export interface Receiver {
  port: number;
  /** https://<host>:<port>/<path> */
  url(path?: string, host?: string): string;
  requests: Received[];
  /** Resolves when `n` requests have arrived. */
  waitFor(n: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export type ReceiverHandler = (req: Received, res: ServerResponse) => void;

/** An HTTPS receiver on loopback; by default it answers 204 at once. */
export async function startReceiver(ca: TestCa, handler?: ReceiverHandler, opts: { host?: string; port?: number } = {}): Promise<Receiver> {
  const requests: Received[] = [];
  const waiters = new Set<() => void>();
  const server = createServer({ key: ca.key, cert: ca.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const r: Received = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() };
      requests.push(r);
      for (const w of [...waiters]) w();
      if (handler) handler(r, res);
      else res.writeHead(204).end();
    });
  });
  const host = opts.host ?? "127.0.0.1";
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (path = "/hook", h = host) => `https://${h.includes(":") ? `[${h}]` : h}:${port}${path}`,
    requests,
    waitFor(n, timeoutMs = 5_000) {
      // Woken by each arrival; the timer only bounds a broken build.
      return new Promise((resolve, reject) => {
        const check = () => {
          if (requests.length < n) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(requests);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`expected ${n} requests, got ${requests.length}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export interface TestDns {
  /** "127.0.0.1:<port>" for DNS_SERVERS. */
  server: string;
  /** Names asked, in order ("name A" / "name AAAA"). */
  queries: string[];
  close(): Promise<void>;
}

/** A loopback DNS server: `answer(name, n)` gives the A records for the n-th A query of name (1-based). */
export async function startDns(answer: (name: string, n: number) => string[]): Promise<TestDns> {
  const queries: string[] = [];
  const counts = new Map<string, number>();
  const { Packet } = dns2;
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const q = request.questions[0];
      if (q) {
        const name = q.name.toLowerCase();
        const type = q.type === Packet.TYPE.AAAA ? "AAAA" : q.type === Packet.TYPE.A ? "A" : String(q.type);
        queries.push(`${name} ${type}`);
        if (type === "A") {
          const n = (counts.get(name) ?? 0) + 1;
          counts.set(name, n);
          for (const address of answer(name, n)) response.answers.push({ name: q.name, type: Packet.TYPE.A, class: Packet.CLASS.IN, ttl: 1, address } as never);
        }
      }
      void send(response);
    },
  });
  const addrs = await server.listen({ udp: { port: 0, address: "127.0.0.1" } });
  const port = (addrs.udp as AddressInfo).port;
  return { server: `127.0.0.1:${port}`, queries, close: () => server.close() };
}
