// The ruler's configuration API as Mimir answers it (reference §9 and
// conformance checks 109-122): YAML in and out, 202 bodies, plain-text
// errors, validation messages, legacy paths, percent-decoded segments.
import { describe, expect, it } from "vitest";
import { ACCEPTED, startRuler, useRuler } from "./harness.ts";

const ctx = useRuler();

const G1 = "name: g1\nrules:\n  - record: r:up\n    expr: sum(up)\n";

describe("Mimir ruler conformance (109-122)", () => {
  it("109 POST /prometheus/config/v1/rules/ns1 -> 202 with the exact success body", async () => {
    const res = await ctx.h.request("POST", "/prometheus/config/v1/rules/ns1", "t1", G1);
    expect(res.status).toBe(202);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.text()).toBe(ACCEPTED);
  });

  it("110 GET .../rules/ns1/g1 -> 200 YAML with the rules indented by 4 spaces", async () => {
    const res = await ctx.h.request("GET", "/prometheus/config/v1/rules/ns1/g1", "t1");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/yaml");
    const text = await res.text();
    expect(text).toContain("name: g1");
    expect(text).toContain("rules:\n    - record: r:up");
    expect(text).toBe("name: g1\nrules:\n    - record: r:up\n      expr: sum(up)\n");
  });

  it("111 GET .../rules/ns1/nope -> 404 group does not exist", async () => {
    const res = await ctx.h.request("GET", "/prometheus/config/v1/rules/ns1/nope", "t1");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(await res.text()).toBe("group does not exist\n");
  });

  it("112 GET /prometheus/config/v1/rules for a fresh tenant -> 200 {}", async () => {
    const res = await ctx.h.request("GET", "/prometheus/config/v1/rules", "fresh-tenant");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/yaml");
    expect(await res.text()).toBe("{}\n");
  });

  it("113 POST an empty body -> 400 rule group name must not be empty", async () => {
    const res = await ctx.h.request("POST", "/prometheus/config/v1/rules/ns1", "t1", "");
    expect(res.status).toBe(400);
    expect(await res.text()).toBe("invalid rules configuration: rule group name must not be empty\n");
  });

  it("114 POST a group without rules -> 400 rule group 'g2' has no rules", async () => {
    const res = await ctx.h.request("POST", "/prometheus/config/v1/rules/ns1", "t1", "name: g2\n");
    expect(res.status).toBe(400);
    expect(await res.text()).toBe("invalid rules configuration: rule group 'g2' has no rules\n");
  });

  it("115 POST ::: -> 400 unable to decode rule group", async () => {
    const res = await ctx.h.request("POST", "/prometheus/config/v1/rules/ns1", "t1", ":::");
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(await res.text()).toBe("unable to decode rule group\n");
  });

  it("116 POST expr: up{ -> 400 could not parse expression", async () => {
    const res = await ctx.h.request("POST", "/prometheus/config/v1/rules/ns1", "t1", "name: g3\nrules:\n  - record: r:x\n    expr: up{\n");
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text).toContain("could not parse expression");
    expect(text).toBe('4:11: group "g3", rule 0, "r:x": could not parse expression: 1:4: parse error: unexpected end of input inside braces\n');
  });

  it("119 DELETE .../rules/ns1/g1 -> 202, then 404 group does not exist", async () => {
    const first = await ctx.h.request("DELETE", "/prometheus/config/v1/rules/ns1/g1", "t1");
    expect(first.status).toBe(202);
    expect(first.headers.get("content-type")).toBe("application/json");
    expect(await first.text()).toBe(ACCEPTED);
    const second = await ctx.h.request("DELETE", "/prometheus/config/v1/rules/ns1/g1", "t1");
    expect(second.status).toBe(404);
    expect(await second.text()).toBe("group does not exist\n");
  });

  it("120 DELETE /prometheus/config/v1/rules/ns-missing -> 404 group namespace does not exist", async () => {
    const res = await ctx.h.request("DELETE", "/prometheus/config/v1/rules/ns-missing", "t1");
    expect(res.status).toBe(404);
    expect(await res.text()).toBe("group namespace does not exist\n");
  });

  it("121 GET /prometheus/api/v1/rules -> 200 success with groups; ?type=foo -> 400 bad_data", async () => {
    const res = await ctx.h.request("GET", "/prometheus/api/v1/rules", "t1");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    const body = await res.json();
    expect(body.status).toBe("success");
    expect(Array.isArray(body.data.groups)).toBe(true);
    const bad = await ctx.h.request("GET", "/prometheus/api/v1/rules?type=foo", "t1");
    expect(bad.status).toBe(400);
    expect(bad.headers.get("content-type")).toBe("application/json");
    expect(await bad.json()).toEqual({ status: "error", data: null, errorType: "bad_data", error: 'not supported value "foo"' });
  });

  it("122 GET /prometheus/api/v1/alerts -> 200 with data.alerts an array", async () => {
    const res = await ctx.h.request("GET", "/prometheus/api/v1/alerts", "t1");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "success", data: { alerts: [] }, errorType: "", error: "" });
  });
});

