// The click journal's segment files: how an append is laid out on disk and read back (click-journal.ts
// decides when to append, which segments to replay and when one goes).
import { readFileSync, writeSync, writevSync } from "node:fs";
import { FIELD, WIDTH } from "./click-buffer.js";

/** Each append: MAGIC, clicks, bytes of the new strings (a JSON array), then WIDTH float64 per click. */
const MAGIC = 0x354b4c43;
/**
 * Appends of earlier formats, replayed after an upgrade: FIELD's first 7 numbers (before destinations), 8 (before
 * the QR flag), 10 (CLK3, before click ids) or 11 (CLK4, before app visits); CLK5 has all 12 (a store visit's facts last).
 */
const OLDER_WIDTHS = new Map([
  [0x314b4c43, 7],
  [0x324b4c43, 8],
  [0x334b4c43, 10],
  [0x344b4c43, 11],
]);
const HEADER = 12;
const NO_STRINGS = Buffer.alloc(0);
/** Reused by every append (written synchronously). */
const header = Buffer.alloc(HEADER);
header.writeUInt32LE(MAGIC, 0);

/** The clicks of a segment as read back: its strings and WIDTH numbers per click. */
export interface SegmentClicks {
  strings: string[];
  fields: Float64Array;
  length: number;
}

/** Appends `count` clicks (their new strings and numbers) to the open segment `fd`; returns the bytes written. */
export function appendClicks(fd: number, count: number, strings: string[], fields: Float64Array): number {
  const text = strings.length === 0 ? NO_STRINGS : Buffer.from(JSON.stringify(strings));
  header.writeUInt32LE(count, 4);
  header.writeUInt32LE(text.length, 8);
  const parts = [header, text, Buffer.from(fields.buffer, fields.byteOffset, fields.byteLength)];
  writeAll(fd, parts);
  return HEADER + text.length + fields.byteLength;
}

/** Writes the buffers whole (a short write is continued). */
function writeAll(fd: number, parts: Buffer[]): void {
  const total = parts.reduce((n, p) => n + p.length, 0);
  const done = writevSync(fd, parts);
  if (done === total) return;
  const rest = Buffer.concat(parts).subarray(done);
  for (let at = 0; at < rest.length;) at += writeSync(fd, rest, at);
}

/** The clicks of a segment: its strings and WIDTH numbers per click, up to the first append that is torn or not valid. */
export function readSegment(file: string): SegmentClicks & { ignored: number } {
  const buf = readFileSync(file);
  const strings: string[] = [];
  const parts: Float64Array[] = [];
  let length = 0;
  let off = 0;
  while (off + HEADER <= buf.length && (buf.readUInt32LE(off) === MAGIC || OLDER_WIDTHS.has(buf.readUInt32LE(off)))) {
    // A journal left by an earlier version (replayed after an upgrade): its clicks went to the default destination, none from a QR code.
    const width = buf.readUInt32LE(off) === MAGIC ? WIDTH : (OLDER_WIDTHS.get(buf.readUInt32LE(off)) as number);
    const count = buf.readUInt32LE(off + 4);
    const textEnd = off + HEADER + buf.readUInt32LE(off + 8);
    const end = textEnd + count * width * 8;
    if (count === 0 || end > buf.length) break;
    let added: unknown = [];
    try {
      if (textEnd > off + HEADER) added = JSON.parse(buf.toString("utf8", off + HEADER, textEnd));
    } catch {
      break;
    }
    if (!Array.isArray(added) || !added.every((s) => typeof s === "string")) break;
    const f = widened(buf.subarray(textEnd, end), count, width);
    if (!validClicks(f, strings.length + added.length)) break;
    for (const s of added as string[]) strings.push(s);
    parts.push(f);
    length += count;
    off = end;
  }
  const fields = new Float64Array(length * WIDTH);
  let at = 0;
  for (const p of parts) {
    fields.set(p, at);
    at += p.length;
  }
  return { strings, fields, length, ignored: buf.length - off };
}

/** An append's numbers, WIDTH per click (an older append's clicks get the default destination where they have none, no QR flag, no UTM values, no click id and no app visit where they have none). */
function widened(bytes: Buffer, count: number, width: number): Float64Array {
  const f = new Float64Array(count * WIDTH);
  if (width === WIDTH) {
    Buffer.from(f.buffer).set(bytes);
    return f;
  }
  const narrow = new Float64Array(count * width);
  Buffer.from(narrow.buffer).set(bytes);
  for (let i = 0; i < count; i++) {
    f.set(narrow.subarray(i * width, (i + 1) * width), i * WIDTH);
    if (width <= FIELD.destination) f[i * WIDTH + FIELD.destination] = -1;
    if (width <= FIELD.qr) f[i * WIDTH + FIELD.qr] = 0;
    if (width <= FIELD.utm) f[i * WIDTH + FIELD.utm] = -1;
    if (width <= FIELD.clickId) f[i * WIDTH + FIELD.clickId] = -1;
    f[i * WIDTH + FIELD.app] = -1;
  }
  return f;
}

function validClicks(f: Float64Array, strings: number): boolean {
  const isString = (v: number) => Number.isInteger(v) && v >= 0 && v < strings;
  for (let o = 0; o < f.length; o += WIDTH) {
    const country = f[o + FIELD.country] as number;
    const counted = f[o + FIELD.counted] as number;
    const num = f[o + FIELD.linkNum] as number;
    if (!Number.isSafeInteger(f[o + FIELD.at]) || !isString(f[o + FIELD.userAgent] as number) || !isString(f[o + FIELD.referer] as number)) return false;
    if (!isString(f[o + FIELD.ip] as number) || (country !== -1 && !isString(country)) || (counted !== 0 && counted !== 1)) return false;
    const destination = f[o + FIELD.destination] as number;
    if (!Number.isSafeInteger(num) || num < 1 || (destination !== -1 && !isString(destination))) return false;
    if (f[o + FIELD.qr] !== 0 && f[o + FIELD.qr] !== 1) return false;
    const utm = f[o + FIELD.utm] as number;
    if (utm !== -1 && !isString(utm)) return false;
    const clickId = f[o + FIELD.clickId] as number;
    if (clickId !== -1 && !isString(clickId)) return false;
    const app = f[o + FIELD.app] as number;
    if (app !== -1 && !isString(app)) return false;
  }
  return true;
}
