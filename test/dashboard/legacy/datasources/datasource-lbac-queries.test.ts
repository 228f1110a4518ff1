// Team LBAC rules enforced end to end (enterprise): logs of four streams in
// the bundled log store, a loki data source on it, teams with rules. A member
// of a ruled team sees only the streams matching at least one of the team's
// rules, through the proxy (query_range, labels, label values, series) and
// through /api/ds/query; an org Admin, and a user in no ruled team, see all.
import { beforeAll, describe, expect, it } from "vitest";
import { ADMIN } from "../../../helpers/api.ts";
import { useServer } from "../../../helpers/server.ts";
import { logClient, nsAgo } from "../../../logstore/helpers.ts";

const TENANT = "lbac-e2e";
const ALL = ["dev-a", "dev-b", "prod-a", "prod-b"];

describe("LBAC rules on log queries (enterprise)", () => {
  const t = useServer({ "server.edition": "enterprise" });
  const now = Date.now();
  const users = {} as Record<"alice" | "carol" | "dave" | "victor" | "olga", { id: number; auth: string }>;
  let uid = "";

  beforeAll(async () => {
    const pushed = await logClient(t.server.urls.logs!).push(
      TENANT,
      ["prod", "dev"].flatMap((env) =>
        ["a", "b"].map((team, i) => ({ stream: { app: "web", env, team }, values: [[nsAgo(60 - i, now), `${env}-${team}`]] as Array<[string, string]> })),
      ),
    );
    expect(pushed.status).toBe(204);
    const ds = await t.api.post("/api/datasources", {
      auth: ADMIN, body: { name: "LBAC Logs", type: "loki", access: "proxy", url: t.server.urls.logs, jsonData: { tenantId: TENANT } },
    });
    expect(ds.status).toBe(200);
    uid = ds.body.datasource.uid;

    const team = async (name: string, members: number[]) => {
      const r = await t.api.post("/api/teams", { auth: ADMIN, body: { name } });
      for (const userId of members) expect((await t.api.post(`/api/teams/${r.body.teamId}/members`, { auth: ADMIN, body: { userId } })).status).toBe(200);
      return r.body.uid as string;
    };
    users.alice = await t.api.user("alice", "Viewer");
    users.carol = await t.api.user("carol", "Editor");
    users.dave = await t.api.user("dave", "Viewer");
    users.victor = await t.api.user("victor", "Viewer");
    users.olga = await t.api.user("olga", "Admin");
    const prodA = await team("Prod A", [users.alice.id, users.carol.id, users.dave.id, users.olga.id]);
    const prodB = await team("Prod B", [users.carol.id]);
    const dev = await team("Dev", [users.dave.id]);
    await team("No Rules", [users.victor.id]);
    const put = await t.api.put(`/api/datasources/uid/${uid}/lbac/teams`, {
      auth: ADMIN,
      body: {
        rules: [
          { teamUid: prodA, rules: ['{env="prod", team="a"}'] },
          { teamUId: prodB, rules: ['{team="b", env="prod"}'] },
          { teamUid: dev, rules: ['{env="dev"}'] },
        ],
      },
    });
    expect(put.status).toBe(200);
  });

  const proxy = (auth: string, path: string, params: Record<string, string>) =>
    t.api.get(`/api/datasources/proxy/uid/${uid}/svc/api/v1/${path}?${new URLSearchParams(params)}`, { auth });
  const range = { start: String(BigInt(now - 3_600_000) * 1_000_000n), end: String(BigInt(now + 1000) * 1_000_000n) };

  /** the lines a query_range through the proxy returns */
  async function proxyLines(auth: string, query: string): Promise<string[]> {
    const r = await proxy(auth, "query_range", { query, ...range, limit: "100" });
    expect({ status: r.status, body: r.status === 200 ? "" : r.body }).toEqual({ status: 200, body: "" });
    return (r.body.data.result as Array<{ values: Array<[string, string]> }>).flatMap((s) => s.values.map((v) => v[1])).sort();
  }

  /** the lines /api/ds/query returns for one log query */
  async function dsQueryLines(auth: string, expr: string): Promise<string[]> {
    const r = await t.api.post("/api/ds/query", {
      auth, body: { from: String(now - 3_600_000), to: String(now + 1000), queries: [{ refId: "A", datasource: { uid, type: "loki" }, expr, queryType: "range" }] },
    });
    expect({ status: r.status, error: r.body.results?.A?.error }).toEqual({ status: 200, error: undefined });
    const frame = r.body.results.A.frames[0];
    const line = frame.schema.fields.findIndex((f: { name: string }) => f.name === "Line");
    return [...(frame.data.values[line] as string[])].sort();
  }

  it("a member of a team with one rule: query_range through the proxy -> only matching streams", async () => {
    expect(await proxyLines(users.alice.auth, '{app="web"}')).toEqual(["prod-a"]);
    // asking for more, by a regex or a label of the rule, gives nothing more
    expect(await proxyLines(users.alice.auth, '{app="web", team=~".+"}')).toEqual(["prod-a"]);
    expect(await proxyLines(users.alice.auth, '{env="dev"}')).toEqual([]);
    expect(await proxyLines(users.alice.auth, '{app="web"} |= "-"')).toEqual(["prod-a"]);
  });

  it("values holding quotes, braces and backslashes stay one value, and the rule still applies", async () => {
    expect(await proxyLines(users.alice.auth, '{app="web", team!="\\"}, env=~\\".*"}')).toEqual(["prod-a"]);
    expect(await proxyLines(users.alice.auth, '{app="web", team!~`\\\\x"\\}`}')).toEqual(["prod-a"]);
  });

  it("labels, label values and series through the proxy and resources -> only matching streams", async () => {
    const values = await proxy(users.alice.auth, "label/team/values", { ...range });
    expect(values.status).toBe(200);
    expect(values.body.data).toEqual(["a"]);
    const envs = await t.api.get(`/api/datasources/uid/${uid}/resources/label/env/values?${new URLSearchParams({ query: '{app="web"}', ...range })}`, { auth: users.alice.auth });
    expect(envs.body.data).toEqual(["prod"]);
    const series = await proxy(users.alice.auth, "series", { "match[]": '{app="web"}', ...range });
    expect(series.status).toBe(200);
    expect(series.body.data).toEqual([expect.objectContaining({ app: "web", env: "prod", team: "a" })]);
    const everything = await t.api.get(`/api/datasources/uid/${uid}/resources/series?${new URLSearchParams(range)}`, { auth: users.alice.auth });
    expect(everything.status).toBe(200);
    expect(everything.body.data).toHaveLength(1);
  });

  it("/api/ds/query by a member -> only matching streams", async () => {
    expect(await dsQueryLines(users.alice.auth, '{app="web"}')).toEqual(["prod-a"]);
    const metric = await t.api.post("/api/ds/query", {
      auth: users.alice.auth,
      body: { from: String(now - 3_600_000), to: String(now + 1000), queries: [{ refId: "M", datasource: { uid }, expr: 'sum by (team) (count_over_time({app="web"}[2h]))', queryType: "instant" }] },
    });
    expect(metric.status).toBe(200);
    const teams = (metric.body.results.M.frames as Array<{ schema: { fields: Array<{ labels?: Record<string, string> }> } }>).map((f) => f.schema.fields[1]!.labels?.team);
    expect(teams).toEqual(["a"]);
  });

  it("a member of two ruled teams -> streams of either team's rules (OR)", async () => {
    expect(await proxyLines(users.carol.auth, '{app="web"}')).toEqual(["prod-a", "prod-b"]);
    expect(await dsQueryLines(users.carol.auth, '{app="web"}')).toEqual(["prod-a", "prod-b"]);
  });

  it("rules one selector cannot express -> 403 saying why, never more data", async () => {
    const r = await proxy(users.dave.auth, "query_range", { query: '{app="web"}', ...range });
    expect(r.status).toBe(403);
    expect(r.body.message).toContain("cannot be combined into one stream selector");
    const q = await t.api.post("/api/ds/query", {
      auth: users.dave.auth, body: { from: String(now - 3_600_000), to: String(now), queries: [{ refId: "A", datasource: { uid }, expr: '{app="web"}' }] },
    });
    expect(q.body.results.A.status).toBe(403);
    expect(q.body.results.A.frames ?? []).toEqual([]);
  });

  it("a query that does not parse -> 400 with the parse error", async () => {
    const r = await proxy(users.alice.auth, "query_range", { query: '{app="web"', ...range });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain("parse error at line 1, col 11");
  });

  it("an org Admin in a ruled team, the server admin, and a user in no ruled team see every stream", async () => {
    for (const auth of [users.olga.auth, ADMIN, users.victor.auth]) {
      expect(await proxyLines(auth, '{app="web"}')).toEqual(ALL);
      expect(await dsQueryLines(auth, '{app="web"}')).toEqual(ALL);
    }
  });

  it("issue 16 #9: a restricted user with Edit switches the type loki -> prometheus -> 400, the rules keep applying", async () => {
    const grant = await t.api.post(`/api/access-control/datasources/${uid}/users/${users.carol.id}`, { auth: ADMIN, body: { permission: "Edit" } });
    expect(grant.status).toBe(200);
    const current = await t.api.get(`/api/datasources/uid/${uid}`, { auth: users.carol.auth });
    expect(current.status).toBe(200);
    const { id: _id, orgId: _org, ...body } = current.body;
    const put = await t.api.put(`/api/datasources/uid/${uid}`, { auth: users.carol.auth, body: { ...body, type: "prometheus" } });
    expect(put.status).toBe(400);
    expect(put.body.message).toContain('type cannot be changed from "loki" to "prometheus" while the data source has label rules');
    expect((await t.api.get(`/api/datasources/uid/${uid}`, { auth: ADMIN })).body.type).toBe("loki");
    expect(await proxyLines(users.carol.auth, '{app="web"}')).toEqual(["prod-a", "prod-b"]);
    expect(await dsQueryLines(users.carol.auth, '{app="web"}')).toEqual(["prod-a", "prod-b"]);
    // the same update without a type change still goes through
    expect((await t.api.put(`/api/datasources/uid/${uid}`, { auth: users.carol.auth, body })).status).toBe(200);
  });

  it("new rules apply at once; removing the team's rules gives full access back", async () => {
    const teams = await t.api.get("/api/teams/search?name=Prod%20A", { auth: ADMIN });
    const prodA = teams.body.teams[0].uid as string;
    const path = `/api/datasources/uid/${uid}/lbac/teams`;
    expect((await t.api.put(path, { auth: ADMIN, body: { rules: [{ teamUid: prodA, rules: ['{team="b"}'] }] } })).status).toBe(200);
    expect(await proxyLines(users.alice.auth, '{app="web"}')).toEqual(["dev-b", "prod-b"]);
    expect((await t.api.put(path, { auth: ADMIN, body: { rules: [] } })).status).toBe(200);
    expect(await proxyLines(users.alice.auth, '{app="web"}')).toEqual(ALL);
    expect(await proxyLines(users.dave.auth, '{app="web"}')).toEqual(ALL);
  });
});
