// Rule evaluation as Prometheus does it, driven with evaluateNow and a clock
// the test moves: recording rule samples, the alert lifecycle (inactive ->
// pending -> firing -> resolved), ALERTS series and stale markers, templated
// labels and annotations, errors in rule health, the status API, scheduling
// on the group's interval, and groups surviving a restart.
import { beforeAll, describe, expect, it } from "vitest";
import { POLL_DEADLINE_MS, pollUntil } from "../../helpers/eventually.ts";
import type { SampleToWrite } from "../../../src/apps/metrics/core/types.ts";
import { refusal, startRuler, T0, useRuler, type Harness } from "./harness.ts";

const ctx = useRuler();

const MIN = 60_000;
// stale markers are flagged samples (the write path stores their exact bits)
const isStale = (s: SampleToWrite) => s.stale === true && Number.isNaN(s.v);
const writesOf = (harness: Harness, tenant: string): SampleToWrite[] => harness.writes.filter((w) => w.tenant === tenant).flatMap((w) => w.samples);
const take = (harness: Harness, tenant: string) => {
  const out = writesOf(harness, tenant);
  harness.writes.splice(0, harness.writes.length, ...harness.writes.filter((w) => w.tenant !== tenant));
  return out;
};
const byName = (samples: SampleToWrite[]) =>
  [...samples].sort((a, b) => (JSON.stringify(a.labels) < JSON.stringify(b.labels) ? -1 : 1));

