// Both stores in tokens mode (issue 22): every route family allowed with its
// scope and refused without it, the tenant from the credentials, mismatches,
// several tenants, endpoints that show every tenant, revocation at once,
// usage per token, and the secret never kept nor shown again.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { writeBody } from "../metrics/helpers.ts";
import { gauge as otlpGauge, request as otlpRequest } from "../metrics/otlp-helpers.ts";
import { useServer } from "../helpers/server.ts";
import { ADMIN_TOKEN, adminApi, answer, basic, type Answer } from "./helpers.ts";

const ctx = useServer({
  "logs.auth.type": "tokens",
  "metrics.auth.type": "tokens",
  "metrics.admin_token": ADMIN_TOKEN,
  "logs.multi_tenant_queries_enabled": true,
});

const SCOPES = ["logs:write", "logs:read", "metrics:write", "metrics:read", "rules:read", "rules:write", "alerts:read"] as const;
type Scope = (typeof SCOPES)[number];

/** one token per scope, for tenant a; made once */
const tokens = {} as Record<Scope | "all-reader" | "a-and-b" | "only-b" | "a-writer", string>;
let made: Promise<void> | undefined;
function setup(): Promise<void> {
  made ??= (async () => {
    const admin = adminApi(ctx.server.urls.metrics!);
    for (const scope of SCOPES) {
      const name = `only-${scope.replace(":", "-")}`;
      await admin.policy(name, ["a"], [scope]);
      tokens[scope] = await admin.token(name, name);
    }
    await admin.policy("all-reader", ["*"], ["logs:read", "metrics:read"]);
    tokens["all-reader"] = await admin.token("all-reader", "all-reader");
    await admin.policy("a-and-b", ["a", "b"], ["logs:read", "metrics:read"]);
    tokens["a-and-b"] = await admin.token("a-and-b", "a-and-b");
    await admin.policy("only-b", ["b"], [...SCOPES]);
    tokens["only-b"] = await admin.token("only-b", "only-b");
    await admin.policy("a-writer", ["a"], ["logs:write", "metrics:write", "logs:read", "metrics:read"]);
    tokens["a-writer"] = await admin.token("a-writer", "a-writer");
  })();
  return made;
}

const nowNs = () => String(BigInt(Date.now()) * 1_000_000n);
const logPush = () => JSON.stringify({ streams: [{ stream: { app: "x" }, values: [[nowNs(), "hello"]] }] });
const RULE_GROUP = "name: g1\nrules:\n  - record: r1\n    expr: vector(1)\n";

interface RouteCase {
  name: string;
  store: "logs" | "metrics";
  method: string;
  path: string;
  scope: Scope;
  body?: () => string | Uint8Array<ArrayBuffer>;
  headers?: Record<string, string>;
}

