// A client for the metrics store as Prometheus senders, Grafana and
// operators use it: remote write, the Prometheus query API, rules, admin.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { IngestDeps } from "../../src/apps/metrics/core/ingest.ts";
import { encodeWriteRequest } from "../../src/apps/metrics/core/remote-write.ts";
import type { MetricsStore } from "../../src/apps/metrics/core/store.ts";
import type { MetricsLimits } from "../../src/apps/metrics/core/types.ts";
import { createTokenBuckets } from "../../src/lib/token-bucket.ts";

export interface SeriesIn {
  labels: Record<string, string>;
  samples: Array<[number, number]>; // [ms, value]
}

export function writeBody(series: SeriesIn[]): Uint8Array<ArrayBuffer> {
  return encodeWriteRequest({
    timeseries: series.map((s) => ({
      labels: Object.entries(s.labels).map(([name, value]) => ({ name, value })),
      samples: s.samples.map(([timestampMs, value]) => ({ timestampMs, value })),
    })),
  });
}

/** a runtime config file of per-tenant limit overrides (metrics.runtime_config_file), in a temporary folder of its own */
export function overridesFile(overrides: Record<string, Record<string, number>>): { path: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), "outpost-overrides-"));
  const path = join(dir, "runtime.yaml");
  const tenants = Object.entries(overrides).map(([tenant, limits]) => `  ${tenant}:\n${Object.entries(limits).map(([k, v]) => `    ${k}: ${v}\n`).join("")}`);
  writeFileSync(path, `overrides:\n${tenants.join("")}`);
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export async function reply(res: Response): Promise<Reply> {
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, text, body };
}

export function metricsClient(base: string) {
  const tenantHeader = (tenant: string | undefined): Record<string, string> => (tenant === undefined ? {} : { "X-Scope-OrgID": tenant });
  return {
    async push(tenant: string | undefined, series: SeriesIn[], headers: Record<string, string> = {}) {
      const res = await fetch(`${base}/api/v1/push`, {
        method: "POST",
        headers: {
          ...tenantHeader(tenant),
          "Content-Type": "application/x-protobuf",
          "Content-Encoding": "snappy",
          "X-Prometheus-Remote-Write-Version": "0.1.0",
          ...headers,
        },
        body: writeBody(series),
      });
      return reply(res);
    },
    async raw(path: string, init: RequestInit & { tenant?: string } = {}) {
      const { tenant, ...rest } = init;
      return reply(await fetch(`${base}${path}`, { ...rest, headers: { ...tenantHeader(tenant), ...(rest.headers as Record<string, string> | undefined) } }));
    },
    async get(path: string, tenant: string | undefined, params: Record<string, string | string[]> = {}) {
      const q = new URLSearchParams();
      for (const [k, v] of Object.entries(params)) for (const x of Array.isArray(v) ? v : [v]) q.append(k, x);
      const qs = q.toString();
      return reply(await fetch(`${base}${path}${qs ? `?${qs}` : ""}`, { headers: tenantHeader(tenant) }));
    },
    async query(tenant: string, query: string, timeMs?: number) {
      return this.get("/prometheus/api/v1/query", tenant, { query, ...(timeMs === undefined ? {} : { time: String(timeMs / 1000) }) });
    },
  };
}

/** a selected series' own samples (a querier answers with columns and the offsets [lo, hi) of its samples in them) */
export function ownSamples(s: { t: ArrayLike<number>; v: ArrayLike<number>; lo?: number; hi?: number }): { t: Float64Array; v: Float64Array } {
  const lo = s.lo ?? 0;
  const hi = s.hi ?? s.t.length;
  // views of the columns: a stale marker's bits are read as stored
  return { t: (s.t as Float64Array).subarray(lo, hi), v: (s.v as Float64Array).subarray(lo, hi) };
}

/** what ingest() needs, for tests calling it in process: the limits read through `limits()` at each push */
export function ingestDeps(store: MetricsStore, limits: () => MetricsLimits): IngestDeps {
  return {
    store,
    limits: { of: limits, sourceOf: () => "defaults" },
    buckets: createTokenBuckets(Date.now),
    counters: { received() {}, discarded() {}, ingested() {} },
    now: Date.now,
    idleTimeout: 20 * 60_000,
  };
}