describe("listing and replacing groups", () => {
  it("GET .../rules lists every namespace with its groups, GET .../rules/{ns} one namespace", async () => {
    const t = "lister";
    expect((await ctx.h.request("POST", "/prometheus/config/v1/rules/ns2", t, "name: b\nrules:\n  - record: r:b\n    expr: sum(b)\n")).status).toBe(202);
    expect((await ctx.h.request("POST", "/prometheus/config/v1/rules/ns10", t, "name: a\ninterval: 90s\nrules:\n  - alert: Down\n    expr: up == 0\n    for: 5m\n    labels:\n      severity: page\n    annotations:\n      summary: '{{ $labels.instance }} is down'\n")).status).toBe(202);
    expect((await ctx.h.request("POST", "/prometheus/config/v1/rules/ns2", t, "name: a\nrules:\n  - record: r:a\n    expr: sum(a)\n")).status).toBe(202);
    const all = await ctx.h.request("GET", "/prometheus/config/v1/rules", t);
    expect(await all.text()).toBe(
      [
        "ns2:",
        "    - name: a",
        "      rules:",
        "        - record: r:a",
        "          expr: sum(a)",
        "    - name: b",
        "      rules:",
        "        - record: r:b",
        "          expr: sum(b)",
        "ns10:",
        "    - name: a",
        "      interval: 1m30s",
        "      rules:",
        "        - alert: Down",
        "          expr: up == 0",
        "          for: 5m",
        "          labels:",
        "            severity: page",
        "          annotations:",
        "            summary: '{{ $labels.instance }} is down'",
        "",
      ].join("\n"),
    );
    const one = await ctx.h.request("GET", "/prometheus/config/v1/rules/ns10", t);
    expect(one.headers.get("content-type")).toBe("application/yaml");
    expect(await one.text()).toMatch(/^ns10:\n    - name: a\n/);
    const none = await ctx.h.request("GET", "/prometheus/config/v1/rules/nothing-here", t);
    expect(none.status).toBe(200);
    expect(await none.text()).toBe("{}\n");
  });

  it("POST of a same-named group replaces it", async () => {
    const t = "replacer";
    await ctx.h.request("POST", "/prometheus/config/v1/rules/ns", t, "name: g\nrules:\n  - record: r:one\n    expr: sum(one)\n");
    await ctx.h.request("POST", "/prometheus/config/v1/rules/ns", t, "name: g\nrules:\n  - record: r:two\n    expr: sum(two)\n");
    const res = await ctx.h.request("GET", "/prometheus/config/v1/rules", t);
    expect(await res.text()).toBe("ns:\n    - name: g\n      rules:\n        - record: r:two\n          expr: sum(two)\n");
  });

  it("DELETE of a namespace removes all of its groups", async () => {
    const t = "ns-deleter";
    await ctx.h.request("POST", "/prometheus/config/v1/rules/keep", t, "name: k\nrules:\n  - record: r:k\n    expr: sum(k)\n");
    await ctx.h.request("POST", "/prometheus/config/v1/rules/gone", t, "name: a\nrules:\n  - record: r:a\n    expr: sum(a)\n");
    await ctx.h.request("POST", "/prometheus/config/v1/rules/gone", t, "name: b\nrules:\n  - record: r:b\n    expr: sum(b)\n");
    const res = await ctx.h.request("DELETE", "/prometheus/config/v1/rules/gone", t);
    expect(res.status).toBe(202);
    expect(await res.text()).toBe(ACCEPTED);
    expect(await (await ctx.h.request("GET", "/prometheus/config/v1/rules", t)).text()).toBe("keep:\n    - name: k\n      rules:\n        - record: r:k\n          expr: sum(k)\n");
    expect((await ctx.h.request("DELETE", "/prometheus/config/v1/rules/gone", t)).status).toBe(404);
  });

  it("groups of one tenant are invisible to another", async () => {
    await ctx.h.request("POST", "/prometheus/config/v1/rules/ns", "owner", G1);
    expect(await (await ctx.h.request("GET", "/prometheus/config/v1/rules", "stranger")).text()).toBe("{}\n");
    expect((await ctx.h.request("GET", "/prometheus/config/v1/rules/ns/g1", "stranger")).status).toBe(404);
  });
});