const ROUTES: RouteCase[] = [
  { name: "log push", store: "logs", method: "POST", path: "/loki/api/v1/push", scope: "logs:write", body: logPush, headers: { "Content-Type": "application/json" } },
  { name: "log push (svc path)", store: "logs", method: "POST", path: "/svc/api/v1/push", scope: "logs:write", body: logPush, headers: { "Content-Type": "application/json" } },
  { name: "log query_range", store: "logs", method: "GET", path: '/loki/api/v1/query_range?query={app="x"}', scope: "logs:read" },
  { name: "log instant query", store: "logs", method: "GET", path: '/loki/api/v1/query?query=count_over_time({app="x"}[1m])', scope: "logs:read" },
  { name: "log labels", store: "logs", method: "GET", path: "/loki/api/v1/labels", scope: "logs:read" },
  { name: "log label values", store: "logs", method: "GET", path: "/loki/api/v1/label/app/values", scope: "logs:read" },
  { name: "log series", store: "logs", method: "GET", path: '/loki/api/v1/series?match[]={app="x"}', scope: "logs:read" },
  { name: "log index stats", store: "logs", method: "GET", path: '/loki/api/v1/index/stats?query={app="x"}', scope: "logs:read" },
  {
    name: "remote write",
    store: "metrics",
    method: "POST",
    path: "/api/v1/push",
    scope: "metrics:write",
    body: () => writeBody([{ labels: { __name__: "m", job: "j" }, samples: [[Date.now(), 1]] }]),
    headers: { "Content-Type": "application/x-protobuf", "Content-Encoding": "snappy" },
  },
  {
    name: "OTLP metrics",
    store: "metrics",
    method: "POST",
    path: "/otlp/v1/metrics",
    scope: "metrics:write",
    body: () => JSON.stringify(otlpRequest({ "service.name": "t" }, [otlpGauge("m", "", [{ t: Date.now(), v: 1 }])])),
    headers: { "Content-Type": "application/json" },
  },
  { name: "PromQL query", store: "metrics", method: "GET", path: "/prometheus/api/v1/query?query=m", scope: "metrics:read" },
  { name: "PromQL query_range", store: "metrics", method: "GET", path: `/prometheus/api/v1/query_range?query=m&start=${Math.floor(Date.now() / 1000) - 60}&end=${Math.floor(Date.now() / 1000)}&step=15`, scope: "metrics:read" },
  { name: "series", store: "metrics", method: "GET", path: "/prometheus/api/v1/series?match[]=m", scope: "metrics:read" },
  { name: "labels", store: "metrics", method: "GET", path: "/prometheus/api/v1/labels", scope: "metrics:read" },
  { name: "label values", store: "metrics", method: "GET", path: "/prometheus/api/v1/label/job/values", scope: "metrics:read" },
  { name: "metadata", store: "metrics", method: "GET", path: "/prometheus/api/v1/metadata", scope: "metrics:read" },
  { name: "user_stats", store: "metrics", method: "GET", path: "/api/v1/user_stats", scope: "metrics:read" },
  { name: "user_limits", store: "metrics", method: "GET", path: "/api/v1/user_limits", scope: "metrics:read" },
  { name: "rules config: set a group", store: "metrics", method: "POST", path: "/prometheus/config/v1/rules/ns", scope: "rules:write", body: () => RULE_GROUP, headers: { "Content-Type": "application/yaml" } },
  { name: "rules config: list", store: "metrics", method: "GET", path: "/prometheus/config/v1/rules", scope: "rules:read" },
  { name: "rules config: one group", store: "metrics", method: "GET", path: "/prometheus/config/v1/rules/ns/g1", scope: "rules:read" },
  { name: "rules config: delete a group", store: "metrics", method: "DELETE", path: "/prometheus/config/v1/rules/ns/none", scope: "rules:write" },
  { name: "rules status", store: "metrics", method: "GET", path: "/prometheus/api/v1/rules", scope: "rules:read" },
  { name: "alerts", store: "metrics", method: "GET", path: "/prometheus/api/v1/alerts", scope: "alerts:read" },
];

async function send(r: RouteCase, auth: Record<string, string>): Promise<Answer> {
  const base = ctx.server.urls[r.store]!;
  return answer(await fetch(`${base}${r.path}`, { method: r.method, headers: { ...(r.headers ?? {}), ...auth }, ...(r.body ? { body: r.body() } : {}) }));
}

describe("tokens mode: each route family needs its scope", () => {
  for (const r of ROUTES) {
    it(`${r.name}: ${r.scope} allowed; other scopes 403 naming it; no credentials 401`, async () => {
      await setup();
      const allowed = await send(r, { Authorization: basic("a", tokens[r.scope]) });
      expect([401, 403]).not.toContain(allowed.status);
      expect(allowed.status).toBeLessThan(500);
      const other = SCOPES.find((s) => s !== r.scope && !(r.scope.startsWith("rules") && s.startsWith("rules")))!;
      const refused = await send(r, { Authorization: basic("a", tokens[other]) });
      expect(refused.status).toBe(403);
      expect(refused.text).toContain(`does not grant the scope ${r.scope}`);
      const anonymous = await send(r, { "X-Scope-OrgID": "a" });
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get("WWW-Authenticate")).toMatch(/^Basic realm=/);
      // a token whose policy has every scope but for another tenant
      const elsewhere = await send(r, { Authorization: basic("a", tokens["only-b"]) });
      expect(elsewhere.status).toBe(403);
      expect(elsewhere.text).toContain("does not reach tenant a");
      // Bearer + X-Scope-OrgID works as basic auth does
      const bearer = await send(r, { Authorization: `Bearer ${tokens[r.scope]}`, "X-Scope-OrgID": "a" });
      expect([401, 403]).not.toContain(bearer.status);
    }, 60_000);
  }
});

