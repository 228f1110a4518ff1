// A ruler behind its routes on an in-memory database, with a PromQL engine
// whose answers the test sets, a write path that records what it is given
// (or refuses it), a clock the test moves and limits the test changes.
import { openStoreAccess } from "../../../src/store-access/access-store.ts";
import { createStoreAuth } from "../../../src/store-access/http.ts";
import type { Hono } from "hono";
import { afterAll, beforeAll } from "vitest";
import { createRuler, type RuleEngine, type Ruler } from "../../../src/apps/metrics/core/rules/evaluator.ts";
import type { Labels, MetricsLimits, SampleToWrite } from "../../../src/apps/metrics/core/types.ts";
import { renderMetricsError } from "../../../src/apps/metrics/render-error.ts";
import { registerRuleRoutes } from "../../../src/apps/metrics/routes/rules.ts";
import { openDatabase, type Database } from "../../../src/db/open.ts";
import { ApiError } from "../../../src/lib/errors.ts";
import { createStoreApp } from "../../../src/lib/http/store-app.ts";
import { createLifecycle } from "../../../src/lib/lifecycle.ts";
import { silentLogger } from "../../../src/lib/logger.ts";

export const T0 = Date.UTC(2024, 0, 1, 12, 0, 0);

export class FakeEngine implements RuleEngine {
  readonly answers = new Map<string, Array<{ labels: Labels; value: number }> | Error>();
  readonly calls: Array<{ tenant: string; expr: string; t: number }> = [];

  validate(expr: string): void {
    if (expr.includes("{") && !expr.includes("}")) throw new Error(`1:${expr.length + 1}: parse error: unexpected end of input inside braces`);
  }

  async instant(tenant: string, expr: string, t: number) {
    this.calls.push({ tenant, expr, t });
    const answer = this.answers.get(expr);
    if (answer instanceof Error) throw answer;
    return (answer ?? []).map((s) => ({ labels: { ...s.labels }, value: s.value }));
  }
}

export function limitsWith(overrides: Partial<MetricsLimits> = {}): MetricsLimits {
  return {
    ingestion_rate: 10000,
    ingestion_burst_size: 200000,
    ingestion_rate_strategy: "global",
    max_series_per_query: 100000,
    max_samples_per_query: 0,
    query_timeout: 0,
    max_global_series_per_user: 150000,
    max_global_series_per_metric: 20000,
    max_fetched_chunk_bytes_per_query: 0,
    max_label_names_per_series: 30,
    max_label_name_length: 1024,
    max_label_value_length: 2048,
    creation_grace_period: 600000,
    ruler_max_rules_per_rule_group: 20,
    ruler_max_rule_groups_per_tenant: 70,
    ...overrides,
  };
}

export interface Harness {
  app: Hono;
  ruler: Ruler;
  engine: FakeEngine;
  writes: Array<{ tenant: string; samples: SampleToWrite[] }>;
  /** set to make the next writes fail with this error */
  refuse: { error?: Error };
  clock: { now: number };
  /** per-tenant limit overrides */
  limits: Map<string, Partial<MetricsLimits>>;
  request(method: string, path: string, tenant?: string, body?: string): Promise<Response>;
}

/** a ruler on a fresh database for the enclosing file or describe block, closed after it */
export function useRuler(): { h: Harness; db: Database } {
  const ctx = {} as { h: Harness; db: Database };
  beforeAll(async () => {
    ctx.db = await openTestDatabase();
    ctx.h = await startRuler(ctx.db);
  }, 180_000);
  afterAll(async () => {
    await ctx.h?.ruler.close();
    await ctx.db?.close();
  });
  return ctx;
}

export function openTestDatabase(): Promise<Database> {
  return openDatabase({ dataDir: undefined, logger: silentLogger });
}

export async function startRuler(db: Database, options: { defaultInterval?: number; engine?: FakeEngine } = {}): Promise<Harness> {
  const engine = options.engine ?? new FakeEngine();
  const writes: Harness["writes"] = [];
  const refuse: Harness["refuse"] = {};
  const clock = { now: T0 };
  const limits = new Map<string, Partial<MetricsLimits>>();
  const ruler = await createRuler({
    pg: db.pg,
    engine,
    async write(tenant, samples) {
      if (refuse.error) throw refuse.error;
      writes.push({ tenant, samples });
    },
    limits: { of: (tenant) => limitsWith(limits.get(tenant)), sourceOf: () => "defaults" },
    logger: silentLogger,
    now: () => clock.now,
    defaultInterval: options.defaultInterval ?? 3_600_000,
  });
  const lifecycle = createLifecycle();
  lifecycle.markReady();
  const app = createStoreApp({ service: "metrics", logger: silentLogger, lifecycle, maxBodyBytes: 1 << 24, render: renderMetricsError });
  const access = await openStoreAccess({ pg: db.pg, cluster: "outpost" });
  registerRuleRoutes(app, ruler, { isInactive: () => false, auth: createStoreAuth({ store: "metrics", mode: "header", access, certTenant: { from: "", allowed: [] }, realm: "test" }) });
  const request = (method: string, path: string, tenant?: string, body?: string) =>
    Promise.resolve(
      app.request(path, {
        method,
        headers: { ...(tenant === undefined ? {} : { "X-Scope-OrgID": tenant }), ...(body === undefined ? {} : { "Content-Type": "application/yaml" }) },
        ...(body === undefined ? {} : { body }),
      }),
    );
  return { app, ruler, engine, writes, refuse, clock, limits, request };
}

export const ACCEPTED = '{"status":"success","data":null,"errorType":"","error":""}';

export function refusal(message: string): ApiError {
  return new ApiError(400, message);
}

/** a group of n recording rules */
export function groupOf(name: string, n: number): string {
  let text = `name: ${name}\nrules:\n`;
  for (let i = 0; i < n; i++) text += `  - record: r:${i}\n    expr: sum(up)\n`;
  return text;
}
