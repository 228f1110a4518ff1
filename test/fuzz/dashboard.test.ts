// Fuzz: malformed paths, queries, headers and bodies against every route of
// the dashboard's OpenAPI document (made from the router's registry, the
// same list as DashboardApp.routes), with the admin's basic auth and
// without. No answer may be 5xx, every request is answered within the
// deadline, and /api/health is 200 at the end. Seeded: FUZZ_SEED repeats a
// run; FUZZ_SCALE multiplies the number of requests.
import { beforeAll, describe, expect, it } from "vitest";
import { ADMIN } from "../helpers/api.ts";
import { createRng, seedFromEnv } from "./support/prng.ts";
import { authHeader, body, fillPath, query, request, type Route } from "./support/requests.ts";
import { report, run, unhealthy, useTarget, type FuzzRequest } from "./support/target.ts";
import { mutate, TEMPLATES } from "./support/templates.ts";
import { nastyString } from "./support/values.ts";

const SEED = seedFromEnv(1616);
const SCALE = Number(process.env.FUZZ_SCALE ?? 1);
const PER_ROUTE = Math.max(1, Math.round(8 * SCALE));

/** values that exist or parse, so some requests get past the first check */
const PLAUSIBLE: Record<string, string[]> = {
  namespace: ["default", "org-1", "stacks-1", "org-999999"],
  orgId: ["999999", "0", "-1"],
  userId: ["999999", "0"],
  id: ["999999", "0", "-5"],
  tokenId: ["999999"],
  uid: ["nope", "x".repeat(41)],
  name: ["nope", "a.b", "A", "fz-x"],
  owner: ["user-1", "user-999999", "team-1"],
  group: ["dashboard.svc.app", "x"],
  kind: ["Dashboard", "x"],
};

/**
 * a wrong old password counts as a failed sign-in (issue 16 #12): the admin would be locked out;
 * a server admin may set any user's password or login, the admin's own among them (the run would lose its credentials)
 */
const NEVER_AS_ADMIN = new Set(["PUT /api/user/password", "PUT /api/admin/users/{id}/password", "PUT /api/users/{id}"]);

const APIS_QUERY_KEYS = ["resourceVersion", "limit", "continue", "labelSelector", "fieldSelector", "watch", "dryRun", "fieldManager", "pretty"];

describe("fuzz: dashboard API", () => {
  const t = useTarget(["--edition", "enterprise"]);
  let routes: Route[] = [];
  beforeAll(async () => {
    const target = t.target;
    const doc = (await (await fetch(`${target.url("dashboard")}/openapi/v3`, { headers: { Authorization: ADMIN } })).json()) as { paths: Record<string, Record<string, unknown>> };
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const method of Object.keys(ops)) routes.push({ service: "dashboard", method: method.toUpperCase(), path });
    }
    // an object to read, update and list with malformed parameters
    await fetch(`${target.url("dashboard")}/apis/folder.svc.app/v1/namespaces/default/folders`, {
      method: "POST", headers: { Authorization: ADMIN, "Content-Type": "application/json" }, body: JSON.stringify({ metadata: { name: "fz-x" }, spec: { title: "fz" } }),
    });
    routes = routes.sort((a, b) => `${a.path} ${a.method}`.localeCompare(`${b.path} ${b.method}`));
  }, 120_000);

  it("every route answers malformed input with a non-5xx status, in time", async () => {
    const target = t.target;
    expect(routes.length).toBeGreaterThan(60);
    const rng = createRng(SEED);
    function* requests(): Generator<FuzzRequest> {
      for (let i = 0; i < PER_ROUTE; i++) {
        for (const route of routes) {
          const template = TEMPLATES[`${route.method} ${route.path}`];
          const auth = NEVER_AS_ADMIN.has(`${route.method} ${route.path}`) ? { kind: "anon", headers: {} }
            : template !== undefined && rng.chance(0.6) ? { kind: "auth", headers: { Authorization: ADMIN } }
            : authHeader(rng, ADMIN);
          const b = template !== undefined && rng.chance(0.7) ? { kind: "mutated", body: mutate(rng, template), headers: { "Content-Type": "application/json" } } : body(rng);
          const headers: Record<string, string> = { ...auth.headers, ...b.headers };
          if (rng.chance(0.1)) headers["X-Grafana-Org-Id"] = rng.pick(["0", "-1", "999999", "abc", "1e3", "9".repeat(400), nastyString(rng).slice(0, 200)]);
          if (rng.chance(0.05)) headers.Origin = rng.pick(["null", "http://evil.test", "%zz"]);
          const q = route.path.startsWith("/apis/") && rng.chance(0.5) ? query(rng, APIS_QUERY_KEYS) : query(rng);
          yield request(route, { path: fillPath(rng, route.path, PLAUSIBLE) + q, headers, body: b.body, input: `${auth.kind} ${route.method === "GET" ? "" : b.kind}`.trim() });
        }
      }
    }
    const result = await run(target, requests());
    const text = report("dashboard fuzz", SEED, result);
    console.log(text);
    expect(await unhealthy(target), text).toEqual([]);
    // the admin was never locked out or renamed: the authenticated half of the run reached the routes
    expect((await fetch(`${target.url("dashboard")}/api/user`, { headers: { Authorization: ADMIN } })).status, text).toBe(200);
    expect(result.failures.length, text).toBe(0);
  }, 600_000);
});
