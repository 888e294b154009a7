// Visitor keys, the days a batch spans, the writer's memory of keys, and the QR marker taken off a query.
import { describe, expect, it } from "vitest";
import { SeenVisitors, batchSpan, keptSince, visitorKey } from "../../src/clicks/visitors.js";
import { batchOf } from "../../src/clicks/click-buffer.js";
import { takeQrMarker, qrTarget } from "../../src/redirect/qr-marker.js";

const click = (at: number) => ({
  linkId: "a",
  linkNum: 1,
  at,
  userAgent: "ua",
  referer: "",
  ip: "203.0.113.1",
  country: null,
  counted: false,
  destination: null,
});

describe("visitor keys", () => {
  it("are 48-bit integers that change with the salt, the link, the address and the agent", () => {
    const k = visitorKey("salt-1", 7, "203.0.113.1", "Firefox");
    expect(Number.isSafeInteger(k) && k >= 0 && k < 2 ** 48).toBe(true);
    expect(visitorKey("salt-1", 7, "203.0.113.1", "Firefox")).toBe(k);
    const others = [
      visitorKey("salt-2", 7, "203.0.113.1", "Firefox"),
      visitorKey("salt-1", 8, "203.0.113.1", "Firefox"),
      visitorKey("salt-1", 7, "203.0.113.2", "Firefox"),
      visitorKey("salt-1", 7, "203.0.113.1", "Chrome"),
    ];
    expect(new Set([k, ...others]).size).toBe(5);
  });

  it("a batch spans the UTC days of its first and last click; salts are kept from yesterday on", () => {
    const late = Date.UTC(2026, 10, 21, 23, 59, 59, 500);
    expect(batchSpan(batchOf([click(late), click(late - 1000)]))).toEqual({ days: ["2026-11-21"], latest: late });
    expect(batchSpan(batchOf([click(late + 1000), click(late)]))).toEqual({ days: ["2026-11-21", "2026-11-22"], latest: late + 1000 });
    expect(batchSpan(batchOf([]))).toEqual({ days: [], latest: 0 });
    expect(keptSince(Date.UTC(2026, 10, 22, 0, 0, 1))).toBe("2026-11-21");
  });

  it("remembers written keys per day, the two latest days, within its bound", () => {
    const seen = new SeenVisitors();
    seen.addAll([
      ["2026-11-20", 1],
      ["2026-11-21", 2],
    ]);
    expect([seen.has("2026-11-20", 1), seen.has("2026-11-21", 2), seen.has("2026-11-21", 1)]).toEqual([true, true, false]);
    seen.addAll([["2026-11-22", 3]]);
    expect([seen.has("2026-11-20", 1), seen.has("2026-11-21", 2), seen.has("2026-11-22", 3)]).toEqual([false, true, true]);
  });
});

describe("the QR marker", () => {
  it("is taken off the query only as the exact parameter qr=1", () => {
    expect(takeQrMarker("")).toEqual({ query: "", qr: false });
    expect(takeQrMarker("qr=1")).toEqual({ query: "", qr: true });
    expect(takeQrMarker("utm_source=x&qr=1&b=2")).toEqual({ query: "utm_source=x&b=2", qr: true });
    for (const q of ["qr=10", "qr=2", "xqr=1", "qr", "a=qr=1"]) expect(takeQrMarker(q), q).toEqual({ query: q, qr: false });
    expect(qrTarget("https://s.example/abc")).toBe("https://s.example/abc?qr=1");
  });
});
