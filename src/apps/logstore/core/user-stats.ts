// Per-tenant figures for GET /distributor/all_user_stats. Loki has no
// cross-tenant listing; this one is shaped like Mimir's (userID first, one
// object per tenant). Rates are recent averages of what was accepted, kept as
// Mimir's ingesters keep theirs (an EWMA ticked every 15 s, alpha 0.2); the
// totals are what the store holds now (stored chunks, chunks being written and
// heads), so they survive restarts and shrink when retention deletes chunks.
import { createEwmaRates } from "../../../lib/ewma-rates.ts";
import { formatDuration } from "../../../lib/units.ts";
import { eachStream } from "./stream-walk.ts";
import type { IngestCounters } from "./ingest.ts";
import type { LogStore, Stream } from "./store.ts";

const BYTES = 0;
const LINES = 1;

export interface LogUserStats {
  userID: string;
  /** streams holding entries */
  numStreams: number;
  /** bytes per second accepted, recent average */
  ingestionRate: number;
  /** lines per second accepted, recent average */
  linesRate: number;
  bytesReceived: number;
  linesReceived: number;
  /** RFC 3339 (nanoseconds, as Loki writes times) of the newest entry, or null */
  lastEntry: string | null;
  /** RFC 3339 of the oldest entry held (within the out-of-order window: the first chunk of each stream), or null */
  oldestEntry: string | null;
  /** lines stored from OTLP requests (/otlp/v1/logs) since the process started, and their bytes as the ingestion rate counts them (line and structured metadata) */
  otlpLinesReceived: number;
  otlpBytesReceived: number;
  /** the tenant's retention period as a duration ("744h"; "0s": kept forever) */
  retentionPeriod: string;
  /** RFC 3339 of the last successful retention pass (every tenant's), or null */
  lastRetentionRun: string | null;
}

/** what user stats show of retention */
export interface RetentionView {
  periodMs(tenant: string): number;
  lastSuccess(): number | undefined;
}

export interface LogUserStatsTracker {
  /** the push path's counters, also feeding the rates */
  counters(base: IngestCounters): IngestCounters;
  /** what of it came over OTLP */
  otlpReceived(tenant: string, lines: number, bytes: number): void;
  all(): LogUserStats[];
}

export function createLogUserStats(store: LogStore, now: () => number, retention: () => RetentionView | undefined): LogUserStatsTracker {
  const rates = createEwmaRates({ now, fields: 2 });
  const otlp = new Map<string, { lines: number; bytes: number }>();
  return {
    otlpReceived(tenant, lines, bytes) {
      const t = otlp.get(tenant);
      if (t) {
        t.lines += lines;
        t.bytes += bytes;
      } else otlp.set(tenant, { lines, bytes });
    },
    counters: (base) => ({
      discarded: base.discarded,
      received(tenant, lines, bytes) {
        base.received(tenant, lines, bytes);
        rates.add(tenant, BYTES, bytes);
        rates.add(tenant, LINES, lines);
      },
    }),
    all() {
      const names = new Set([...store.tenants(), ...rates.keys()]);
      const r = retention();
      const last = r?.lastSuccess();
      const lastRetentionRun = last === undefined ? null : new Date(last).toISOString();
      return [...names].sort().map((userID) => {
        const [bytesRate = 0, linesRate = 0] = rates.rates(userID);
        const o = otlp.get(userID);
        return {
          userID,
          ...totals(store.streams(userID)),
          ingestionRate: bytesRate,
          linesRate,
          otlpLinesReceived: o?.lines ?? 0,
          otlpBytesReceived: o?.bytes ?? 0,
          retentionPeriod: formatDuration(r?.periodMs(userID) ?? 0),
          lastRetentionRun,
        };
      });
    },
  };
}

/**
 * The oldest entry a stream holds, read from its first chunk, first chunk
 * being written or head (chunks are cut in time order; an entry accepted out
 * of order may be older, within the out-of-order window)
 */
export function oldestOf(s: Stream): bigint | undefined {
  let oldest = s.chunks[0]?.from ?? s.pending[0]?.from;
  if (s.head.length && (oldest === undefined || s.head.from < oldest)) oldest = s.head.from;
  return oldest;
}

/** the oldest entry each tenant holds, in ms (a walk of every stream, yielding as it goes) */
export async function oldestByTenant(store: Pick<LogStore, "tenants" | "streams">): Promise<Map<string, number>> {
  const oldest = new Map<string, bigint>();
  await eachStream(store, (tenant, s) => {
    const o = oldestOf(s);
    if (o === undefined) return;
    const t = oldest.get(tenant);
    if (t === undefined || o < t) oldest.set(tenant, o);
  });
  return new Map([...oldest].map(([tenant, ns]) => [tenant, Number(ns / 1_000_000n)]));
}

function totals(streams: Stream[]): Pick<LogUserStats, "numStreams" | "bytesReceived" | "linesReceived" | "lastEntry" | "oldestEntry"> {
  let numStreams = 0;
  let bytes = 0;
  let lines = 0;
  let newest: bigint | undefined;
  let oldest: bigint | undefined;
  const seen = (to: bigint) => {
    if (newest === undefined || to > newest) newest = to;
  };
  for (const s of streams) {
    const before = lines;
    const o = oldestOf(s);
    if (o !== undefined && (oldest === undefined || o < oldest)) oldest = o;
    for (const c of s.chunks) {
      bytes += c.bytes;
      lines += c.lines;
      seen(c.to);
    }
    for (const p of s.pending) {
      bytes += p.bytes;
      lines += p.count;
      seen(p.to);
    }
    if (s.head.length) {
      bytes += s.head.bytes;
      lines += s.head.length;
      seen(s.head.to);
    }
    if (lines > before) numStreams++;
  }
  return {
    numStreams,
    bytesReceived: bytes,
    linesReceived: lines,
    lastEntry: newest === undefined ? null : rfc3339Nano(newest),
    oldestEntry: oldest === undefined ? null : rfc3339Nano(oldest),
  };
}

/** Go's RFC3339Nano: UTC, the fraction with trailing zeros trimmed */
export function rfc3339Nano(ns: bigint): string {
  const ms = ns / 1_000_000n;
  const base = new Date(Number(ms)).toISOString().slice(0, 19);
  const frac = (((ns % 1_000_000_000n) + 1_000_000_000n) % 1_000_000_000n).toString().padStart(9, "0").replace(/0+$/, "");
  return `${base}${frac ? `.${frac}` : ""}Z`;
}
