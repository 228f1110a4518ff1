// Where a tenant's limits come from (admin API > runtime file > defaults),
// the runtime file re-read without a restart, a bad file kept out, the admin
// limits re-read from the database on their refresh period, and the two
// endpoints that show limits.
import { mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pollUntil as waitFor } from "../../helpers/eventually.ts";
import { startAdminApp, type AdminApp } from "./helpers.ts";

const BASE = "/admin/api/v2/tenants";
const dir = mkdtempSync(join(tmpdir(), "outpost-metrics-runtime-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
/** replaces the file at once, so a reload never reads it half-written */
const writeFile = (path: string, text: string) => {
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
};

const userLimits = async (t: AdminApp, tenant: string) => {
  const r = await t.app.request("/api/v1/user_limits", { headers: { "X-Scope-OrgID": tenant } });
  expect(r.status).toBe(200);
  return (await r.json()) as Record<string, unknown>;
};

describe("metrics store limits: sources and the runtime file", () => {
  const file = join(dir, "runtime.yaml");
  writeFile(
    file,
    ["overrides:", "  team-a:", "    ingestion_rate: 350000", "    creation_grace_period: 1h", "  team-b:", "    max_global_series_per_user: 300000", ""].join("\n"),
  );
  let t: AdminApp;
  beforeAll(async () => {
    t = await startAdminApp({
      "metrics.runtime_config_file": file,
      "metrics.runtime_config_reload_period": "100ms",
      "metrics.admin_limits_refresh_period": "100ms",
    });
  });
  afterAll(async () => {
    await t.close();
  });

  it("a tenant the file names takes its overrides, backfilled with the defaults; others take the defaults", async () => {
    // compactor_blocks_retention_period filled in from metrics.retention_period
    const d = t.limits.defaults;
    expect(d.compactor_blocks_retention_period).toBe(t.config.metrics.retention_period);
    expect(t.limits.sourceOf("team-a")).toBe("runtime");
    expect(t.limits.of("team-a")).toEqual({ ...d, ingestion_rate: 350000, creation_grace_period: 3_600_000 });
    expect(t.limits.sourceOf("someone")).toBe("defaults");
    expect(t.limits.of("someone")).toEqual(d);
    const shown = await userLimits(t, "team-a");
    expect(shown.ingestion_rate).toBe(350000);
    expect(shown.creation_grace_period).toBe("1h");
    expect(shown.max_global_series_per_user).toBe(d.max_global_series_per_user);
    expect(Object.keys(shown).sort()).toEqual(Object.keys(d).sort());
    expect((await userLimits(t, "someone")).creation_grace_period).toBe("10m");
  });

  it("GET /api/v1/user_limits without X-Scope-OrgID -> 401 no org id", async () => {
    const r = await t.app.request("/api/v1/user_limits");
    expect(r.status).toBe(401);
    expect(await r.text()).toBe("no org id\n");
  });

  it("admin-API limits win over the file, and the file's values are ignored for that tenant", async () => {
    const r = await t.admin("POST", BASE, { name: "team-b", cluster: t.config.metrics.cluster_name, limits: { ingestion_rate: 5 } });
    expect(r.status).toBe(200);
    expect(t.limits.sourceOf("team-b")).toBe("admin");
    const l = t.limits.of("team-b");
    expect(l.ingestion_rate).toBe(5);
    // the file says 300000, but the file does not apply to this tenant any more
    expect(l.max_global_series_per_user).toBe(t.config.metrics.limits.max_global_series_per_user);
    // the tenant's admin view backfills with the global defaults, never the file
    const shown = (await (await t.admin("GET", `${BASE}/team-b`)).json()) as { limits: Record<string, number> };
    expect(shown.limits.max_global_series_per_user).toBe(t.config.metrics.limits.max_global_series_per_user);

    // PUT without limits: the runtime file applies again
    await t.admin("PUT", `${BASE}/team-b`, { cluster: t.config.metrics.cluster_name });
    expect(t.limits.sourceOf("team-b")).toBe("runtime");
    expect((await userLimits(t, "team-b")).max_global_series_per_user).toBe(300000);
  });

  it("GET /runtime_config -> YAML of the overrides (all limits; ?mode=diff only what differs)", async () => {
    const all = await t.app.request("/runtime_config");
    expect(all.status).toBe(200);
    expect(all.headers.get("Content-Type")).toContain("yaml");
    const doc = parseYaml(await all.text()) as { overrides: Record<string, Record<string, unknown>> };
    expect(doc.overrides["team-a"]!.ingestion_rate).toBe(350000);
    expect(doc.overrides["team-a"]!.creation_grace_period).toBe("1h");
    expect(doc.overrides["team-a"]!.ruler_max_rules_per_rule_group).toBe(t.config.metrics.limits.ruler_max_rules_per_rule_group);
    const diff = parseYaml(await (await t.app.request("/runtime_config?mode=diff")).text()) as typeof doc;
    expect(diff.overrides["team-a"]).toEqual({ ingestion_rate: 350000, creation_grace_period: "1h" });
    expect(diff.overrides["team-b"]).toEqual({ max_global_series_per_user: 300000 });
  });

  it("a change of the file is picked up within the reload period, without a restart", async () => {
    writeFile(file, "overrides:\n  team-a:\n    ingestion_rate: 1000\n  team-c:\n    ingestion_burst_size: 42\n");
    expect(await waitFor(() => t.limits.of("team-a").ingestion_rate === 1000)).toBe(true);
    expect(t.limits.of("team-a").creation_grace_period).toBe(t.config.metrics.limits.creation_grace_period);
    expect(t.limits.sourceOf("team-b")).toBe("defaults");
    expect((await userLimits(t, "team-c")).ingestion_burst_size).toBe(42);
  });

  it("a bad file keeps the last good overrides and the log says why", async () => {
    writeFile(file, "overrides:\n  team-a:\n    ingestion_rate: 1\n    no_such_limit: 3\n");
    const logged = () => t.logs.some((l) => l.level === "warn" && String(l.err ?? "").includes("overrides.team-a.no_such_limit is not a limit"));
    expect(await waitFor(logged)).toBe(true); 
    expect(t.limits.of("team-a").ingestion_rate).toBe(1000);

    writeFile(file, "overrides:\n  team-a:\n    max_global_series_per_user: 1.5\n");
    expect(await waitFor(() => t.logs.some((l) => String(l.err ?? "").includes("overrides.team-a.max_global_series_per_user: 1.5 is not a valid value")))).toBe(true);
    writeFile(file, "overrides:\n  team-a:\n    creation_grace_period: soon\n");
    expect(await waitFor(() => t.logs.some((l) => String(l.err ?? "").includes('overrides.team-a.creation_grace_period: "soon" is not a valid value')))).toBe(true);
    writeFile(file, "overrides: [not, a, map\n");
    expect(await waitFor(() => t.logs.some((l) => String(l.err ?? "").includes("Flow sequence")))).toBe(true);
    expect(t.logs.filter((l) => l.level === "warn")).toHaveLength(4);
    expect(t.limits.of("team-a").ingestion_rate).toBe(1000);
    expect(t.limits.sourceOf("team-c")).toBe("runtime");

    // the same problem is logged once, not at every reload
    const before = t.logs.length;
    await new Promise((r) => setTimeout(r, 350));
    expect(t.logs.length).toBe(before);

    writeFile(file, "overrides:\n  team-a:\n    ingestion_rate: 2000\n");
    expect(await waitFor(() => t.limits.of("team-a").ingestion_rate === 2000)).toBe(true);
  });

  it("limits changed directly in the database are picked up within the refresh period", async () => {
    await t.admin("POST", BASE, { name: "direct", cluster: t.config.metrics.cluster_name });
    expect(t.limits.sourceOf("direct")).toBe("defaults");
    await t.db.pg.query(`update metrics_tenants set limits = '{"ingestion_rate": 77}'::jsonb, status = 'inactive' where name = 'direct'`);
    expect(await waitFor(() => t.limits.of("direct").ingestion_rate === 77)).toBe(true);
    expect(t.limits.sourceOf("direct")).toBe("admin");
    expect(t.tenants.isInactive("direct")).toBe(true);
    await t.db.pg.query(`delete from metrics_tenants where name = 'direct'`);
    expect(await waitFor(() => t.limits.sourceOf("direct") === "defaults")).toBe(true);
    expect(t.tenants.isInactive("direct")).toBe(false);
  });
});

describe("metrics store limits without a runtime file", () => {
  let t: AdminApp;
  beforeAll(async () => {
    t = await startAdminApp({ "metrics.limits.ingestion_rate": 1234, "metrics.limits.creation_grace_period": "90s" });
  });
  afterAll(async () => {
    await t.close();
  });

  it("every tenant takes the configured defaults; /runtime_config has no overrides", async () => {
    expect(t.limits.sourceOf("x")).toBe("defaults");
    const shown = await userLimits(t, "x");
    expect(shown.ingestion_rate).toBe(1234);
    expect(shown.creation_grace_period).toBe("1m30s");
    expect(parseYaml(await (await t.app.request("/runtime_config")).text())).toEqual({ overrides: {} });
  });

  it("a missing runtime file is logged and no overrides apply", async () => {
    const missing = await startAdminApp({ "metrics.runtime_config_file": join(dir, "absent.yaml") });
    try {
      expect(missing.logs.some((l) => l.level === "warn" && String(l.file).endsWith("absent.yaml"))).toBe(true);
      expect(missing.limits.sourceOf("x")).toBe("defaults");
    } finally {
      await missing.close();
    }
  });
});
