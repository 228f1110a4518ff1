// Micro-benchmark of the PromQL engine in this process (issue 17): the soak's
// metric query, sum by (job) (rate(x[1m])) over 2,000 series, and a few
// neighbours, evaluated straight against an in-memory metrics store (the
// head, as bench/soak.ts's pushes fill it; no HTTP). Prints ms per query
// (median of ROUNDS rounds) and the memory one query leaves behind.
//   bun bench/promql-soak-query.ts        (ROUNDS=…, SERIES=… to change the size;
//   ONLY=<name>[|<name>...] runs only the queries so named, DENSITY=scrape|dense one density)
// Two densities: "scrape", a sample every 15 s (4 per 1m window, as Prometheus
// scrapes), and "dense", a sample every second (60 per window, as the soak's
// pushes arrive), each series with 10 min of samples (closed chunks and an open one).
import { openDatabase } from "../src/db/open.ts";
import { silentLogger } from "../src/lib/logger.ts";
import * as promql from "../src/apps/metrics/core/promql/index.ts";
import { newBudget, openMetricsStore } from "../src/apps/metrics/core/store.ts";
import { median, report } from "./lib.ts";

const SERIES = Number(process.env.SERIES ?? 2000);
const ROUNDS = Number(process.env.ROUNDS ?? 7);
const SPAN = 10 * 60_000;
const END = 1_700_000_000_000;

const db = await openDatabase({ dataDir: undefined, logger: silentLogger });
const store = await openMetricsStore({ pg: db.pg, logger: silentLogger, now: () => END, flushInterval: 3_600_000 });

/** SERIES series of tenant `tenant` as the soak pushes them: 200 senders x 10 instances, job "soak" */
function fill(tenant: string, interval: number): void {
  const h = store.head(tenant);
  for (let i = 0; i < SERIES; i++) {
    const labels = { __name__: "soak_requests_total", instance: `host-${i % 10}:9100`, job: "soak", sender: String(Math.floor(i / 10)) };
    const names = Object.keys(labels).sort() as Array<keyof typeof labels>;
    const s = h.addSeriesOf(labels);
    let v = 0;
    for (let t = END - SPAN + (i % 1000); t <= END; t += interval) {
      v += 1 + (i % 7);
      h.append(s, t, v, END);
    }
    h.activate(s, END);
  }
}
fill("scrape", 15_000);
fill("dense", 1_000);

const queries: Array<{ name: string; run: (tenant: string) => Promise<string> }> = [
  { name: "sum by (job)(rate(x[1m]))", run: (tenant) => instant(tenant, "sum by (job) (rate(soak_requests_total[1m]))") },
  { name: "rate(x[1m])", run: (tenant) => instant(tenant, "rate(soak_requests_total[1m])") },
  { name: "x", run: (tenant) => instant(tenant, "soak_requests_total") },
  {
    name: "sum by (job)(rate(x[1m])), range 10m step 15s",
    run: (tenant) => {
      const budget = newBudget(0, 0);
      return promql.rangeQueryJson(store.querier(tenant, budget), parse("sum by (job) (rate(soak_requests_total[1m]))"), END - SPAN, END, 15_000, { budget });
    },
  },
];

// parsed as the query API does (a cache of recent expressions, where the build has one)
const api = promql as { parsePromQLCached?: (q: string) => promql.Expr; parsePromQL: (q: string) => promql.Expr };
const parse = (query: string) => (api.parsePromQLCached ?? api.parsePromQL)(query);

function instant(tenant: string, query: string): Promise<string> {
  const budget = newBudget(0, 0);
  return promql.instantQueryJson(store.querier(tenant, budget), parse(query), END, { budget });
}

const gc = () => (globalThis as { Bun?: { gc(full: boolean): void } }).Bun?.gc(true) ?? (globalThis as { gc?: () => void }).gc?.();

try {
  const only = process.env.ONLY;
  for (const tenant of ["scrape", "dense"].filter((d) => !process.env.DENSITY || d === process.env.DENSITY)) {
    for (const q of queries.filter((x) => !only || only.split("|").includes(x.name))) {
      const perRound: number[] = [];
      // warm-up
      for (let i = 0; i < 5; i++) await q.run(tenant);
      for (let r = 0; r < ROUNDS; r++) {
        const n = 10;
        const t0 = performance.now();
        for (let i = 0; i < n; i++) await q.run(tenant);
        perRound.push((performance.now() - t0) / n);
      }
      const ms = median(perRound);
      const label = `${q.name} over ${SERIES.toLocaleString("en")} series, ${tenant}`;
      report.figure(`${label}: ms per query`, ms, "ms", q.name === "sum by (job)(rate(x[1m]))" ? "<= 1" : null);
      console.log(`${label.padEnd(80)} ${ms.toFixed(2).padStart(8)} ms per query`);
    }
  }
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < 200; i++) await queries[0]!.run("dense");
  gc();
  const grown = (process.memoryUsage().heapUsed - before) / 1e6;
  report.figure("heap growth after 200 soak queries (dense), after a full GC", grown, "MB", null);
  console.log(`heap growth after 200 soak queries (dense), after a full GC: ${grown.toFixed(1)} MB`);
  report.save();
} finally {
  await store.close();
  await db.close();
}