async function rulesOf(harness: Harness, tenant: string, query = "") {
  const res = await harness.request("GET", `/prometheus/api/v1/rules${query}`, tenant);
  return (await res.json()) as { status: string; data: { groups: Array<Record<string, any>> } }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

describe("recording rules", () => {
  it("each result sample gets __name__ = record and the rule's labels, at the evaluation time", async () => {
    const t = "rec";
    ctx.h.engine.answers.set("sum by (job) (rate(http_requests_total[5m]))", [
      { labels: { job: "api", env: "dev" }, value: 3.5 },
      { labels: { job: "web" }, value: 1 },
    ]);
    const body = "name: recording\nrules:\n  - record: job:http_requests:rate5m\n    expr: sum by (job) (rate(http_requests_total[5m]))\n    labels:\n      env: prod\n";
    expect((await ctx.h.request("POST", "/prometheus/config/v1/rules/ns", t, body)).status).toBe(202);
    ctx.h.clock.now = T0 + 10 * MIN;
    expect(await ctx.h.ruler.evaluateNow(t, "ns", "recording")).toBe(true);
    expect(ctx.h.engine.calls.at(-1)).toEqual({ tenant: t, expr: "sum by (job) (rate(http_requests_total[5m]))", t: T0 + 10 * MIN });
    expect(byName(take(ctx.h, t))).toEqual([
      { labels: { job: "api", env: "prod", __name__: "job:http_requests:rate5m" }, t: T0 + 10 * MIN, v: 3.5 },
      { labels: { job: "web", __name__: "job:http_requests:rate5m", env: "prod" }, t: T0 + 10 * MIN, v: 1 },
    ]);
    const status = await rulesOf(ctx.h, t);
    expect(status.data.groups).toEqual([
      {
        name: "recording",
        file: "ns",
        rules: [
          {
            name: "job:http_requests:rate5m",
            query: "sum by (job) (rate(http_requests_total[5m]))",
            labels: { env: "prod" },
            health: "ok",
            lastError: "",
            type: "recording",
            lastEvaluation: "2024-01-01T12:10:00Z",
            evaluationTime: status.data.groups[0]!.rules[0].evaluationTime,
          },
        ],
        interval: 3600,
        lastEvaluation: "2024-01-01T12:10:00Z",
        evaluationTime: status.data.groups[0]!.evaluationTime,
        sourceTenants: null,
      },
    ]);
    expect(typeof status.data.groups[0]!.evaluationTime).toBe("number");
  });

  it("a series that disappears gets a stale marker; a scalar result is one sample", async () => {
    const t = "rec-stale";
    ctx.h.engine.answers.set("sum by (job) (x)", [{ labels: { job: "a" }, value: 1 }, { labels: { job: "b" }, value: 2 }]);
    await ctx.h.request("POST", "/prometheus/config/v1/rules/ns", t, "name: g\nrules:\n  - record: job:x:sum\n    expr: sum by (job) (x)\n  - record: answer\n    expr: vector(42)\n");
    ctx.h.engine.answers.set("vector(42)", [{ labels: {}, value: 42 }]);
    ctx.h.clock.now = T0 + MIN;
    await ctx.h.ruler.evaluateNow(t, "ns", "g");
    expect(take(ctx.h, t)).toHaveLength(3);
    ctx.h.engine.answers.set("sum by (job) (x)", [{ labels: { job: "a" }, value: 5 }]);
    ctx.h.clock.now = T0 + 2 * MIN;
    await ctx.h.ruler.evaluateNow(t, "ns", "g");
    const second = take(ctx.h, t);
    expect(second.filter((s) => !isStale(s))).toEqual([
      { labels: { job: "a", __name__: "job:x:sum" }, t: T0 + 2 * MIN, v: 5 },
      { labels: { __name__: "answer" }, t: T0 + 2 * MIN, v: 42 },
    ]);
    expect(second.filter((s) => Number.isNaN(s.v)).every((s) => isStale(s))).toBe(true);
    const stale = second.filter((s) => isStale(s));
    expect(stale.map((s) => [s.labels, s.t])).toEqual([[{ job: "b", __name__: "job:x:sum" }, T0 + 2 * MIN]]);
  });

  it("an engine error marks the rule err with the message, the other rules still run, and it recovers", async () => {
    const t = "rec-err";
    ctx.h.engine.answers.set("broken_query", new Error("query processing would load too many samples into memory"));
    ctx.h.engine.answers.set("sum(fine)", [{ labels: {}, value: 1 }]);
    await ctx.h.request("POST", "/prometheus/config/v1/rules/ns", t, "name: g\nrules:\n  - record: r:broken\n    expr: broken_query\n  - record: r:fine\n    expr: sum(fine)\n");
    ctx.h.clock.now = T0 + MIN;
    await ctx.h.ruler.evaluateNow(t, "ns", "g");
    let rules = (await rulesOf(ctx.h, t)).data.groups[0]!.rules;
    expect(rules.map((r: { health: string; lastError: string }) => [r.health, r.lastError])).toEqual([
      ["err", "query processing would load too many samples into memory"],
      ["ok", ""],
    ]);
    expect(take(ctx.h, t).map((s) => s.labels.__name__)).toEqual(["r:fine"]);
    ctx.h.engine.answers.set("broken_query", [{ labels: {}, value: 2 }]);
    ctx.h.clock.now = T0 + 2 * MIN;
    await ctx.h.ruler.evaluateNow(t, "ns", "g");
    rules = (await rulesOf(ctx.h, t)).data.groups[0]!.rules;
    expect(rules[0].health).toBe("ok");
    expect(rules[0].lastError).toBe("");
  });

  it("a refused write marks the rule err with the ingest error", async () => {
    const t = "rec-refused";
    ctx.h.engine.answers.set("sum(y)", [{ labels: {}, value: 1 }]);
    await ctx.h.request("POST", "/prometheus/config/v1/rules/ns", t, "name: g\nrules:\n  - record: r:y\n    expr: sum(y)\n");
    ctx.h.refuse.error = refusal("per-user series limit of 1 exceeded, please contact administrator to raise it (per-ingester local limit: 1)");
    try {
      await ctx.h.ruler.evaluateNow(t, "ns", "g");
    } finally {
      ctx.h.refuse.error = undefined;
    }
    const rule = (await rulesOf(ctx.h, t)).data.groups[0]!.rules[0];
    expect(rule.health).toBe("err");
    expect(rule.lastError).toBe("per-user series limit of 1 exceeded, please contact administrator to raise it (per-ingester local limit: 1)");
  });

  it("rules that clash after relabelling fail with Prometheus's message", async () => {
    const t = "rec-clash";
    ctx.h.engine.answers.set("clash", [{ labels: { __name__: "a" }, value: 1 }, { labels: { __name__: "b" }, value: 2 }]);
    await ctx.h.request("POST", "/prometheus/config/v1/rules/ns", t, "name: g\nrules:\n  - record: r:clash\n    expr: clash\n");
    await ctx.h.ruler.evaluateNow(t, "ns", "g");
    const rule = (await rulesOf(ctx.h, t)).data.groups[0]!.rules[0];
    expect([rule.health, rule.lastError]).toEqual(["err", "vector contains metrics with the same labelset after applying rule labels"]);
  });
});

describe("alerting rules", () => {
  const t = "alerting";
  const EXPR = "sum by (instance, job) (rate(errors_total[5m])) > 5";
  const body = [
    "name: alerts",
    "rules:",
    "  - alert: HighErrorRate",
    `    expr: ${EXPR}`,
    "    for: 5m",
    "    labels:",
    "      severity: page",
    "      team: '{{ $labels.job }}-team'",
    "    annotations:",
    "      summary: '{{ $labels.instance }} has {{ $value }} errors/s'",
    "      description: 'about {{ humanize $value }} ({{ printf \"%.1f\" $value }}) on {{ .Labels.job | toUpper }}'",
    "",
  ].join("\n");
  const series = { __name__: "ignored", instance: "host-1:9090", job: "api" };
  const alertLabels = { alertname: "HighErrorRate", instance: "host-1:9090", job: "api", severity: "page", team: "api-team" };

  const alertRule = async () => (await rulesOf(ctx.h, t)).data.groups[0]!.rules[0];
  const alertsApi = async () => (await (await ctx.h.request("GET", "/prometheus/api/v1/alerts", t)).json()).data.alerts;

  it("is inactive while the expression returns nothing", async () => {
    expect((await ctx.h.request("POST", "/prometheus/config/v1/rules/ns", t, body)).status).toBe(202);
    const before = await alertRule();
    expect(before).toEqual({
      state: "inactive",
      name: "HighErrorRate",
      query: EXPR,
      duration: 300,
      keepFiringFor: 0,
      labels: { severity: "page", team: "{{ $labels.job }}-team" },
      annotations: {
        description: 'about {{ humanize $value }} ({{ printf "%.1f" $value }}) on {{ .Labels.job | toUpper }}',
        summary: "{{ $labels.instance }} has {{ $value }} errors/s",
      },
      alerts: [],
      health: "unknown",
      lastError: "",
      type: "alerting",
      lastEvaluation: "0001-01-01T00:00:00Z",
      evaluationTime: 0,
    });
    ctx.h.clock.now = T0;
    await ctx.h.ruler.evaluateNow(t, "ns", "alerts");
    const rule = await alertRule();
    expect([rule.state, rule.health, rule.alerts]).toEqual(["inactive", "ok", []]);
    expect(take(ctx.h, t)).toEqual([]);
  });

  it("becomes pending when a series appears, with templated labels and annotations and ALERTS{alertstate=pending}", async () => {
    ctx.h.engine.answers.set(EXPR, [{ labels: series, value: 12345.678 }]);
    ctx.h.clock.now = T0 + MIN;
    await ctx.h.ruler.evaluateNow(t, "ns", "alerts");
    const rule = await alertRule();
    expect(rule.state).toBe("pending");
    const alert = {
      labels: alertLabels,
      annotations: { description: "about 12.35k (12345.7) on API", summary: "host-1:9090 has 12345.678 errors/s" },
      state: "pending",
      activeAt: "2024-01-01T12:01:00Z",
      value: "1.2345678e+04",
    };
    expect(rule.alerts).toEqual([alert]);
    expect(await alertsApi()).toEqual([alert]);
    expect(byName(take(ctx.h, t))).toEqual([
      { labels: { ...alertLabels, __name__: "ALERTS", alertstate: "pending" }, t: T0 + MIN, v: 1 },
      { labels: { ...alertLabels, __name__: "ALERTS_FOR_STATE" }, t: T0 + MIN, v: (T0 + MIN) / 1000 },
    ]);
  });

  it("stays pending until `for` has passed", async () => {
    ctx.h.engine.answers.set(EXPR, [{ labels: series, value: 7 }]);
    ctx.h.clock.now = T0 + 5 * MIN;
    await ctx.h.ruler.evaluateNow(t, "ns", "alerts");
    const rule = await alertRule();
    expect(rule.state).toBe("pending");
    expect(rule.alerts[0].value).toBe("7e+00");
    expect(rule.alerts[0].annotations.summary).toBe("host-1:9090 has 7 errors/s");
    expect(rule.alerts[0].activeAt).toBe("2024-01-01T12:01:00Z");
    expect(take(ctx.h, t).find((s) => s.labels.__name__ === "ALERTS")?.labels.alertstate).toBe("pending");
  });

  it("fires once `for` has passed; the pending ALERTS series is marked stale", async () => {
    ctx.h.clock.now = T0 + 6 * MIN;
    await ctx.h.ruler.evaluateNow(t, "ns", "alerts");
    const rule = await alertRule();
    expect(rule.state).toBe("firing");
    expect(rule.alerts.map((a: { state: string; activeAt: string }) => [a.state, a.activeAt])).toEqual([["firing", "2024-01-01T12:01:00Z"]]);
    expect((await alertsApi()).map((a: { state: string }) => a.state)).toEqual(["firing"]);
    const written = take(ctx.h, t);
    expect(written.filter((s) => !isStale(s))).toEqual([
      { labels: { ...alertLabels, __name__: "ALERTS", alertstate: "firing" }, t: T0 + 6 * MIN, v: 1 },
      { labels: { ...alertLabels, __name__: "ALERTS_FOR_STATE" }, t: T0 + 6 * MIN, v: (T0 + MIN) / 1000 },
    ]);
    expect(written.filter((s) => Number.isNaN(s.v)).every((s) => isStale(s))).toBe(true);
    expect(written.filter((s) => isStale(s)).map((s) => s.labels)).toEqual([{ ...alertLabels, __name__: "ALERTS", alertstate: "pending" }]);
  });

  it("is resolved when the series is gone: no active alerts, its series marked stale", async () => {
    ctx.h.engine.answers.set(EXPR, []);
    ctx.h.clock.now = T0 + 7 * MIN;
    await ctx.h.ruler.evaluateNow(t, "ns", "alerts");
    const rule = await alertRule();
    expect([rule.state, rule.alerts]).toEqual(["inactive", []]);
    expect(await alertsApi()).toEqual([]);
    const written = take(ctx.h, t);
    expect(written.every((s) => isStale(s))).toBe(true);
    expect(written.map((s) => s.labels.__name__).sort()).toEqual(["ALERTS", "ALERTS_FOR_STATE"]);
  });

  it("a series that comes back starts pending again", async () => {
    ctx.h.engine.answers.set(EXPR, [{ labels: series, value: 9 }]);
    ctx.h.clock.now = T0 + 8 * MIN;
    await ctx.h.ruler.evaluateNow(t, "ns", "alerts");
    const rule = await alertRule();
    expect(rule.alerts.map((a: { state: string; activeAt: string }) => [a.state, a.activeAt])).toEqual([["pending", "2024-01-01T12:08:00Z"]]);
  });

  it("updating the group keeps the state of an unchanged rule", async () => {
    const updated = body.replace("name: alerts", "name: alerts\ninterval: 30m");
    expect((await ctx.h.request("POST", "/prometheus/config/v1/rules/ns", t, updated)).status).toBe(202);
    const group = (await rulesOf(ctx.h, t)).data.groups[0]!;
    expect(group.interval).toBe(1800);
    expect(group.rules[0].state).toBe("pending");
    ctx.h.clock.now = T0 + 13 * MIN;
    await ctx.h.ruler.evaluateNow(t, "ns", "alerts");
    expect((await alertRule()).state).toBe("firing");
  });

  it("for: 0 fires at the first evaluation; keep_firing_for keeps it firing after the series is gone", async () => {
    const tenant = "alert-now";
    ctx.h.engine.answers.set("up == 0", [{ labels: { __name__: "up", instance: "a" }, value: 0 }]);
    const group = "name: g\nrules:\n  - alert: InstanceDown\n    expr: up == 0\n    keep_firing_for: 10m\n";
    await ctx.h.request("POST", "/prometheus/config/v1/rules/ns", tenant, group);
    ctx.h.clock.now = T0;
    await ctx.h.ruler.evaluateNow(tenant, "ns", "g");
    const alerts = async () => (await (await ctx.h.request("GET", "/prometheus/api/v1/alerts", tenant)).json()).data.alerts;
    expect(await alerts()).toEqual([{ labels: { alertname: "InstanceDown", instance: "a" }, annotations: {}, state: "firing", activeAt: "2024-01-01T12:00:00Z", value: "0e+00" }]);
    ctx.h.engine.answers.set("up == 0", []);
    ctx.h.clock.now = T0 + 5 * MIN;
    await ctx.h.ruler.evaluateNow(tenant, "ns", "g");
    expect(await alerts()).toEqual([
      { labels: { alertname: "InstanceDown", instance: "a" }, annotations: {}, state: "firing", activeAt: "2024-01-01T12:00:00Z", keepFiringSince: "2024-01-01T12:05:00Z", value: "0e+00" },
    ]);
    ctx.h.clock.now = T0 + 16 * MIN;
    await ctx.h.ruler.evaluateNow(tenant, "ns", "g");
    expect(await alerts()).toEqual([]);
  });

  it("an engine error in an alerting rule sets health err and keeps the alerts", async () => {
    ctx.h.engine.answers.set(EXPR, new Error("expanding series: context deadline exceeded"));
    ctx.h.clock.now = T0 + 14 * MIN;
    await ctx.h.ruler.evaluateNow(t, "ns", "alerts");
    const rule = await alertRule();
    expect([rule.health, rule.lastError, rule.state]).toEqual(["err", "expanding series: context deadline exceeded", "firing"]);
  });
});

describe("GET /prometheus/api/v1/rules filters", () => {
  const t = "filters";
  beforeAll(async () => {
    await ctx.h.request("POST", "/prometheus/config/v1/rules/ns-a", t, "name: g1\nrules:\n  - record: r:one\n    expr: sum(one)\n  - alert: A1\n    expr: one > 1\n");
    await ctx.h.request("POST", "/prometheus/config/v1/rules/ns-b", t, "name: g2\nrules:\n  - alert: A2\n    expr: two > 1\n");
  });
  const shape = async (query: string) =>
    (await rulesOf(ctx.h, t, query)).data.groups.map((g) => [g.file, g.name, g.rules.map((r: { name: string }) => r.name)]);

  it("no filter: every group, sorted by namespace", async () => {
    expect(await shape("")).toEqual([["ns-a", "g1", ["r:one", "A1"]], ["ns-b", "g2", ["A2"]]]);
  });

  it("type=alert and type=record (any case)", async () => {
    expect(await shape("?type=alert")).toEqual([["ns-a", "g1", ["A1"]], ["ns-b", "g2", ["A2"]]]);
    expect(await shape("?type=RECORD")).toEqual([["ns-a", "g1", ["r:one"]]]);
    const bad = await ctx.h.request("GET", "/prometheus/api/v1/rules?type=Bogus", t);
    expect(await bad.json()).toEqual({ status: "error", data: null, errorType: "bad_data", error: 'not supported value "bogus"' });
  });

  it("rule_name[], rule_group[] and file[] (also without brackets)", async () => {
    expect(await shape("?rule_name[]=A2&rule_name[]=r:one")).toEqual([["ns-a", "g1", ["r:one"]], ["ns-b", "g2", ["A2"]]]);
    expect(await shape("?rule_group[]=g2")).toEqual([["ns-b", "g2", ["A2"]]]);
    expect(await shape("?file[]=ns-a")).toEqual([["ns-a", "g1", ["r:one", "A1"]]]);
    expect(await shape("?file=ns-a&rule_name=A1")).toEqual([["ns-a", "g1", ["A1"]]]);
    expect(await shape("?file[]=nope")).toEqual([]);
  });

  it("exclude_alerts=true gives alerts: null", async () => {
    const groups = (await rulesOf(ctx.h, t, "?exclude_alerts=true&type=alert")).data.groups;
    expect(groups.flatMap((g) => g.rules.map((r: { alerts: unknown }) => r.alerts))).toEqual([null, null]);
    const bad = await ctx.h.request("GET", "/prometheus/api/v1/rules?exclude_alerts=maybe", t);
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toBe('error converting exclude_alerts: strconv.ParseBool: parsing "maybe": invalid syntax');
  });
});

describe("scheduling and persistence", () => {
  it("a group is evaluated on its own interval; a deleted group stops", async () => {
    const t = "scheduled";
    ctx.h.engine.answers.set("sum(tick)", [{ labels: {}, value: 1 }]);
    await ctx.h.request("POST", "/prometheus/config/v1/rules/ns", t, "name: fast\ninterval: 20ms\nrules:\n  - record: r:tick\n    expr: sum(tick)\n");
    await pollUntil(() => writesOf(ctx.h, t).length >= 3, POLL_DEADLINE_MS, 10);
    expect(writesOf(ctx.h, t).length).toBeGreaterThanOrEqual(3);
    expect((await ctx.h.request("DELETE", "/prometheus/config/v1/rules/ns/fast", t)).status).toBe(202);
    const calls = ctx.h.engine.calls.filter((c) => c.tenant === t).length;
    await new Promise((r) => setTimeout(r, 100));
    expect(ctx.h.engine.calls.filter((c) => c.tenant === t).length).toBe(calls);
    // deleting ended the rule's series
    expect(ctx.h.writes.filter((w) => w.tenant === t).at(-1)!.samples.every((s) => isStale(s))).toBe(true);
  });

  it("groups survive a restart: a new ruler on the same database loads and evaluates them", async () => {
    const t = "restart";
    const body = "name: kept\ninterval: 2m\nrules:\n  - record: r:kept\n    expr: sum(kept)\n    labels:\n      source: ruler\n";
    expect((await ctx.h.request("POST", "/prometheus/config/v1/rules/team%2Fa", t, body)).status).toBe(202);
    const second = await startRuler(ctx.db);
    try {
      expect(await (await second.request("GET", "/prometheus/config/v1/rules/team%2Fa/kept", t)).text()).toBe(
        "name: kept\ninterval: 2m\nrules:\n    - record: r:kept\n      expr: sum(kept)\n      labels:\n        source: ruler\n",
      );
      second.engine.answers.set("sum(kept)", [{ labels: {}, value: 8 }]);
      second.clock.now = T0 + 30 * MIN;
      expect(await second.ruler.evaluateNow(t, "team/a", "kept")).toBe(true);
      expect(writesOf(second, t)).toEqual([{ labels: { __name__: "r:kept", source: "ruler" }, t: T0 + 30 * MIN, v: 8 }]);
      const group = (await rulesOf(second, t)).data.groups[0]!;
      expect([group.file, group.name, group.interval]).toEqual(["team/a", "kept", 120]);
    } finally {
      await second.ruler.close();
    }
    expect(await ctx.h.ruler.evaluateNow(t, "team/a", "missing")).toBe(false);
  });

  it("close() stops evaluating", async () => {
    const third = await startRuler(ctx.db);
    await third.ruler.close();
    expect(await third.ruler.evaluateNow("restart", "team/a", "kept")).toBe(false);
  });
});
