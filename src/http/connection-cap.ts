// The per-address connection cap: one client address (an IPv6 /64, which one subscriber holds whole)
// may hold at most `max` open connections; more are closed as they are accepted, before a byte is read,
// so a flood of slow sockets from one place cannot hold the server's connections.
import { isIPv6 } from "node:net";
import type { Server } from "node:http";
import type { Socket } from "node:net";
import type { Trust } from "./proxy.js";

/** Refusals are logged at most this often (a flood would otherwise write a line per socket). */
const LOG_EVERY_MS = 60_000;

interface Log {
  warn(obj: object, msg: string): void;
}

/** The address a connection counts against: IPv4 as it is, IPv6 by its first 64 bits. */
export function addressKey(address: string): string {
  if (address.startsWith("::ffff:") && address.includes(".")) return address.slice(7);
  if (!isIPv6(address)) return address;
  const [head = "", tail] = address.split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === undefined || tail === "" ? [] : tail.split(":");
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right];
  return (
    groups
      .slice(0, 4)
      .map((g) => (g.replace(/^0+/, "") || "0").toLowerCase())
      .join(":") + "::/64"
  );
}

export interface ConnectionCap {
  /** Open connections per address, counted now (for tests and the soak bench). */
  readonly open: ReadonlyMap<string, number>;
  /** Connections closed at accept because their address held `max` already. */
  readonly refused: number;
}

/**
 * Caps open connections per client address on `server`. Connections from trusted proxies are not
 * capped: behind a proxy every client shares its address, and the proxy holds the clients' sockets.
 */
export function capConnections(server: Server, max: number, trust: Trust | null, log: Log): ConnectionCap {
  const open = new Map<string, number>();
  const cap = { open, refused: 0 };
  if (max <= 0) return cap;
  let loggedAt = -Infinity;
  let unlogged = 0;
  server.on("connection", (socket: Socket) => {
    const address = socket.remoteAddress;
    if (address === undefined || (trust !== null && trust(address, 0))) return;
    const key = addressKey(address);
    const n = open.get(key) ?? 0;
    if (n >= max) {
      cap.refused++;
      unlogged++;
      socket.destroy();
      const now = Date.now();
      if (now - loggedAt >= LOG_EVERY_MS) {
        log.warn({ address: key, refused: unlogged, max }, "connections refused: too many open from one address (CONNECTIONS_PER_ADDRESS)");
        loggedAt = now;
        unlogged = 0;
      }
      return;
    }
    open.set(key, n + 1);
    socket.once("close", () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left === 0) open.delete(key);
      else open.set(key, left);
    });
  });
  return cap;
}
