// The statistics of a split that picks its winner (docs/conversions.md, Splits that pick their winner): each
// variant's rate with its 95 % confidence interval, and the tests that say whether one variant is better than
// every other with 95 % confidence. Pure functions of counts: no database, no clock.
import type { SplitGoal } from "../contract/targeting.js";

export type { SplitGoal };

/** The two-sided 95 % quantile of the standard normal distribution. */
export const Z95 = 1.959963984540054;

/** What one variant of a split did since the split began. */
export interface VariantCounts {
  /** The variant's weight in percent (1..99). */
  weight: number;
  clicks: number;
  leads: number;
  sales: number;
  /** Revenue per click as a sample: the sum and the sum of squares of the sales' amounts (minor units, one currency). */
  revenue: { sum: number; sumSquares: number };
}

export interface Interval {
  low: number;
  high: number;
}

export interface VariantRate {
  /** leads or sales per click, revenue per click (minor units), or for `clicks` the variant's share of the split's clicks. */
  rate: number | null;
  interval: Interval | null;
}

/**
 * Wilson's score interval of a proportion at 95 %: unlike the textbook p ± z·√(p(1-p)/n) it stays inside
 * [0, 1] and keeps a width at 0 or n successes, which conversion rates of a few percent often are.
 */
export function wilsonInterval(successes: number, trials: number): Interval | null {
  if (trials <= 0) return null;
  const p = Math.min(successes, trials) / trials;
  const z2 = Z95 * Z95;
  const centre = (p + z2 / (2 * trials)) / (1 + z2 / trials);
  const half = (Z95 / (1 + z2 / trials)) * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials));
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/**
 * The pooled two-proportion z statistic of x1/n1 against x2/n2 (positive when the first is higher); null when
 * it is not defined (no trials, or a pooled rate of 0 or 1: both variants alike, nothing to tell apart).
 */
export function twoProportionZ(x1: number, n1: number, x2: number, n2: number): number | null {
  if (n1 <= 0 || n2 <= 0) return null;
  const s1 = Math.min(x1, n1);
  const s2 = Math.min(x2, n2);
  const pooled = (s1 + s2) / (n1 + n2);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
  if (se === 0) return null;
  return (s1 / n1 - s2 / n2) / se;
}

/**
 * Clicks per unit of weight, first against second: given n = x1 + x2 clicks to the two variants, the first
 * one's count is binomial(n, w1 / (w1 + w2)) when neither draws more clicks than its weight sends it (the
 * conditional test of two Poisson rates), here with its normal approximation.
 */
export function clickRateZ(x1: number, w1: number, x2: number, w2: number): number | null {
  const n = x1 + x2;
  if (n <= 0 || w1 <= 0 || w2 <= 0) return null;
  const q = w1 / (w1 + w2);
  return (x1 - n * q) / Math.sqrt(n * q * (1 - q));
}

/** Mean and variance of revenue per click: every click a value, the sales' amounts, zero for the others. */
function revenueMoments(v: VariantCounts): { mean: number; variance: number } | null {
  const n = v.clicks;
  if (n < 2) return null;
  const mean = v.revenue.sum / n;
  const variance = Math.max(0, (v.revenue.sumSquares - n * mean * mean) / (n - 1));
  return { mean, variance };
}

/** Welch's statistic of the revenue per click of two variants (large samples: compared with the normal quantile). */
export function revenueZ(a: VariantCounts, b: VariantCounts): number | null {
  const ma = revenueMoments(a);
  const mb = revenueMoments(b);
  if (!ma || !mb) return null;
  const se = Math.sqrt(ma.variance / a.clicks + mb.variance / b.clicks);
  if (se === 0) return null;
  return (ma.mean - mb.mean) / se;
}

/** A variant's rate toward the goal and its 95 % interval; `totalClicks`: the split's clicks (the `clicks` goal's share). */
export function variantRate(goal: SplitGoal, v: VariantCounts, totalClicks: number): VariantRate {
  if (goal === "clicks") return { rate: totalClicks > 0 ? v.clicks / totalClicks : null, interval: wilsonInterval(v.clicks, totalClicks) };
  if (goal === "revenue") {
    const m = revenueMoments(v);
    if (!m) return { rate: v.clicks > 0 ? v.revenue.sum / v.clicks : null, interval: null };
    const half = Z95 * Math.sqrt(m.variance / v.clicks);
    return { rate: m.mean, interval: { low: Math.max(0, m.mean - half), high: m.mean + half } };
  }
  const x = goal === "leads" ? v.leads : v.sales;
  return { rate: v.clicks > 0 ? Math.min(x, v.clicks) / v.clicks : null, interval: wilsonInterval(x, v.clicks) };
}

/** How the goal ranks a variant (higher is better): its rate, clicks per unit of weight for `clicks`. */
function score(goal: SplitGoal, v: VariantCounts): number | null {
  if (goal === "clicks") return v.weight > 0 ? v.clicks / v.weight : null;
  if (goal === "revenue") return v.clicks > 0 ? v.revenue.sum / v.clicks : null;
  const x = goal === "leads" ? v.leads : v.sales;
  return v.clicks > 0 ? Math.min(x, v.clicks) / v.clicks : null;
}

/** The test's statistic of variant a against variant b for the goal (positive when a does better). */
export function goalZ(goal: SplitGoal, a: VariantCounts, b: VariantCounts): number | null {
  if (goal === "clicks") return clickRateZ(a.clicks, a.weight, b.clicks, b.weight);
  if (goal === "revenue") return revenueZ(a, b);
  return goal === "leads" ? twoProportionZ(a.leads, a.clicks, b.leads, b.clicks) : twoProportionZ(a.sales, a.clicks, b.sales, b.clicks);
}

export interface SplitVerdict {
  /** Index of the variant better than every other at 95 %, or null: no clear winner. */
  winner: number | null;
  /** The best-ranked variant's statistic against each other variant (null where undefined), in variant order; null for itself. */
  z: Array<number | null>;
}

/**
 * The variant with the best rate wins when it is better than each other variant with 95 % confidence (its z
 * at least Z95 against every one); a tie for the best rate, or any comparison short of it, is no clear winner.
 */
export function decideSplit(goal: SplitGoal, variants: VariantCounts[]): SplitVerdict {
  const scores = variants.map((v) => score(goal, v));
  let best = -1;
  for (let i = 0; i < scores.length; i++) {
    const s = scores[i];
    if (s === null || s === undefined) continue;
    if (best < 0 || s > scores[best]!) best = i;
  }
  if (best < 0) return { winner: null, z: variants.map(() => null) };
  const z = variants.map((v, i) => (i === best ? null : goalZ(goal, variants[best]!, v)));
  const clear = variants.length >= 2 && z.every((value, i) => i === best || (value !== null && value >= Z95));
  return { winner: clear ? best : null, z };
}
