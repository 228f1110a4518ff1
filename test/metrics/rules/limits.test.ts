// The ruler limits (reference §8 "Ruler limits", checks 117-118): rules per
// group and groups per tenant, checked on POST, 400 plain text with Mimir's
// messages; 0 turns a limit off; a replaced group is not counted twice.
import { describe, expect, it } from "vitest";
import { ACCEPTED, groupOf, startRuler, useRuler } from "./harness.ts";

const ctx = useRuler();

const post = async (tenant: string, namespace: string, body: string) => {
  const res = await ctx.h.request("POST", `/prometheus/config/v1/rules/${namespace}`, tenant, body);
  return { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
};

describe("ruler_max_rules_per_rule_group", () => {
  it("117 POST a group of 21 rules (limit 20) -> 400", async () => {
    expect(await post("rules-limit", "ns1", groupOf("big", 21))).toEqual({
      status: 400,
      type: "text/plain; charset=utf-8",
      text: "per-user rules per rule group limit (limit: 20 actual: 21) exceeded\n",
    });
    expect((await post("rules-limit", "ns1", groupOf("ok", 20))).status).toBe(202);
  });

  it("a tenant's own limit applies; 0 turns it off", async () => {
    ctx.h.limits.set("small-rules", { ruler_max_rules_per_rule_group: 2 });
    expect((await post("small-rules", "ns", groupOf("two", 2))).status).toBe(202);
    expect((await post("small-rules", "ns", groupOf("three", 3))).text).toBe("per-user rules per rule group limit (limit: 2 actual: 3) exceeded\n");
    ctx.h.limits.set("no-rules-limit", { ruler_max_rules_per_rule_group: 0 });
    expect((await post("no-rules-limit", "ns", groupOf("many", 50))).status).toBe(202);
  });

  it("validation errors come before the limit", async () => {
    ctx.h.limits.set("order", { ruler_max_rules_per_rule_group: 1 });
    const body = "name: g\nrules:\n  - record: r:a\n    expr: up{\n  - record: r:b\n    expr: up\n";
    expect((await post("order", "ns", body)).text).toContain("could not parse expression");
  });
});

describe("ruler_max_rule_groups_per_tenant", () => {
  it("118 with 70 groups existing, POST a 71st -> 400", async () => {
    const t = "groups-limit";
    // spread over namespaces: the count is across all of them
    for (let i = 0; i < 70; i++) expect((await post(t, `ns${i % 3}`, groupOf(`g${i}`, 1))).status).toBe(202);
    expect(await post(t, "ns-other", groupOf("g70", 1))).toEqual({
      status: 400,
      type: "text/plain; charset=utf-8",
      text: "per-user rule groups limit (limit: 70 actual: 71) exceeded\n",
    });
    expect(await (await ctx.h.request("GET", "/prometheus/config/v1/rules/ns-other", t)).text()).toBe("{}\n");
  });

  it("replacing an existing group at the limit is allowed (not counted twice)", async () => {
    const t = "groups-limit";
    const res = await post(t, "ns0", "name: g0\nrules:\n  - record: r:replaced\n    expr: sum(x)\n");
    expect(res).toEqual({ status: 202, type: "application/json", text: ACCEPTED });
    expect(await (await ctx.h.request("GET", "/prometheus/config/v1/rules/ns0/g0", t)).text()).toContain("r:replaced");
    // the same name in another namespace is another group
    expect((await post(t, "ns1", groupOf("g0", 1))).text).toBe("per-user rule groups limit (limit: 70 actual: 71) exceeded\n");
  });

  it("a deleted group frees its place", async () => {
    const t = "groups-limit";
    expect((await ctx.h.request("DELETE", "/prometheus/config/v1/rules/ns0/g0", t)).status).toBe(202);
    expect((await post(t, "ns-other", groupOf("g70", 1))).status).toBe(202);
  });

  it("small custom limits, and 0 turns the limit off", async () => {
    ctx.h.limits.set("two-groups", { ruler_max_rule_groups_per_tenant: 2 });
    expect((await post("two-groups", "a", groupOf("g1", 1))).status).toBe(202);
    expect((await post("two-groups", "b", groupOf("g2", 1))).status).toBe(202);
    expect((await post("two-groups", "b", groupOf("g2", 3))).status).toBe(202);
    expect((await post("two-groups", "c", groupOf("g3", 1))).text).toBe("per-user rule groups limit (limit: 2 actual: 3) exceeded\n");
    ctx.h.limits.set("two-groups", { ruler_max_rule_groups_per_tenant: 0 });
    expect((await post("two-groups", "c", groupOf("g3", 1))).status).toBe(202);
  });

  it("a limit lowered below the tenant's groups counts them all", async () => {
    ctx.h.limits.set("lowered", { ruler_max_rule_groups_per_tenant: 0 });
    for (const g of ["a", "b", "c"]) await post("lowered", "ns", groupOf(g, 1));
    ctx.h.limits.set("lowered", { ruler_max_rule_groups_per_tenant: 1 });
    expect((await post("lowered", "ns", groupOf("a", 1))).text).toBe("per-user rule groups limit (limit: 1 actual: 3) exceeded\n");
  });

  it("concurrent POSTs cannot overshoot the limit", async () => {
    ctx.h.limits.set("racer", { ruler_max_rule_groups_per_tenant: 3 });
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => post("racer", "ns", groupOf(`g${i}`, 1))));
    expect(results.filter((r) => r.status === 202)).toHaveLength(3);
    expect(results.filter((r) => r.status === 400)).toHaveLength(5);
  });
});