describe("paths", () => {
  it("the legacy /api/v1/rules paths serve the same configuration API", async () => {
    const t = "legacy";
    const post = await ctx.h.request("POST", "/api/v1/rules/ns1", t, G1);
    expect(post.status).toBe(202);
    expect(await post.text()).toBe(ACCEPTED);
    const list = await ctx.h.request("GET", "/api/v1/rules", t);
    expect(list.headers.get("content-type")).toBe("application/yaml");
    expect(await list.text()).toBe("ns1:\n    - name: g1\n      rules:\n        - record: r:up\n          expr: sum(up)\n");
    expect(await (await ctx.h.request("GET", "/api/v1/rules/ns1", t)).text()).toMatch(/^ns1:\n/);
    expect(await (await ctx.h.request("GET", "/api/v1/rules/ns1/g1", t)).text()).toBe("name: g1\nrules:\n    - record: r:up\n      expr: sum(up)\n");
    expect(await (await ctx.h.request("GET", "/prometheus/config/v1/rules/ns1/g1", t)).text()).toContain("name: g1");
    const missing = await ctx.h.request("GET", "/api/v1/rules/ns1/nope", t);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toBe("group does not exist\n");
    expect((await ctx.h.request("DELETE", "/api/v1/rules/ns1/g1", t)).status).toBe(202);
    expect(await (await ctx.h.request("DELETE", "/api/v1/rules/ns1", t)).text()).toBe("group namespace does not exist\n");
  });

  it("namespace and group segments are percent-decoded (%2F is /)", async () => {
    const t = "decoder";
    expect((await ctx.h.request("POST", "/prometheus/config/v1/rules/team%2Fapi", t, "name: my group\nrules:\n  - record: r:x\n    expr: sum(x)\n")).status).toBe(202);
    expect(await (await ctx.h.request("GET", "/prometheus/config/v1/rules", t)).text()).toMatch(/^team\/api:\n    - name: my group\n/);
    const one = await ctx.h.request("GET", "/prometheus/config/v1/rules/team%2Fapi/my%20group", t);
    expect(one.status).toBe(200);
    expect(await one.text()).toContain("name: my group");
    const status = await (await ctx.h.request("GET", "/prometheus/api/v1/rules", t)).json();
    expect(status.data.groups[0].file).toBe("team/api");
    expect((await ctx.h.request("DELETE", "/prometheus/config/v1/rules/team%2Fapi/my%20group", t)).status).toBe(202);
  });

  it("every route needs X-Scope-OrgID: 401 no org id", async () => {
    for (const [method, path] of [
      ["GET", "/prometheus/config/v1/rules"],
      ["POST", "/prometheus/config/v1/rules/ns1"],
      ["DELETE", "/api/v1/rules/ns1/g1"],
      ["GET", "/prometheus/api/v1/rules"],
      ["GET", "/prometheus/api/v1/alerts"],
    ] as const) {
      const res = await ctx.h.request(method, path, undefined, method === "POST" ? G1 : undefined);
      expect(res.status).toBe(401);
      expect(await res.text()).toBe("no org id\n");
    }
  });
});