describe("tokens mode: the tenant comes from the credentials", () => {
  it("what a token writes is read in its tenant only", async () => {
    await setup();
    const logs = ctx.server.urls.logs!;
    const push = await fetch(`${logs}/loki/api/v1/push`, {
      method: "POST",
      headers: { Authorization: basic("a", tokens["a-writer"]), "Content-Type": "application/json" },
      body: JSON.stringify({ streams: [{ stream: { app: "isolated" }, values: [[nowNs(), "secret line of a"]] }] }),
    });
    expect(push.status).toBe(204);
    const read = (user: string, token: string) =>
      fetch(`${logs}/loki/api/v1/query_range?query=${encodeURIComponent('{app="isolated"}')}`, { headers: { Authorization: basic(user, token) } }).then(answer);
    const own = await read("a", tokens["a-writer"]);
    expect(own.status).toBe(200);
    expect(JSON.stringify(own.body)).toContain("secret line of a");
    const other = await read("b", tokens["only-b"]);
    expect(other.status).toBe(200);
    expect(JSON.stringify(other.body)).not.toContain("secret line of a");
  });

  it("X-Scope-OrgID and the basic auth user name disagreeing -> 401", async () => {
    await setup();
    const a = await fetch(`${ctx.server.urls.metrics}/prometheus/api/v1/query?query=m`, {
      headers: { Authorization: basic("a", tokens["a-and-b"]), "X-Scope-OrgID": "b" },
    }).then(answer);
    expect(a.status).toBe(401);
    expect(a.text).toContain("differs from the basic auth user name");
    const same = await fetch(`${ctx.server.urls.metrics}/prometheus/api/v1/query?query=m`, {
      headers: { Authorization: basic("a", tokens["a-and-b"]), "X-Scope-OrgID": "a" },
    });
    expect(same.status).toBe(200);
  });

  it("Bearer without X-Scope-OrgID: the policy's one tenant; a policy of several tenants needs the header", async () => {
    await setup();
    const one = await fetch(`${ctx.server.urls.metrics}/prometheus/api/v1/query?query=m`, { headers: { Authorization: `Bearer ${tokens["metrics:read"]}` } });
    expect(one.status).toBe(200);
    const several = await fetch(`${ctx.server.urls.metrics}/prometheus/api/v1/query?query=m`, { headers: { Authorization: `Bearer ${tokens["a-and-b"]}` } }).then(answer);
    expect(several.status).toBe(401);
    expect(several.text).toBe("no org id\n");
  });

  it("a multi-tenant log query needs a policy reaching every tenant named", async () => {
    await setup();
    const q = `${ctx.server.urls.logs}/loki/api/v1/labels`;
    expect((await fetch(q, { headers: { Authorization: basic("a|b", tokens["a-and-b"]) } })).status).toBe(200);
    const refused = await fetch(q, { headers: { Authorization: basic("a|b", tokens["logs:read"]) } }).then(answer);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain("does not reach tenant b");
    // a push names one tenant only
    const push = await fetch(`${ctx.server.urls.logs}/loki/api/v1/push`, {
      method: "POST",
      headers: { Authorization: basic("a|b", tokens["logs:write"]), "Content-Type": "application/json" },
      body: logPush(),
    }).then(answer);
    expect(push.status).toBe(400);
    expect(push.text).toContain("multiple org IDs present");
  });

  it("bad credentials -> 401, never a 500: garbage, wrong scheme, unknown token, empty password, huge header", async () => {
    await setup();
    const url = `${ctx.server.urls.metrics}/prometheus/api/v1/query?query=m`;
    for (const authorization of ["Basic !!!", "Basic " + Buffer.from("no-colon").toString("base64"), "Digest x", basic("a", "nope"), basic("a", ""), `Bearer ${"x".repeat(4000)}`, "Bearer"]) {
      const a = await fetch(url, { headers: { Authorization: authorization } }).then(answer);
      expect(a.status, authorization.slice(0, 30)).toBe(401);
    }
    const badTenant = await fetch(url, { headers: { Authorization: basic("a/b", tokens["metrics:read"]) } }).then(answer);
    expect(badTenant.status).toBe(400);
    expect(badTenant.text).toContain("unsupported character '/'");
  });
});

