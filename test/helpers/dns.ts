// A real DNS server on loopback (dns2, UDP) serving CNAME and TXT records the test controls, and a
// "server" that never answers (a bound UDP socket that reads and drops every query).
import { createSocket, type Socket } from "node:dgram";
import dns2 from "dns2";

const { Packet } = dns2;

interface Zone {
  cname?: string;
  txt?: string[][];
}

export interface Query {
  name: string;
  type: "CNAME" | "TXT" | "other";
}

export class TestDns {
  private readonly zones = new Map<string, Zone>();
  readonly queries: Query[] = [];

  private constructor(
    private readonly server: ReturnType<typeof dns2.createServer>,
    /** "127.0.0.1:port", for DNS_SERVERS. */
    readonly address: string,
  ) {}

  static async start(): Promise<TestDns> {
    let self: TestDns | null = null;
    const server = dns2.createServer({
      udp: true,
      handle: (request, send) => {
        const response = Packet.createResponseFromRequest(request);
        const q = request.questions[0];
        if (!q || !self) return send(response);
        const name = q.name.toLowerCase().replace(/\.$/, "");
        const type = q.type === Packet.TYPE.CNAME ? "CNAME" : q.type === Packet.TYPE.TXT ? "TXT" : "other";
        self.queries.push({ name, type });
        const zone = self.zones.get(name);
        if (!zone) {
          response.header.rcode = 3; // NXDOMAIN
          return send(response);
        }
        if (type === "CNAME" && zone.cname) {
          response.answers.push({ name: q.name, type: Packet.TYPE.CNAME, class: Packet.CLASS.IN, ttl: 60, domain: zone.cname } as never);
        }
        if (type === "TXT") {
          for (const chunks of zone.txt ?? [])
            response.answers.push({ name: q.name, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 60, data: chunks } as never);
        }
        send(response);
      },
    });
    const addresses = await server.listen({ udp: { port: 0, address: "127.0.0.1" } });
    const port = (addresses.udp as { port: number }).port;
    self = new TestDns(server, `127.0.0.1:${port}`);
    return self;
  }

  private zone(name: string): Zone {
    const key = name.toLowerCase();
    let z = this.zones.get(key);
    if (!z) this.zones.set(key, (z = {}));
    return z;
  }

  /** CNAME name -> target (null removes it). */
  cname(name: string, target: string | null): this {
    const z = this.zone(name);
    if (target === null) delete z.cname;
    else z.cname = target;
    return this;
  }

  /** TXT records at name, each one string or its character-strings (null removes them). */
  txt(name: string, values: (string | string[])[] | null): this {
    const z = this.zone(name);
    if (values === null) delete z.txt;
    else z.txt = values.map((v) => (Array.isArray(v) ? v : [v]));
    return this;
  }

  /** Both records of a domain object from the API, as its owner would create them. */
  serve(domain: { records: { type: string; name: string; value: string }[] }): this {
    for (const r of domain.records) {
      if (r.type === "CNAME") this.cname(r.name, r.value);
      else this.txt(r.name, [r.value]);
    }
    return this;
  }

  queriesFor(name: string, type: Query["type"]): number {
    return this.queries.filter((q) => q.name === name.toLowerCase() && q.type === type).length;
  }

  async close(): Promise<void> {
    await this.server.close();
  }
}

/** A UDP port that receives queries and never answers: lookups through it can only time out. */
export async function silentDns(): Promise<{ address: string; received: () => number; close(): Promise<void> }> {
  const socket: Socket = createSocket("udp4");
  let received = 0;
  socket.on("message", () => received++);
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    received: () => received,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

/** A UDP relay in front of a DNS server that can stop answering (reads and drops) and start again. */
export async function switchableDns(upstream: string): Promise<{ address: string; answering: boolean; close(): Promise<void> }> {
  const [host, port] = [upstream.slice(0, upstream.lastIndexOf(":")), Number(upstream.slice(upstream.lastIndexOf(":") + 1))];
  const socket: Socket = createSocket("udp4");
  const state = { answering: true };
  socket.on("message", (msg, from) => {
    if (!state.answering) return;
    const relay = createSocket("udp4");
    relay.on("message", (answer) => {
      socket.send(answer, from.port, from.address);
      relay.close();
    });
    relay.send(msg, port, host);
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    get answering() {
      return state.answering;
    },
    set answering(v: boolean) {
      state.answering = v;
    },
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
