// The part of autocannon's programmatic API the bench uses (the package ships no types).
declare module 'autocannon' {
  /** one request as autocannon builds it; setupRequest may return a changed copy */
  export interface RequestData {
    method: string;
    path: string;
    headers: Record<string, string>;
    body?: string | Buffer;
    [key: string]: unknown;
  }

  export interface AutocannonOptions {
    url: string;
    connections?: number;
    pipelining?: number;
    /** seconds */
    duration?: number;
    /** seconds */
    timeout?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    workers?: number;
    /** the sequence each connection loops over; setupRequest runs before every request */
    requests?: Array<{ setupRequest?: (req: RequestData) => RequestData }>;
  }

  export interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p97_5: number;
    p99: number;
    p99_9: number;
  }

  export interface AutocannonResult {
    url: string;
    connections: number;
    pipelining: number;
    /** seconds */
    duration: number;
    start: Date;
    finish: Date;
    errors: number;
    timeouts: number;
    non2xx: number;
    resets: number;
    '2xx': number;
    statusCodeStats: Record<string, { count: number }>;
    /** milliseconds, 2xx responses only, whole-millisecond resolution */
    latency: Histogram & { totalCount: number };
    /** per-second samples of completed requests */
    requests: Histogram & { sent: number };
    /** per-second samples of bytes */
    throughput: Histogram;
  }

  export default function autocannon(options: AutocannonOptions): Promise<AutocannonResult>;
}