describe("tokens mode: endpoints that show every tenant", () => {
  const CROSS: Array<[string, "logs" | "metrics", string]> = [
    ["log store /metrics", "logs", "/metrics"],
    ["log store /config", "logs", "/config"],
    ["log store all_user_stats", "logs", "/distributor/all_user_stats"],
    ["metrics store /metrics", "metrics", "/metrics"],
    ["metrics store /config", "metrics", "/config"],
    ["metrics store all_user_stats", "metrics", "/distributor/all_user_stats"],
    ["metrics store runtime_config", "metrics", "/runtime_config"],
  ];
  for (const [name, store, path] of CROSS) {
    it(`${name}: a token reaching every tenant 200, one tenant's 403, none 401; the admin token 200`, async () => {
      await setup();
      const url = `${ctx.server.urls[store]}${path}`;
      expect((await fetch(url, { headers: { Authorization: `Bearer ${tokens["all-reader"]}` } })).status).toBe(200);
      expect((await fetch(url, { headers: { Authorization: basic("", tokens["all-reader"]) } })).status).toBe(200);
      const one = await fetch(url, { headers: { Authorization: `Bearer ${tokens["a-and-b"]}` } }).then(answer);
      expect(one.status).toBe(403);
      expect(one.text).toContain("does not reach every tenant");
      expect((await fetch(url)).status).toBe(401);
      expect((await fetch(url, { headers: { Authorization: basic("", ADMIN_TOKEN) } })).status).toBe(200);
    });
  }

  it("/ready and build info stay open", async () => {
    for (const url of [`${ctx.server.urls.logs}/ready`, `${ctx.server.urls.metrics}/ready`, `${ctx.server.urls.logs}/loki/api/v1/status/buildinfo`, `${ctx.server.urls.metrics}/api/v1/status/buildinfo`]) {
      expect((await fetch(url)).status, url).toBe(200);
    }
  });
});