describe("validation", () => {
  const post = async (body: string) => {
    const res = await ctx.h.request("POST", "/prometheus/config/v1/rules/v", "validator", body);
    return { status: res.status, text: await res.text() };
  };

  it("undecodable bodies -> 400 unable to decode rule group", async () => {
    for (const body of ["- a list", "just text", "name: g\nrules: notalist\n", "name: g\nunknown: 1\nrules:\n  - record: r\n    expr: up\n", "name: g\nrules:\n  - record: r\n    expr: up\n    extra: x\n", "name: g\ninterval: 1.5m\nrules:\n  - record: r\n    expr: up\n", "name: g\nrules:\n  - alert: A\n    expr: up\n    for: soon\n", "name: [a", "name: a\nname: b\n"]) {
      expect(await post(body)).toEqual({ status: 400, text: "unable to decode rule group\n" });
    }
  });

  it("rule problems are rulefmt errors with positions, joined by comma", async () => {
    const body = [
      "name: g",
      "rules:",
      "  - alert: A",
      "    record: b",
      "    expr: up",
      "  - labels:",
      "      x: y",
      "  - record: bad-name",
      "    expr: up",
      "    for: 1m",
      "    annotations:",
      "      a: b",
      "  - alert: B",
      "    expr: up",
      "    labels:",
      "      __name__: x",
      "      bad-label: x",
      "    annotations:",
      "      summary: '{{ nosuchfunc }}'",
      "",
    ].join("\n");
    expect(await post(body)).toEqual({
      status: 400,
      text:
        [
          '4:13: 3:12: group "g", rule 0, "A": only one of \'record\' and \'alert\' must be set',
          '0:0: 0:0: group "g", rule 1, "": one of \'record\' or \'alert\' must be set',
          '0:0: group "g", rule 1, "": field \'expr\' must be set in rule',
          '8:13: group "g", rule 2, "bad-name": invalid field \'annotations\' in recording rule',
          '8:13: group "g", rule 2, "bad-name": invalid field \'for\' in recording rule',
          '8:13: group "g", rule 2, "bad-name": invalid recording rule name: bad-name',
          'group "g", rule 3, "B": invalid label name: __name__',
          'group "g", rule 3, "B": invalid label name: bad-label',
          'group "g", rule 3, "B": annotation "summary": template: __alert_B:1: function "nosuchfunc" not defined',
        ].join(", ") + "\n",
    });
  });

  it("federated groups (source_tenants) are refused: tenant federation is off", async () => {
    expect(await post("name: fed\nsource_tenants: [a, b]\nrules:\n  - record: r:x\n    expr: sum(x)\n")).toEqual({
      status: 400,
      text: "invalid rules configuration: rule group 'fed' is a federated rule group, but rules federation is disabled; please contact your service administrator to have it enabled\n",
    });
  });

  it("a rejected group is not stored", async () => {
    expect(await (await ctx.h.request("GET", "/prometheus/config/v1/rules", "validator")).text()).toBe("{}\n");
  });

  it("YAML output quotes what yaml.v3 quotes and keeps multi-line expressions as literal blocks", async () => {
    const body = [
      "name: quoting",
      "interval: 60s",
      "rules:",
      "  - alert: HighLatency",
      "    expr: |",
      "      histogram_quantile(0.99, rate(x[5m]))",
      "        > 0.5",
      "    for: 10m",
      "    keep_firing_for: 2h",
      "    labels:",
      "      severity: 'yes'",
      "      code: '500'",
      "    annotations:",
      "      summary: 'latency: {{ $value }}'",
      '      runbook: "https://example.com/#a"',
      "",
    ].join("\n");
    expect((await ctx.h.request("POST", "/prometheus/config/v1/rules/q", "quoter", body)).status).toBe(202);
    expect(await (await ctx.h.request("GET", "/prometheus/config/v1/rules/q/quoting", "quoter")).text()).toBe(
      [
        "name: quoting",
        "interval: 1m",
        "rules:",
        "    - alert: HighLatency",
        "      expr: |",
        "        histogram_quantile(0.99, rate(x[5m]))",
        "          > 0.5",
        "      for: 10m",
        "      keep_firing_for: 2h",
        "      labels:",
        '        code: "500"',
        '        severity: "yes"',
        "      annotations:",
        "        runbook: https://example.com/#a",
        "        summary: 'latency: {{ $value }}'",
        "",
      ].join("\n"),
    );
  });
});
