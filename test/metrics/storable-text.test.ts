// Issue 16 #15, metrics store: text PostgreSQL cannot hold (U+0000, unpaired
// surrogates / invalid UTF-8) in remote-write labels, rule groups and the
// tenant admin API is a 400 naming the field, never a 500 from PGlite.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { metricsClient } from "./helpers.ts";

describe("metrics store: text the database cannot hold -> 400 (issue 16 #15)", () => {
  const ctx = {} as { server: TestServer };
  beforeAll(async () => {
    ctx.server = await startTestServer({ "metrics.admin_token": "st-admin-token" });
  }, 120_000);
  afterAll(async () => {
    await ctx.server?.stop();
  }, 60_000);
  const m = () => metricsClient(ctx.server.urls.metrics!);
  const now = () => Date.now();

  it("remote write: a NUL or an unpaired surrogate (invalid UTF-8 on the wire) in a label value -> 400 label_value_invalid; valid series stored", async () => {
    for (const value of ["a\u0000b", "a\udc00", "\ud800"]) {
      const r = await m().push("st", [
        { labels: { __name__: "bad_text", job: value }, samples: [[now(), 1]] },
        { labels: { __name__: "good_text", job: "ok" }, samples: [[now(), 1]] },
      ]);
      expect({ value, status: r.status }).toEqual({ value, status: 400 });
      expect(r.text).toContain("received a series with invalid value in label 'job': ");
      expect(r.text).toContain("(err-mimir-label-value-invalid)");
    }
    const q = await m().query("st", "good_text");
    expect(q.status).toBe(200);
    expect(q.body.data.result).toHaveLength(1);
    expect((await m().query("st", "count(bad_text)")).body.data.result).toEqual([]);
  });

  it("rule groups with NUL or lone-surrogate escapes in names, labels or annotations -> 400 naming the field", async () => {
    const post = (ns: string, yaml: string) =>
      m().raw(`/prometheus/config/v1/rules/${ns}`, { method: "POST", tenant: "st", headers: { "Content-Type": "application/yaml" }, body: yaml });
    const cases = [
      'name: "g\\u0000"\nrules:\n  - record: r:up\n    expr: sum(up)\n',
      'name: g1\nrules:\n  - record: r:up\n    expr: sum(up)\n    labels:\n      team: "a\\udc00"\n',
      'name: g1\nrules:\n  - alert: A\n    expr: up == 0\n    annotations:\n      summary: "x\\u0000y"\n',
      'name: g1\nrules:\n  - alert: A\n    expr: up == 0\n    labels:\n      "t\\u0000": "v"\n',
    ];
    for (const yaml of cases) {
      const r = await post("ns1", yaml);
      expect({ yaml, status: r.status }).toEqual({ yaml, status: 400 });
      expect(r.text).toMatch(/^(unable to decode rule group|group "g1", rule 0, "[^"]+": invalid label (name|value))/);
    }
    // a namespace whose percent-encoding is not UTF-8 is kept as written (never a database error)
    const ns = await post("ns%ED%B0%80", 'name: g1\nrules:\n  - record: r:up\n    expr: sum(up)\n');
    expect(ns.status).toBe(202);
    expect((await m().raw("/prometheus/config/v1/rules", { tenant: "st" })).status).toBe(200);
    // the ruler still works
    expect((await post("ns1", "name: g1\nrules:\n  - record: r:up\n    expr: sum(up)\n")).status).toBe(202);
  });

  it("the tenant admin API: NUL or a lone-surrogate escape in any JSON field -> 400 before the database", async () => {
    const auth = `Basic ${btoa(":st-admin-token")}`;
    for (const body of ['{"name":"n1","display_name":"a\\u0000b"}', '{"name":"n2","display_name":"a\\udc00"}', '{"name":"n\\u0000"}']) {
      const r = await m().raw("/admin/api/v2/tenants", { method: "POST", headers: { Authorization: auth, "Content-Type": "application/json" }, body });
      expect({ body, status: r.status }).toEqual({ body, status: 400 });
    }
  });
});