describe("tokens: revocation, expiry, inactive policies, secrets", () => {
  it("a deleted token is refused at once, by both stores", async () => {
    await setup();
    const admin = adminApi(ctx.server.urls.metrics!);
    await admin.policy("short-lived", ["a"], ["logs:read", "metrics:read"]);
    const secret = await admin.token("short-lived", "short-lived");
    const logs = `${ctx.server.urls.logs}/loki/api/v1/labels`;
    const metrics = `${ctx.server.urls.metrics}/prometheus/api/v1/labels`;
    expect((await fetch(logs, { headers: { Authorization: basic("a", secret) } })).status).toBe(200);
    const etag = (await admin.call("GET", "/admin/api/v3/tokens/short-lived")).headers.get("ETag")!;
    expect((await admin.call("DELETE", "/admin/api/v3/tokens/short-lived", undefined, { "If-Match": etag })).status).toBe(204);
    for (const url of [logs, metrics]) {
      const a = await fetch(url, { headers: { Authorization: basic("a", secret) } }).then(answer);
      expect(a.status).toBe(401);
      expect(a.text).toBe("invalid token\n");
    }
  });

  it("deleting a policy revokes its tokens; an inactive policy's tokens are refused", async () => {
    await setup();
    const admin = adminApi(ctx.server.urls.metrics!);
    await admin.policy("to-disable", ["a"], ["metrics:read"]);
    const secret = await admin.token("to-disable-t", "to-disable");
    const url = `${ctx.server.urls.metrics}/prometheus/api/v1/labels`;
    const got = await admin.call("GET", "/admin/api/v3/accesspolicies/to-disable");
    const put = await admin.call("PUT", "/admin/api/v3/accesspolicies/to-disable", { ...got.body, status: "inactive" }, { "If-Match": got.headers.get("ETag")! });
    expect(put.status).toBe(200);
    const inactive = await fetch(url, { headers: { Authorization: basic("a", secret) } }).then(answer);
    expect(inactive.status).toBe(401);
    expect(inactive.text).toContain('access policy "to-disable" is inactive');
    const del = await admin.call("DELETE", "/admin/api/v3/accesspolicies/to-disable", undefined, { "If-Match": put.headers.get("ETag")! });
    expect(del.status).toBe(204);
    expect((await admin.call("GET", "/admin/api/v3/tokens/to-disable-t")).status).toBe(404);
    expect(ctx.server.db ? (await ctx.server.db.pg.query("select 1 from store_access_tokens where name = 'to-disable-t'")).rows.length : 0).toBe(0);
  });

  it("the secret is answered once: never listed, never logged, stored only as its SHA-256", async () => {
    await setup();
    const admin = adminApi(ctx.server.urls.metrics!);
    await admin.policy("secretive", ["a"], ["metrics:read"]);
    const secret = await admin.token("secretive", "secretive");
    expect(Buffer.from(secret, "base64").toString()).toMatch(/^secretive-[0-9a-f]{16}:/);
    await fetch(`${ctx.server.urls.metrics}/prometheus/api/v1/query?query=m`, { headers: { Authorization: basic("a", secret) } });
    await fetch(`${ctx.server.urls.metrics}/prometheus/api/v1/query?query=m`, { headers: { Authorization: basic("a", `${secret}x`) } });
    const one = await admin.call("GET", "/admin/api/v3/tokens/secretive");
    const list = await admin.call("GET", "/admin/api/v3/tokens");
    for (const a of [one, list]) {
      expect(a.status).toBe(200);
      expect(a.text).not.toContain(secret);
      expect(a.text).not.toContain('"token":');
    }
    expect(JSON.stringify(ctx.server.logs)).not.toContain(secret);
    // the request log names the token, never its secret
    expect(ctx.server.logs.some((l) => l.msg === "request" && l.token === "secretive/secretive" && l.tenant === "a")).toBe(true);
    expect(JSON.stringify(ctx.server.logs)).not.toContain(secret.slice(0, 20));
    const rows = (await ctx.server.db.pg.query<Record<string, unknown>>("select * from store_access_tokens where name = 'secretive'")).rows;
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(secret);
    expect(rows[0]!.hash).toBe(createHash("sha256").update(secret).digest("hex"));
  });

  it("usage per token: lines, bytes, samples and queries in each store's /metrics", async () => {
    await setup();
    const auth = { Authorization: basic("a", tokens["a-writer"]) };
    await fetch(`${ctx.server.urls.logs}/loki/api/v1/push`, { method: "POST", headers: { ...auth, "Content-Type": "application/json" }, body: logPush() });
    await fetch(`${ctx.server.urls.logs}/loki/api/v1/labels`, { headers: auth });
    await fetch(`${ctx.server.urls.metrics}/api/v1/push`, {
      method: "POST",
      headers: { ...auth, "Content-Type": "application/x-protobuf", "Content-Encoding": "snappy" },
      body: writeBody([{ labels: { __name__: "used", job: "j" }, samples: [[Date.now(), 1]] }, { labels: { __name__: "used", job: "k" }, samples: [[Date.now(), 2]] }]),
    });
    await fetch(`${ctx.server.urls.metrics}/prometheus/api/v1/query?query=used`, { headers: auth });
    const scrape = async (store: "logs" | "metrics") => (await fetch(`${ctx.server.urls[store]}/metrics`, { headers: { Authorization: basic("", ADMIN_TOKEN) } })).text();
    const value = (text: string, metric: string) => Number(new RegExp(`^${metric}\\{access_policy="a-writer",token="a-writer"\\} (\\S+)$`, "m").exec(text)?.[1] ?? "0");
    const logs = await scrape("logs");
    expect(value(logs, "svc_access_token_received_lines_total")).toBeGreaterThanOrEqual(1);
    expect(value(logs, "svc_access_token_received_bytes_total")).toBeGreaterThan(0);
    expect(value(logs, "svc_access_token_queries_total")).toBeGreaterThanOrEqual(1);
    const metrics = await scrape("metrics");
    expect(value(metrics, "cortex_access_token_received_samples_total")).toBeGreaterThanOrEqual(2);
    expect(value(metrics, "cortex_access_token_received_bytes_total")).toBeGreaterThan(0);
    expect(value(metrics, "cortex_access_token_queries_total")).toBeGreaterThanOrEqual(1);
  });
});
