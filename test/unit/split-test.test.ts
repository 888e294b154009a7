// src/conversions/split-test.ts against values computed by hand (and checked with Python's statistics module).
import { describe, expect, it } from "vitest";
import { type VariantCounts, Z95, clickRateZ, decideSplit, revenueZ, twoProportionZ, variantRate, wilsonInterval } from "../../src/conversions/split-test.js";

const variant = (clicks: number, leads: number, sales: number, amounts: number[] = [], weight = 50): VariantCounts => ({
  weight,
  clicks,
  leads,
  sales,
  revenue: { sum: amounts.reduce((s, a) => s + a, 0), sumSquares: amounts.reduce((s, a) => s + a * a, 0) },
});

describe("split statistics", () => {
  it("the pooled two-proportion z: 30/1000 against 50/1000 is -2.28218, and the sign follows the order", () => {
    // pooled p = 0.04, se = sqrt(0.04 * 0.96 * (1/1000 + 1/1000)) = 0.0087636, z = -0.02 / se
    expect(twoProportionZ(30, 1000, 50, 1000)).toBeCloseTo(-2.2821773229, 9);
    expect(twoProportionZ(50, 1000, 30, 1000)).toBeCloseTo(2.2821773229, 9);
    expect(twoProportionZ(12, 400, 22, 420)).toBeCloseTo(-1.6069020275, 9);
    expect(twoProportionZ(0, 100, 0, 100)).toBeNull();
    expect(twoProportionZ(1, 0, 1, 10)).toBeNull();
  });

  it("Wilson's interval of 10/100 is [0.05523, 0.17437] and stays within [0, 1] at the edges", () => {
    const i = wilsonInterval(10, 100)!;
    expect(i.low).toBeCloseTo(0.055229, 5);
    expect(i.high).toBeCloseTo(0.174367, 5);
    const zero = wilsonInterval(0, 20)!;
    expect(zero.low).toBe(0);
    expect(zero.high).toBeCloseTo(0.161125, 5);
    expect(wilsonInterval(20, 20)!.high).toBe(1);
    expect(wilsonInterval(0, 0)).toBeNull();
  });

  it("clicks per unit of weight: 60 against 40 clicks at equal weights is z = 2; at 60/40 weights it is 0", () => {
    expect(clickRateZ(60, 50, 40, 50)).toBeCloseTo(2, 12);
    expect(clickRateZ(60, 60, 40, 40)).toBeCloseTo(0, 12);
    expect(clickRateZ(0, 50, 0, 50)).toBeNull();
  });

  it("revenue per click: Welch's statistic and the mean's interval", () => {
    const a = variant(4, 2, 2, [1000, 3000]);
    const b = variant(5, 1, 1, [500]);
    // a: mean 1000, variance 2,000,000; b: mean 100, variance 50,000; z = 900 / sqrt(500,000 + 10,000)
    expect(revenueZ(a, b)).toBeCloseTo(1.2602520756, 9);
    const r = variantRate("revenue", a, 9);
    expect(r.rate).toBe(1000);
    expect(r.interval!.low).toBe(0);
    expect(r.interval!.high).toBeCloseTo(2385.9038243, 6);
  });

  it("the rate of leads and sales per click, and of clicks as a share of the split", () => {
    expect(variantRate("leads", variant(200, 30, 5), 400)).toEqual({ rate: 0.15, interval: wilsonInterval(30, 200) });
    expect(variantRate("sales", variant(200, 30, 5), 400).rate).toBe(0.025);
    expect(variantRate("clicks", variant(100, 0, 0), 400).rate).toBe(0.25);
    expect(variantRate("leads", variant(0, 0, 0), 0)).toEqual({ rate: null, interval: null });
  });

  it("variant B wins at 95 % when it beats every other variant by at least the normal quantile", () => {
    const verdict = decideSplit("leads", [variant(1000, 30, 0), variant(1000, 50, 0)]);
    expect(verdict.winner).toBe(1);
    expect(verdict.z[0]).toBeCloseTo(2.2821773229, 9);
    expect(verdict.z[1]).toBeNull();
    expect(verdict.z[0]! >= Z95).toBe(true);
  });

  it("no clear winner when the best is short of 95 % against any one variant, or nothing can be compared", () => {
    expect(decideSplit("leads", [variant(400, 12, 0), variant(420, 22, 0)]).winner).toBeNull();
    // The best (C) beats A clearly but not B.
    expect(decideSplit("sales", [variant(1000, 0, 30), variant(1000, 0, 48), variant(1000, 0, 55)]).winner).toBeNull();
    expect(decideSplit("sales", [variant(0, 0, 0), variant(0, 0, 0)])).toEqual({ winner: null, z: [null, null] });
    expect(decideSplit("clicks", [variant(60, 0, 0), variant(40, 0, 0)]).winner).toBe(0);
    expect(decideSplit("clicks", [variant(55, 0, 0), variant(45, 0, 0)]).winner).toBeNull();
  });
});
