// The parser's shape (prom2json's): it ships no types of its own.
declare module 'parse-prometheus-text-format' {
  export interface Sample {
    readonly value?: string
    readonly labels?: Readonly<Record<string, string>>
    /** A histogram's: its buckets by upper bound, its count and sum. */
    readonly buckets?: Readonly<Record<string, string>>
    readonly count?: string
    readonly sum?: string
  }
  export interface MetricFamily {
    readonly name: string
    readonly help: string
    readonly type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED'
    readonly metrics: readonly Sample[]
  }
  export default function parsePrometheusTextFormat(text: string): MetricFamily[]
}
