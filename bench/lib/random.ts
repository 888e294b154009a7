// Deterministic data for the benchmarks' seeds: every run seeds the same clicks.

/** Deterministic PRNG (mulberry32). */
export function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Zipf-like pick from a list: the first values are much more common, as in real traffic. */
export function zipf<T>(values: readonly T[], r: () => number): T {
  return values[Math.min(values.length - 1, Math.floor(values.length * r() ** 3))] as T;
}
