// A Prometheus histogram whose series are plain arrays of counts: an observation is a bucket search and
// three additions, no label hashing and no object lookups (the redirect path observes every answer).
// prom-client's registry reads it at scrape time like any metric of its own (registerMetric).
import type client from "prom-client";

export class HistogramSeries {
  /** Answers per bucket (not cumulative); the last one is +Inf's. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(private readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    const b = this.bounds;
    let i = 0;
    while (i < b.length && value > (b[i] as number)) i++;
    (this.counts[i] as number)++;
    this.sum += value;
    this.count++;
  }
}

type Value = { labels: Record<string, string | number>; value: number; metricName: string };

export class FixedHistogram<L extends string> {
  readonly type = "histogram";
  readonly aggregator = "sum";
  private readonly series = new Map<L, HistogramSeries>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelName: string,
    private readonly bounds: readonly number[],
    labelValues: readonly L[],
    registry: client.Registry,
  ) {
    for (const v of labelValues) this.series.set(v, new HistogramSeries(bounds));
    registry.registerMetric(this as unknown as client.Metric);
  }

  /** The series of one label value, to observe into without a lookup. */
  of(labelValue: L): HistogramSeries {
    const s = this.series.get(labelValue);
    if (!s) throw new Error(`${this.name}: no series ${labelValue}`);
    return s;
  }

  /** What prom-client's Histogram answers: cumulative buckets with `le`, then _sum and _count per series. */
  get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: Value[] }> {
    const values: Value[] = [];
    for (const [labelValue, s] of this.series) {
      let cumulative = 0;
      for (let i = 0; i <= this.bounds.length; i++) {
        cumulative += s.counts[i] as number;
        values.push({
          labels: { le: i < this.bounds.length ? (this.bounds[i] as number) : "+Inf", [this.labelName]: labelValue },
          value: cumulative,
          metricName: `${this.name}_bucket`,
        });
      }
      values.push({ labels: { [this.labelName]: labelValue }, value: s.sum, metricName: `${this.name}_sum` });
      values.push({ labels: { [this.labelName]: labelValue }, value: s.count, metricName: `${this.name}_count` });
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }
}
