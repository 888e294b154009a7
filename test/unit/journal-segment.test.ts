// The click journal's segment format (src/clicks/journal-segment.ts): a CLK5 append keeps a click's click id and its
// store visit, a CLK4 append of the release before store visits is read back with its click id and none, and a CLK3
// append of the release before click ids with every number it had and neither.
import { mkdtempSync, openSync, closeSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { appendClicks, readSegment } from "../../src/clicks/journal-segment.js";
import { ClickBatchBuilder, FIELD, WIDTH } from "../../src/clicks/click-buffer.js";

const dir = mkdtempSync(join(tmpdir(), "snip-segment-"));
const AT = Date.UTC(2026, 11, 5, 12);
const ID = "AZPw8HkLJq3v0Xb9yQ2mN8cL";

describe("journal segments", () => {
  it("keeps a tracked click's id and store visit in a CLK5 append, and none for a plain click", () => {
    const b = new ClickBatchBuilder();
    const base = { linkId: "L", linkNum: 7, userAgent: "UA", referer: "", ip: "127.0.0.1", country: null, counted: false, destination: null };
    b.push({ ...base, at: AT, clickId: ID, app: "store\tandroid" });
    b.push({ ...base, at: AT + 1 });
    const { strings, fields } = b.since(0, 0);
    const file = join(dir, "4.clk");
    const fd = openSync(file, "w");
    appendClicks(fd, 2, strings, fields);
    closeSync(fd);
    const seg = readSegment(file);
    expect([seg.length, seg.ignored, seg.fields.length]).toEqual([2, 0, 2 * WIDTH]);
    expect(seg.strings[seg.fields[FIELD.clickId] as number]).toBe(ID);
    expect(seg.strings[seg.fields[FIELD.app] as number]).toBe("store\tandroid");
    expect(seg.fields[WIDTH + FIELD.clickId]).toBe(-1);
    expect(seg.fields[WIDTH + FIELD.app]).toBe(-1);
    expect([...seg.fields]).toEqual([...fields]);
  });

  it("reads a CLK3 append (10 numbers: QR flag and UTM values last) with its values and no click id", () => {
    const strings = ["UA", "", "127.0.0.1", "rule:1", "utm_source=news"];
    const text = Buffer.from(JSON.stringify(strings));
    const head = Buffer.alloc(12);
    head.writeUInt32LE(0x334b4c43, 0);
    head.writeUInt32LE(1, 4);
    head.writeUInt32LE(text.length, 8);
    const f = new Float64Array([AT, 0, 1, 2, -1, 1, 7, 3, 1, 4]);
    const file = join(dir, "3.clk");
    writeFileSync(file, Buffer.concat([head, text, Buffer.from(f.buffer)]));
    const seg = readSegment(file);
    expect([seg.length, seg.ignored, seg.strings]).toEqual([1, 0, strings]);
    expect([...seg.fields]).toEqual([AT, 0, 1, 2, -1, 1, 7, 3, 1, 4, -1, -1]);
  });

  it("reads a CLK4 append (11 numbers: the click id last) with its click id and no store visit", () => {
    const strings = ["UA", "", "127.0.0.1", ID];
    const text = Buffer.from(JSON.stringify(strings));
    const head = Buffer.alloc(12);
    head.writeUInt32LE(0x344b4c43, 0);
    head.writeUInt32LE(1, 4);
    head.writeUInt32LE(text.length, 8);
    const f = new Float64Array([AT, 0, 1, 2, -1, 0, 7, -1, 0, -1, 3]);
    const file = join(dir, "4-old.clk");
    writeFileSync(file, Buffer.concat([head, text, Buffer.from(f.buffer)]));
    const seg = readSegment(file);
    expect([seg.length, seg.ignored, seg.strings]).toEqual([1, 0, strings]);
    expect([...seg.fields]).toEqual([AT, 0, 1, 2, -1, 0, 7, -1, 0, -1, 3, -1]);
  });
});
