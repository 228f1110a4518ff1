// The metrics store assembled in the real server: the generated admin token,
// an inactive tenant refused on the write and read paths, admin-API limits
// enforced on remote write, /api/v1/user_limits, and rules evaluated on their
// interval writing their results back as series of the tenant.
import { describe, expect, it } from "vitest";
import { POLL_DEADLINE_MS, pollUntil } from "../helpers/eventually.ts";
import { testClock, useServer } from "../helpers/server.ts";
import { metricsClient } from "./helpers.ts";

describe("metrics store in the server", () => {
  const ctx = useServer({ "metrics.admin_limits_refresh_period": "1s" });
  const m = () => metricsClient(ctx.server.urls.metrics!);
  const tokenOf = () => /outpost-admin-[A-Za-z0-9_-]+/.exec(ctx.server.announced.join("\n"))?.[0];
  const admin = (method: string, path: string, body?: unknown) =>
    m().raw(path, {
      method,
      headers: { Authorization: `Basic ${btoa(`:${tokenOf()}`)}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it("the first boot generated an admin token, shown once, never in the log", () => {
    expect(ctx.server.announced).toHaveLength(1);
    const token = tokenOf()!;
    expect(token).toBeTruthy();
    expect(JSON.stringify(ctx.server.logs)).not.toContain(token);
  });

  it("admin-API limits apply to remote write; user_limits shows them", async () => {
    const created = await admin("POST", "/admin/api/v2/tenants", { name: "team-a", display_name: "Team A", cluster: "outpost", limits: { max_global_series_per_user: 1 } });
    expect(created.status).toBe(200);
    expect(created.body.limits.max_global_series_per_user).toBe(1);
    expect(created.body.limits.ingestion_rate).toBe(142857);
    const limits = await m().get("/api/v1/user_limits", "team-a");
    expect(limits.body.max_global_series_per_user).toBe(1);
    const t = Date.now();
    const r = await m().push("team-a", [{ labels: { __name__: "a" }, samples: [[t, 1]] }, { labels: { __name__: "b" }, samples: [[t, 1]] }]);
    expect(r.status).toBe(400);
    expect(r.text).toBe("per-user series limit of 1 exceeded, please contact administrator to raise it (per-ingester local limit: 1)\n");
    // PUT without limits: the defaults apply again
    expect((await admin("PUT", "/admin/api/v2/tenants/team-a", { display_name: "Team A", cluster: "outpost", status: "active" })).status).toBe(200);
    expect((await m().push("team-a", [{ labels: { __name__: "b" }, samples: [[t, 1]] }])).status).toBe(200);
  });

  it("an inactive tenant can neither write nor read", async () => {
    expect((await admin("PUT", "/admin/api/v2/tenants/team-a", { display_name: "Team A", cluster: "outpost", status: "inactive" })).status).toBe(200);
    const push = await m().push("team-a", [{ labels: { __name__: "c" }, samples: [[Date.now(), 1]] }]);
    expect(push.status).toBe(403);
    expect(push.text).toBe("tenant team-a is inactive\n");
    const query = await m().query("team-a", "a");
    expect(query.status).toBe(403);
    expect(query.body).toEqual({ status: "error", errorType: "bad_data", error: "tenant team-a is inactive" });
    expect((await admin("PUT", "/admin/api/v2/tenants/team-a", { display_name: "Team A", cluster: "outpost", status: "active" })).status).toBe(200);
    expect((await m().query("team-a", "b")).status).toBe(200);
  });

  it("a recording rule is evaluated on its interval and its result is a series of the tenant; an alert fires", async () => {
    const t = Date.now();
    expect((await m().push("ruled", [
      { labels: { __name__: "up", job: "api", instance: "1" }, samples: [[t, 1]] },
      { labels: { __name__: "up", job: "api", instance: "2" }, samples: [[t, 0]] },
    ])).status).toBe(200);
    const group = "name: fast\ninterval: 1s\nrules:\n  - record: job:up:sum\n    expr: sum by (job) (up)\n  - alert: InstanceDown\n    expr: up == 0\n    labels:\n      severity: page\n    annotations:\n      summary: \"{{ $labels.instance }} is down\"\n";
    const posted = await m().raw("/prometheus/config/v1/rules/team", { method: "POST", tenant: "ruled", body: group, headers: { "Content-Type": "application/yaml" } });
    expect(posted.status).toBe(202);
    let result: Array<{ metric: Record<string, string>; value: [number, string] }> = [];
    await pollUntil(async () => (result = (await m().query("ruled", "job:up:sum")).body.data.result).length > 0, POLL_DEADLINE_MS, 250);
    expect(result).toHaveLength(1);
    expect(result[0]!.metric).toEqual({ __name__: "job:up:sum", job: "api" });
    expect(result[0]!.value[1]).toBe("1");
    const alerts = await m().get("/prometheus/api/v1/alerts", "ruled");
    expect(alerts.body.data.alerts).toHaveLength(1);
    expect(alerts.body.data.alerts[0].labels).toEqual({ alertname: "InstanceDown", instance: "2", job: "api", severity: "page" });
    expect(alerts.body.data.alerts[0].annotations).toEqual({ summary: "2 is down" });
    expect(alerts.body.data.alerts[0].state).toBe("firing");
    // another tenant sees neither
    expect((await m().query("other", "job:up:sum")).body.data.result).toEqual([]);
    expect((await m().get("/prometheus/api/v1/rules", "other")).body.data.groups).toEqual([]);
  });
});

describe("metrics store: active series", () => {
  const clock = testClock();
  const ctx = useServer({ "metrics.limits.max_global_series_per_user": 1, "metrics.active_series_idle_timeout": "20m" }, clock);
  it("a series idle longer than active_series_idle_timeout no longer counts against the series limit", async () => {
    const m = metricsClient(ctx.server.urls.metrics!);
    expect((await m.push("idle", [{ labels: { __name__: "a" }, samples: [[clock.now(), 1]] }])).status).toBe(200);
    const refused = await m.push("idle", [{ labels: { __name__: "b" }, samples: [[clock.now(), 1]] }]);
    expect(refused.status).toBe(400);
    expect(refused.text).toContain("per-user series limit of 1 exceeded");
    clock.advance(21 * 60_000);
    expect((await m.push("idle", [{ labels: { __name__: "b" }, samples: [[clock.now(), 1]] }])).status).toBe(200);
    expect((await m.raw("/metrics")).text).toContain('cortex_ingester_active_series{user="idle"} 1');
    // a, idle, now needs a slot again
    expect((await m.push("idle", [{ labels: { __name__: "a" }, samples: [[clock.now(), 2]] }])).status).toBe(400);
  });
});
