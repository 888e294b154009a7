// A threat feed's keys (feedKey's hosts or exact addresses) held outside the JavaScript heap: their UTF-8 bytes
// end to end in one buffer, each key's start in an offsets array, and an open-addressing hash table of key
// indexes. A million keys are three typed arrays, not a million strings, so the garbage collector never walks
// them (as a Set of strings it did, on every collection of the old generation) and a feed read on a worker
// thread moves here by transferring the arrays, not by copying a million strings into the main thread's heap.

/** A feed table's arrays, as a worker posts them (their buffers transferred). */
export interface FeedTableParts {
  bytes: Uint8Array;
  offsets: Uint32Array;
  slots: Uint32Array;
}

/** Keys up to this many bytes are encoded into a shared scratch buffer (longer ones get their own). */
const SCRATCH_BYTES = 8192;
const scratch = Buffer.allocUnsafeSlow(SCRATCH_BYTES);

/** FNV-1a over bytes [start, end). */
function hash(bytes: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ (bytes[i] as number), 0x01000193);
  return h >>> 0;
}

function encode(key: string): { buf: Buffer; length: number } {
  if (key.length * 3 > scratch.length) {
    const buf = Buffer.from(key, "utf8");
    return { buf, length: buf.length };
  }
  return { buf: scratch, length: scratch.write(key, 0, "utf8") };
}

export class FeedTable implements Iterable<string> {
  static readonly EMPTY = FeedTable.build([]);

  private readonly bytes: Buffer;
  private readonly mask: number;

  private constructor(private readonly parts_: FeedTableParts) {
    this.bytes = Buffer.from(parts_.bytes.buffer, parts_.bytes.byteOffset, parts_.bytes.byteLength);
    this.mask = parts_.slots.length - 1;
  }

  /** A table of the keys, each once. */
  static build(keys: Iterable<string>): FeedTable {
    const unique = keys instanceof Set ? (keys as Set<string>) : new Set(keys);
    let total = 0;
    for (const k of unique) total += Buffer.byteLength(k, "utf8");
    const bytes = Buffer.allocUnsafeSlow(total);
    const offsets = new Uint32Array(unique.size + 1);
    let at = 0;
    let i = 0;
    for (const k of unique) {
      offsets[i++] = at;
      at += bytes.write(k, at, "utf8");
    }
    offsets[i] = at;
    // At most half full: a miss ends after about two probes.
    let capacity = 16;
    while (capacity < unique.size * 2) capacity *= 2;
    const slots = new Uint32Array(capacity);
    const mask = capacity - 1;
    for (let n = 0; n < unique.size; n++) {
      let pos = hash(bytes, offsets[n] as number, offsets[n + 1] as number) & mask;
      while (slots[pos] !== 0) pos = (pos + 1) & mask;
      slots[pos] = n + 1;
    }
    return new FeedTable({ bytes, offsets, slots });
  }

  /** The table a worker built, from its transferred arrays. */
  static from(parts: FeedTableParts): FeedTable {
    const capacity = parts.slots.length;
    if (capacity === 0 || (capacity & (capacity - 1)) !== 0 || parts.offsets.length === 0) throw new Error("not a feed table");
    return new FeedTable(parts);
  }

  get size(): number {
    return this.parts_.offsets.length - 1;
  }

  /** The arrays, to post to another thread. */
  parts(): FeedTableParts {
    return this.parts_;
  }

  has(key: string): boolean {
    if (this.size === 0) return false;
    const { buf, length } = encode(key);
    const { offsets, slots } = this.parts_;
    for (let pos = hash(buf, 0, length) & this.mask; ; pos = (pos + 1) & this.mask) {
      const n = slots[pos] as number;
      if (n === 0) return false;
      const start = offsets[n - 1] as number;
      const end = offsets[n] as number;
      if (end - start === length && buf.compare(this.bytes, start, end, 0, length) === 0) return true;
    }
  }

  /** The same keys in the same order (a feed read again unchanged). */
  equals(other: FeedTable): boolean {
    const a = this.parts_.offsets;
    const b = other.parts_.offsets;
    if (a.length !== b.length || !this.bytes.equals(other.bytes)) return false;
    return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
  }

  *[Symbol.iterator](): Iterator<string> {
    const { offsets } = this.parts_;
    for (let n = 0; n < this.size; n++) yield this.bytes.toString("utf8", offsets[n], offsets[n + 1]);
  }
}
