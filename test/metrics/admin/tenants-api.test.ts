// The tenant admin API (/admin/api/v2/tenants): admin authentication,
// validation naming the field, conflicts, backfilled limits, full-replacement
// PUT, DELETE, and the tenant gate.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatDuration } from "../../../src/lib/units.ts";
import { adminAuth, startAdminApp, type AdminApp } from "./helpers.ts";

const BASE = "/admin/api/v2/tenants";

describe("metrics store tenant admin API", () => {
  let t: AdminApp;
  beforeAll(async () => {
    t = await startAdminApp();
  });
  afterAll(async () => {
    await t.close();
  });
  const cluster = () => t.config.metrics.cluster_name;
  const defaults = () => t.limits.defaults;

  describe("authentication", () => {
    const get = (headers: Record<string, string>) => t.app.request(BASE, { headers });
    it("GET without credentials -> 401 with a Basic challenge", async () => {
      const r = await get({});
      expect(r.status).toBe(401);
      expect(r.headers.get("WWW-Authenticate")).toMatch(/^Basic realm="/);
      expect(r.headers.get("Content-Type")).toContain("text/plain");
    });
    it("GET with a wrong token -> 401", async () => {
      const r = await get({ Authorization: adminAuth("", "wrong") });
      expect(r.status).toBe(401);
      expect(r.headers.get("WWW-Authenticate")).toMatch(/^Basic realm="/);
      expect(await r.text()).toBe("invalid admin token\n");
    });
    it("GET with the right token but a user name -> 401", async () => {
      const r = await get({ Authorization: adminAuth("admin") });
      expect(r.status).toBe(401);
      expect(await r.text()).toContain("user name must be empty");
    });
    it("GET with another scheme or a broken header -> 401", async () => {
      expect((await get({ Authorization: `Bearer x` })).status).toBe(401);
      expect((await get({ Authorization: `Basic !!!` })).status).toBe(401);
      expect((await get({ Authorization: `Basic ${btoa("no-colon")}` })).status).toBe(401);
    });
    it("every route needs the credentials", async () => {
      for (const [method, path] of [["POST", BASE], ["GET", `${BASE}/x`], ["PUT", `${BASE}/x`], ["DELETE", `${BASE}/x`]] as const) {
        const r = await t.app.request(path, { method, body: method === "POST" || method === "PUT" ? "{}" : undefined });
        expect(r.status, `${method} ${path}`).toBe(401);
      }
    });
    it("GET with the right token -> 200 {items, type: tenant}", async () => {
      const r = await get({ Authorization: adminAuth() });
      expect(r.status).toBe(200);
      const body = (await r.json()) as { items: unknown[]; type: string };
      expect(body.type).toBe("tenant");
      expect(Array.isArray(body.items)).toBe(true);
    });
  });

  describe("create and read", () => {
    it("POST a tenant -> 200 with status active, no limits; GET shows it", async () => {
      const r = await t.admin("POST", BASE, { name: "dev", display_name: "Dev", cluster: cluster() });
      expect(r.status).toBe(200);
      const created = (await r.json()) as Record<string, unknown>;
      expect(created.name).toBe("dev");
      expect(created.display_name).toBe("Dev");
      expect(created.status).toBe("active");
      expect(created.cluster).toBe(cluster());
      expect("limits" in created).toBe(false);
      expect(String(created.created_at)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      const g = await t.admin("GET", `${BASE}/dev`);
      expect(g.status).toBe(200);
      expect(await g.json()).toEqual(created);
    });

    it("POST with one limit -> every limit shown, the others the global defaults", async () => {
      const r = await t.admin("POST", BASE, { name: "one-limit", cluster: cluster(), limits: { ingestion_rate: 1.5 } });
      expect(r.status).toBe(200);
      const body = (await r.json()) as { display_name: string; limits: Record<string, number> };
      expect(body.display_name).toBe("");
      const d = defaults();
      expect(body.limits).toEqual({
        ingestion_rate: 1.5,
        ingestion_burst_size: d.ingestion_burst_size,
        max_series_per_query: d.max_series_per_query,
        max_global_series_per_user: d.max_global_series_per_user,
        max_global_series_per_metric: d.max_global_series_per_metric,
        max_fetched_chunk_bytes_per_query: d.max_fetched_chunk_bytes_per_query,
        ruler_max_rules_per_rule_group: d.ruler_max_rules_per_rule_group,
        ruler_max_rule_groups_per_tenant: d.ruler_max_rule_groups_per_tenant,
        // a duration text, as GEM shows it: the default is metrics.retention_period
        compactor_blocks_retention_period: formatDuration(t.config.metrics.retention_period),
      });
      expect(((await (await t.admin("GET", `${BASE}/one-limit`)).json()) as { limits: unknown }).limits).toEqual(body.limits);
    });

    it("POST a name that exists -> 409", async () => {
      await t.admin("POST", BASE, { name: "twice", cluster: cluster() });
      const r = await t.admin("POST", BASE, { name: "twice", cluster: cluster() });
      expect(r.status).toBe(409);
      expect(await r.text()).toContain('tenant "twice" already exists');
    });

    it("GET, PUT, DELETE of an unknown tenant -> 404", async () => {
      expect((await t.admin("GET", `${BASE}/nobody`)).status).toBe(404);
      expect((await t.admin("PUT", `${BASE}/nobody`, { cluster: cluster() })).status).toBe(404);
      const d = await t.admin("DELETE", `${BASE}/nobody`);
      expect(d.status).toBe(404);
      expect(await d.text()).toContain('tenant "nobody" not found');
    });

    it("GET the list -> the tenants, sorted by name", async () => {
      const body = (await (await t.admin("GET", BASE)).json()) as { items: Array<{ name: string }> };
      const names = body.items.map((i) => i.name);
      expect(names).toContain("dev");
      expect(names).toEqual([...names].sort());
    });
  });

  describe("validation", () => {
    const post = async (body: unknown) => {
      const r = await t.admin("POST", BASE, body);
      return { status: r.status, text: await r.text() };
    };
    const cases: Array<[string, unknown, string]> = [
      ["invalid JSON", "{not json", "not valid JSON"],
      ["a body that is not an object", [1], "the body must be a JSON object"],
      ["no name", { cluster: "outpost" }, "name is required"],
      ["an empty name", { name: "", cluster: "outpost" }, "name must not be empty"],
      ["a name that is not a string", { name: 5, cluster: "outpost" }, "name must be a string"],
      ["a name with a bad character", { name: "a b", cluster: "outpost" }, "name: tenant ID 'a b' contains unsupported character ' '"],
      ["a name too long", { name: "x".repeat(151), cluster: "outpost" }, "name: tenant ID is too long"],
      ["the name ..", { name: "..", cluster: "outpost" }, "name: tenant ID is '.' or '..'"],
      ["display_name not a string", { name: "v1", cluster: "outpost", display_name: 3 }, "display_name must be a string"],
      ["status unknown", { name: "v2", cluster: "outpost", status: "unknown" }, "status must be one of active, inactive"],
      ["status not a string", { name: "v3", cluster: "outpost", status: true }, "status must be one of active, inactive"],
      ["no cluster", { name: "v4" }, "cluster is required"],
      ["another cluster", { name: "v5", cluster: "elsewhere" }, 'cluster "elsewhere" is not this cluster: this metrics store\'s cluster is "outpost"'],
      ["limits not an object", { name: "v6", cluster: "outpost", limits: [1] }, "limits must be an object"],
      ["an unknown limit", { name: "v7", cluster: "outpost", limits: { max_line_size: 1 } }, "limits.max_line_size is not a limit settable through the admin API"],
      ["a negative limit", { name: "v8", cluster: "outpost", limits: { ingestion_burst_size: -1 } }, "limits.ingestion_burst_size must be a whole number ≥ 0"],
      ["a fractional count", { name: "v9", cluster: "outpost", limits: { max_global_series_per_user: 1.5 } }, "limits.max_global_series_per_user must be a whole number ≥ 0"],
      ["a limit as text", { name: "v10", cluster: "outpost", limits: { ruler_max_rules_per_rule_group: "5" } }, "limits.ruler_max_rules_per_rule_group must be a whole number ≥ 0"],
      ["a negative rate", { name: "v11", cluster: "outpost", limits: { ingestion_rate: -0.5 } }, "limits.ingestion_rate must be a number ≥ 0"],
      ["a retention as a number", { name: "v13", cluster: "outpost", limits: { compactor_blocks_retention_period: 86400 } }, "limits.compactor_blocks_retention_period must be a duration such as 0s, 744h or 1y"],
      ["an unknown field", { name: "v12", cluster: "outpost", owner: "me" }, 'unknown field "owner"'],
    ];
    for (const [what, body, message] of cases) {
      it(`POST with ${what} -> 400 naming it`, async () => {
        const r = await post(body);
        expect(r.status).toBe(400);
        expect(r.text).toContain(message);
      });
    }
    it("nothing was created by the refused bodies", async () => {
      const body = (await (await t.admin("GET", BASE)).json()) as { items: Array<{ name: string }> };
      expect(body.items.map((i) => i.name).filter((n) => /^v\d+$/.test(n))).toEqual([]);
    });
    it("PUT that renames -> 400; PUT with another cluster -> 400", async () => {
      await t.admin("POST", BASE, { name: "fixed", cluster: cluster() });
      const r = await t.admin("PUT", `${BASE}/fixed`, { name: "other", cluster: cluster() });
      expect(r.status).toBe(400);
      expect(await r.text()).toContain("name cannot be changed");
      expect((await t.admin("PUT", `${BASE}/fixed`, { cluster: "nope" })).status).toBe(400);
    });
    it("a body sent back from GET (name, created_at) is accepted by PUT", async () => {
      const got = (await (await t.admin("GET", `${BASE}/fixed`)).json()) as Record<string, unknown>;
      const r = await t.admin("PUT", `${BASE}/fixed`, { ...got, display_name: "Fixed" });
      expect(r.status).toBe(200);
      const body = (await r.json()) as Record<string, unknown>;
      expect(body.display_name).toBe("Fixed");
      expect(body.created_at).toBe(got.created_at);
    });
  });

  describe("update, limits and delete", () => {
    it("PUT replaces every field; without limits the tenant has none and the defaults apply", async () => {
      await t.admin("POST", BASE, { name: "team-a", display_name: "A", cluster: cluster(), limits: { max_global_series_per_user: 10000 } });
      expect(t.limits.sourceOf("team-a")).toBe("admin");
      expect(t.limits.of("team-a").max_global_series_per_user).toBe(10000);

      const put = await t.admin("PUT", `${BASE}/team-a`, { display_name: "Team A", status: "active", cluster: cluster(), limits: { ingestion_burst_size: 7 } });
      expect(put.status).toBe(200);
      const limits = ((await put.json()) as { limits: Record<string, number> }).limits;
      expect(limits.ingestion_burst_size).toBe(7);
      expect(limits.max_global_series_per_user).toBe(defaults().max_global_series_per_user);
      expect(t.limits.of("team-a").ingestion_burst_size).toBe(7);

      const cleared = await t.admin("PUT", `${BASE}/team-a`, { display_name: "Team A", cluster: cluster() });
      expect(cleared.status).toBe(200);
      expect("limits" in ((await cleared.json()) as object)).toBe(false);
      const got = (await (await t.admin("GET", `${BASE}/team-a`)).json()) as Record<string, unknown>;
      expect("limits" in got).toBe(false);
      expect(got.display_name).toBe("Team A");
      expect(t.limits.sourceOf("team-a")).toBe("defaults");
      const user = await t.app.request("/api/v1/user_limits", { headers: { "X-Scope-OrgID": "team-a" } });
      expect(((await user.json()) as Record<string, unknown>).max_global_series_per_user).toBe(defaults().max_global_series_per_user);
    });

    it("a tenant set inactive is refused by the gate; active again, it is not", async () => {
      await t.admin("POST", BASE, { name: "sleepy", cluster: cluster(), status: "inactive" });
      expect(t.tenants.isInactive("sleepy")).toBe(true);
      const r = await t.app.request("/api/v1/user_limits", { headers: { "X-Scope-OrgID": "sleepy" } });
      expect(r.status).toBe(403);
      expect(await r.text()).toBe("tenant sleepy is inactive\n");
      await t.admin("PUT", `${BASE}/sleepy`, { cluster: cluster(), status: "active" });
      expect(t.tenants.isInactive("sleepy")).toBe(false);
      expect(t.tenants.isInactive("never-created")).toBe(false);
    });

    it("DELETE -> 204; the tenant and its admin limits are gone", async () => {
      await t.admin("POST", BASE, { name: "gone", cluster: cluster(), status: "inactive", limits: { ingestion_rate: 3 } });
      expect(t.limits.sourceOf("gone")).toBe("admin");
      const r = await t.admin("DELETE", `${BASE}/gone`);
      expect(r.status).toBe(204);
      expect((await t.admin("GET", `${BASE}/gone`)).status).toBe(404);
      expect(t.limits.sourceOf("gone")).toBe("defaults");
      expect(t.tenants.isInactive("gone")).toBe(false);
      expect((await t.admin("POST", BASE, { name: "gone", cluster: cluster() })).status).toBe(200);
    });
  });
});
