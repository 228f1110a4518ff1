// What each token sent and asked for, so an operator sees who sends what:
// lines and bytes written to the log store, samples and bytes to the metrics
// store, queries run on each. Kept in memory since the start (counters, as
// Prometheus expects) and shown in each store's /metrics and on the admin
// page. A deleted token's counts go with it.
import { Counter, type Registry } from "prom-client";

export type StoreName = "logs" | "metrics";

export interface TokenUsage {
  logs_lines: number;
  logs_bytes: number;
  logs_queries: number;
  metrics_samples: number;
  metrics_bytes: number;
  metrics_queries: number;
  /** epoch milliseconds of the last request the token authenticated, 0 for none */
  last_used_ms: number;
}

export interface AccessUsage {
  /** a request authenticated by the token (policy, token) */
  used(policy: string, token: string, at: number): void;
  wrote(policy: string, token: string, store: StoreName, items: number, bytes: number): void;
  queried(policy: string, token: string, store: StoreName): void;
  of(token: string): TokenUsage;
  forget(token: string): void;
  /** the store's counters, by access_policy and token, in its registry */
  registerWith(registry: Registry, store: StoreName): void;
}

const empty = (): TokenUsage => ({ logs_lines: 0, logs_bytes: 0, logs_queries: 0, metrics_samples: 0, metrics_bytes: 0, metrics_queries: 0, last_used_ms: 0 });

export function createAccessUsage(): AccessUsage {
  const byToken = new Map<string, { policy: string; usage: TokenUsage }>();
  const entry = (policy: string, token: string) => {
    let e = byToken.get(token);
    if (!e || e.policy !== policy) {
      e = { policy, usage: empty() };
      byToken.set(token, e);
    }
    return e.usage;
  };
  /** a counter that shows the map's values at each scrape */
  const counter = (registry: Registry, name: string, help: string, pick: (u: TokenUsage) => number) =>
    new Counter({
      name,
      help,
      labelNames: ["access_policy", "token"],
      registers: [registry],
      collect() {
        this.reset();
        for (const [token, e] of byToken) {
          const v = pick(e.usage);
          if (v > 0) this.inc({ access_policy: e.policy, token }, v);
        }
      },
    });
  return {
    used(policy, token, at) {
      entry(policy, token).last_used_ms = at;
    },
    wrote(policy, token, store, items, bytes) {
      const u = entry(policy, token);
      if (store === "logs") {
        u.logs_lines += items;
        u.logs_bytes += bytes;
      } else {
        u.metrics_samples += items;
        u.metrics_bytes += bytes;
      }
    },
    queried(policy, token, store) {
      const u = entry(policy, token);
      if (store === "logs") u.logs_queries++;
      else u.metrics_queries++;
    },
    of: (token) => ({ ...(byToken.get(token)?.usage ?? empty()) }),
    forget: (token) => void byToken.delete(token),
    registerWith(registry, store) {
      if (store === "logs") {
        counter(registry, "svc_access_token_received_lines_total", "Log lines accepted from each token.", (u) => u.logs_lines);
        counter(registry, "svc_access_token_received_bytes_total", "Bytes of log lines accepted from each token.", (u) => u.logs_bytes);
        counter(registry, "svc_access_token_queries_total", "Log queries run with each token.", (u) => u.logs_queries);
      } else {
        counter(registry, "cortex_access_token_received_samples_total", "Samples accepted from each token.", (u) => u.metrics_samples);
        counter(registry, "cortex_access_token_received_bytes_total", "Bytes of remote write bodies accepted from each token.", (u) => u.metrics_bytes);
        counter(registry, "cortex_access_token_queries_total", "Queries run with each token.", (u) => u.metrics_queries);
      }
    },
  };
}
