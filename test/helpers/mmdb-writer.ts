// A minimal MaxMind DB (.mmdb) writer for tests, after the MaxMind DB format spec 2.0: a binary search
// tree with 24-bit records, a 16-byte separator, the data section, then the metadata after its marker.
import { isIPv4 } from "node:net";

type Value = string | number | boolean | Value[] | { [k: string]: Value };

export interface MmdbNetwork {
  /** "203.0.113.0/24" (IPv4) or "2001:db8::/32" (IPv6, ip_version 6 only). */
  cidr: string;
  data: { [k: string]: Value };
}

export interface MmdbOptions {
  ipVersion?: 4 | 6;
  databaseType?: string;
  buildEpoch?: number;
}

const METADATA_MARKER = Buffer.concat([Buffer.from([0xab, 0xcd, 0xef]), Buffer.from("MaxMind.com")]);

/** Control byte(s) for a type and payload size, extended types (>7) included. */
function control(type: number, size: number): Buffer {
  const head: number[] = [];
  let sizeBits: number;
  let extra: number[] = [];
  if (size < 29) sizeBits = size;
  else if (size < 285) [sizeBits, extra] = [29, [size - 29]];
  else if (size < 65_821) [sizeBits, extra] = [30, [(size - 285) >> 8, (size - 285) & 0xff]];
  else [sizeBits, extra] = [31, [((size - 65_821) >> 16) & 0xff, ((size - 65_821) >> 8) & 0xff, (size - 65_821) & 0xff]];
  if (type <= 7) head.push((type << 5) | sizeBits);
  else head.push(sizeBits, type - 7);
  return Buffer.from([...head, ...extra]);
}

function uint(type: number, n: number | bigint): Buffer {
  const bytes: number[] = [];
  let v = BigInt(n);
  while (v > 0n) {
    bytes.unshift(Number(v & 0xffn));
    v >>= 8n;
  }
  return Buffer.concat([control(type, bytes.length), Buffer.from(bytes)]);
}

/** Encodes a value in the data-section format (strings, maps, arrays, booleans, unsigned ints). */
export function encodeValue(v: Value, intType: "uint16" | "uint32" | "uint64" = "uint32"): Buffer {
  if (typeof v === "string") {
    const b = Buffer.from(v, "utf8");
    return Buffer.concat([control(2, b.length), b]);
  }
  if (typeof v === "boolean") return control(14, v ? 1 : 0);
  if (typeof v === "number") {
    if (!Number.isInteger(v) || v < 0) throw new Error("only unsigned integers are supported");
    return uint(intType === "uint16" ? 5 : intType === "uint64" ? 9 : 6, v);
  }
  if (Array.isArray(v)) return Buffer.concat([control(11, v.length), ...v.map((x) => encodeValue(x))]);
  const entries = Object.entries(v);
  return Buffer.concat([control(7, entries.length), ...entries.flatMap(([k, x]) => [encodeValue(k), encodeValue(x)])]);
}

/** The network's address as bits, in the tree's address space (IPv4 sits at ::a.b.c.d in an IPv6 tree). */
function prefixBits(cidr: string, ipVersion: 4 | 6): number[] {
  const [addr, lenText] = cidr.split("/") as [string, string | undefined];
  let bytes: number[];
  let len = Number(lenText ?? (isIPv4(addr) ? 32 : 128));
  if (isIPv4(addr)) {
    bytes = addr.split(".").map(Number);
    if (ipVersion === 6) {
      bytes = [...new Array<number>(12).fill(0), ...bytes];
      len += 96;
    }
  } else {
    if (ipVersion === 4) throw new Error("IPv6 network in an IPv4 database");
    const [head, tail] = addr.split("::") as [string, string | undefined];
    const h = head ? head.split(":") : [];
    const t = tail ? tail.split(":") : [];
    const groups = [...h, ...new Array<string>(8 - h.length - t.length).fill("0"), ...t].map((g) => parseInt(g || "0", 16));
    bytes = groups.flatMap((g) => [g >> 8, g & 0xff]);
  }
  const bits: number[] = [];
  for (let i = 0; i < len; i++) bits.push(((bytes[i >> 3] as number) >> (7 - (i & 7))) & 1);
  return bits;
}

interface TreeNode {
  children: [TreeNode | number | null, TreeNode | number | null]; // node, data offset, or empty
  index: number;
}

/** Builds a whole .mmdb file (record size 24) holding the given networks. */
export function buildMmdb(networks: MmdbNetwork[], opts: MmdbOptions = {}): Buffer {
  const ipVersion = opts.ipVersion ?? 6;
  const root: TreeNode = { children: [null, null], index: 0 };
  const dataParts: Buffer[] = [];
  let dataSize = 0;
  for (const net of networks) {
    const encoded = encodeValue(net.data);
    const offset = dataSize;
    dataParts.push(encoded);
    dataSize += encoded.length;
    const bits = prefixBits(net.cidr, ipVersion);
    let node = root;
    for (let i = 0; i < bits.length - 1; i++) {
      const b = bits[i] as 0 | 1;
      let next = node.children[b];
      if (typeof next !== "object" || next === null) {
        next = { children: [null, null], index: 0 };
        node.children[b] = next;
      }
      node = next;
    }
    node.children[bits[bits.length - 1] as 0 | 1] = offset;
  }

  // Number the nodes breadth first; the root is node 0.
  const nodes: TreeNode[] = [];
  const queue: TreeNode[] = [root];
  while (queue.length) {
    const n = queue.shift() as TreeNode;
    n.index = nodes.length;
    nodes.push(n);
    for (const c of n.children) if (c !== null && typeof c === "object") queue.push(c);
  }
  const nodeCount = nodes.length;
  const record = (c: TreeNode | number | null): number => (c === null ? nodeCount : typeof c === "number" ? nodeCount + 16 + c : c.index);
  const tree = Buffer.alloc(nodeCount * 6);
  nodes.forEach((n, i) => {
    tree.writeUIntBE(record(n.children[0]), i * 6, 3);
    tree.writeUIntBE(record(n.children[1]), i * 6 + 3, 3);
  });

  const metadata = Buffer.concat([
    control(7, 9),
    encodeValue("node_count"),
    encodeValue(nodeCount, "uint32"),
    encodeValue("record_size"),
    encodeValue(24, "uint16"),
    encodeValue("ip_version"),
    encodeValue(ipVersion, "uint16"),
    encodeValue("database_type"),
    encodeValue(opts.databaseType ?? "GeoIP2-Country"),
    encodeValue("languages"),
    encodeValue(["en"]),
    encodeValue("binary_format_major_version"),
    encodeValue(2, "uint16"),
    encodeValue("binary_format_minor_version"),
    encodeValue(0, "uint16"),
    encodeValue("build_epoch"),
    encodeValue(opts.buildEpoch ?? 1_780_000_000, "uint64"),
    encodeValue("description"),
    encodeValue({ en: "snip test database" }),
  ]);
  return Buffer.concat([tree, Buffer.alloc(16), ...dataParts, METADATA_MARKER, metadata]);
}
