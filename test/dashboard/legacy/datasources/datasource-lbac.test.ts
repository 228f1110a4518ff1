// GET/PUT /api/datasources/uid/:uid/lbac/teams (spec "Data source LBAC rules"):
// enterprise and cloud only; the PUT list replaces every stored rule; rules
// are label selectors, checked when written.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../../../src/config/load.ts";
import { silentLogger } from "../../../../src/lib/logger.ts";
import { startOutpost, type RunningServer } from "../../../../src/server.ts";
import { ADMIN, client } from "../../../helpers/api.ts";
import { useServer } from "../../../helpers/server.ts";

type Api = ReturnType<typeof client>;

const lbacPath = (uid: string) => `/api/datasources/uid/${uid}/lbac/teams`;

async function lokiDataSource(api: Api, name: string, type = "loki") {
  const r = await api.post("/api/datasources", { auth: ADMIN, body: { name, type, access: "proxy", url: "http://127.0.0.1:1", jsonData: { tenantId: "t" } } });
  if (r.status !== 200) throw new Error(`creating ${name}: ${r.status} ${JSON.stringify(r.body)}`);
  return { uid: r.body.datasource.uid as string, id: r.body.id as number };
}

async function team(api: Api, name: string) {
  const r = await api.post("/api/teams", { auth: ADMIN, body: { name } });
  if (r.status !== 200) throw new Error(`creating team ${name}: ${r.status}`);
  return { id: r.body.teamId as number, uid: r.body.uid as string };
}

describe("data source LBAC rules (enterprise)", () => {
  // started from a config file: one data source is provisioned (read-only)
  const t = {} as { server: RunningServer; api: Api; dir: string };
  beforeAll(async () => {
    t.dir = mkdtempSync(join(tmpdir(), "outpost-lbac-"));
    const file = join(t.dir, "outpost.yaml");
    writeFileSync(file, "datasources:\n  - name: Provisioned Logs\n    type: loki\n    uid: prov-logs\n    url: http://127.0.0.1:1\n");
    const flags = { "server.edition": "enterprise", "storage.in_memory": true, "dashboard.http_port": 0, "logs.http_port": 0, "metrics.http_port": 0 };
    t.server = await startOutpost(loadConfig({ file, flags }), silentLogger, { announce: () => {} });
    t.api = client(t.server.urls.dashboard);
  });
  afterAll(async () => {
    await t.server.stop();
    rmSync(t.dir, { recursive: true, force: true });
  });

  it("GET of a data source without rules -> 200 {rules: []}", async () => {
    const ds = await lokiDataSource(t.api, "Logs Empty");
    const r = await t.api.get(lbacPath(ds.uid), { auth: ADMIN });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ rules: [] });
  });

  it("PUT (teamUId spelling) -> 200 {id, message, name, rules, uid}; GET answers with teamUid", async () => {
    const ds = await lokiDataSource(t.api, "Logs Put");
    const a = await team(t.api, "LBAC A");
    const rules = ['{ service_name="bigquery-sync-mysql" }', '{env="prod", team=~"a|b"}'];
    const put = await t.api.put(lbacPath(ds.uid), { auth: ADMIN, body: { rules: [{ teamUId: a.uid, rules }] } });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ id: ds.id, message: "Data source LBAC rules updated", name: "Logs Put", rules: [{ teamUid: a.uid, rules }], uid: ds.uid });
    expect((await t.api.get(lbacPath(ds.uid), { auth: ADMIN })).body).toEqual({ rules: [{ teamUid: a.uid, rules }] });
  });

  it("PUT replaces the whole list: an omitted team loses its rules; [] clears all", async () => {
    const ds = await lokiDataSource(t.api, "Logs Replace");
    const a = await team(t.api, "Replace A");
    const b = await team(t.api, "Replace B");
    await t.api.put(lbacPath(ds.uid), { auth: ADMIN, body: { rules: [{ teamUid: a.uid, rules: ['{env="a"}'] }, { teamUid: b.uid, rules: ['{env="b"}'] }] } });
    expect((await t.api.get(lbacPath(ds.uid), { auth: ADMIN })).body.rules).toHaveLength(2);
    await t.api.put(lbacPath(ds.uid), { auth: ADMIN, body: { rules: [{ teamUid: b.uid, rules: ['{env="b2"}'] }] } });
    expect((await t.api.get(lbacPath(ds.uid), { auth: ADMIN })).body).toEqual({ rules: [{ teamUid: b.uid, rules: ['{env="b2"}'] }] });
    const cleared = await t.api.put(lbacPath(ds.uid), { auth: ADMIN, body: { rules: [] } });
    expect(cleared.status).toBe(200);
    expect((await t.api.get(lbacPath(ds.uid), { auth: ADMIN })).body).toEqual({ rules: [] });
  });

  it("rules of one data source do not show on another; a deleted team's rules go with it", async () => {
    const one = await lokiDataSource(t.api, "Logs One");
    const two = await lokiDataSource(t.api, "Logs Two");
    const gone = await team(t.api, "Short Lived");
    await t.api.put(lbacPath(one.uid), { auth: ADMIN, body: { rules: [{ teamUid: gone.uid, rules: ['{env="x"}'] }] } });
    expect((await t.api.get(lbacPath(two.uid), { auth: ADMIN })).body).toEqual({ rules: [] });
    expect((await t.api.delete(`/api/teams/${gone.id}`, { auth: ADMIN })).status).toBe(200);
    expect((await t.api.get(lbacPath(one.uid), { auth: ADMIN })).body).toEqual({ rules: [] });
  });

  it("PUT with invalid entries -> 400 naming what is wrong; nothing stored", async () => {
    const ds = await lokiDataSource(t.api, "Logs Invalid");
    const a = await team(t.api, "Invalid A");
    await t.api.put(lbacPath(ds.uid), { auth: ADMIN, body: { rules: [{ teamUid: a.uid, rules: ['{env="kept"}'] }] } });
    const cases: Array<[unknown, string]> = [
      [{ rules: [{ teamUid: "no-such-team", rules: ['{env="x"}'] }] }, 'rules[0].teamUid: team "no-such-team" not found in this organization'],
      [{ rules: [{ teamUid: a.uid, rules: ['{env="x"} |= "y"'] }] }, "rules[0].rules[0]: "],
      [{ rules: [{ teamUid: a.uid, rules: ['{env="x"}', 'sum(rate({a="b"}[1m]))'] }] }, "rules[0].rules[1]: "],
      [{ rules: [{ teamUid: a.uid, rules: ["{env=prod}"] }] }, "is not a valid label selector"],
      [{ rules: [{ teamUid: a.uid, rules: ['{env=~"(unclosed"}'] }] }, "invalid regular expression in env=~"],
      [{ rules: [{ teamUid: a.uid, rules: ['{env="x"}'] }, { teamUId: a.uid, rules: ['{env="y"}'] }] }, `rules[1]: team "${a.uid}" is already listed in rules[0]`],
      [{ rules: [{ teamUid: a.uid, rules: [42] }] }, "rules[0].rules[0] must be a string"],
      [{ rules: [{ teamUid: a.uid, rules: "{env=\"x\"}" }] }, "rules[0].rules must be an array"],
      [{ rules: [{ rules: ['{env="x"}'] }] }, "rules[0].teamUid is required"],
      [{ rules: [{ teamUid: a.uid, teamUId: "other", rules: ['{env="x"}'] }] }, "rules[0]: teamUid and teamUId name different teams"],
      [{ rules: [{ teamUid: a.uid, rules: [] }] }, "rules[0].rules must hold at least one rule"],
      [{}, "rules must be an array"],
      [[], "the body must be a JSON object"],
    ];
    for (const [body, message] of cases) {
      const r = await t.api.put(lbacPath(ds.uid), { auth: ADMIN, body });
      expect({ body, status: r.status }).toEqual({ body, status: 400 });
      expect(r.body.message).toContain(message);
    }
    const invalidJson = await t.api.put(lbacPath(ds.uid), { auth: ADMIN, body: "{not json" });
    expect(invalidJson.status).toBe(400);
    expect((await t.api.get(lbacPath(ds.uid), { auth: ADMIN })).body).toEqual({ rules: [{ teamUid: a.uid, rules: ['{env="kept"}'] }] });
  });

  it("a team of another organization is unknown here -> 400", async () => {
    const ds = await lokiDataSource(t.api, "Logs Org");
    const org = await t.api.post("/api/orgs", { auth: ADMIN, body: { name: "LBAC Other Org" } });
    const other = await t.api.post("/api/teams", { auth: ADMIN, body: { name: "Elsewhere" }, headers: { "X-Svc-Org-Id": String(org.body.orgId) } });
    const r = await t.api.put(lbacPath(ds.uid), { auth: ADMIN, body: { rules: [{ teamUid: other.body.uid, rules: ['{env="x"}'] }] } });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain("not found in this organization");
  });

  it("PUT on a data source that is not a log store (prometheus) -> 400 saying only loki", async () => {
    const ds = await lokiDataSource(t.api, "Metrics", "prometheus");
    const a = await team(t.api, "Metrics Team");
    const r = await t.api.put(lbacPath(ds.uid), { auth: ADMIN, body: { rules: [{ teamUid: a.uid, rules: ['{job="x"}'] }] } });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('LBAC rules are only supported for data sources of type "loki"; data source "Metrics" is of type "prometheus"');
  });

  it("PUT on a provisioned (read-only) data source -> 403; GET still answers", async () => {
    const a = await team(t.api, "Provisioned Team");
    const r = await t.api.put(lbacPath("prov-logs"), { auth: ADMIN, body: { rules: [{ teamUid: a.uid, rules: ['{env="x"}'] }] } });
    expect(r.status).toBe(403);
    expect(r.body.message).toBe("Cannot update LBAC rules of read-only data source");
    expect((await t.api.get(lbacPath("prov-logs"), { auth: ADMIN })).body).toEqual({ rules: [] });
  });

  it("unknown data source -> 404 Data source not found", async () => {
    expect((await t.api.get(lbacPath("nope"), { auth: ADMIN })).body).toEqual({ message: "Data source not found" });
    expect((await t.api.put(lbacPath("nope"), { auth: ADMIN, body: { rules: [] } })).status).toBe(404);
  });

  it("viewer and editor (default Query, which reads) -> GET 200, PUT 403; role None -> 403; no credentials -> 401", async () => {
    const ds = await lokiDataSource(t.api, "Logs Perm");
    const viewer = await t.api.user("lbac-viewer", "Viewer");
    const editor = await t.api.user("lbac-editor", "Editor");
    const none = await t.api.user("lbac-none", "None");
    for (const who of [viewer, editor]) {
      expect((await t.api.get(lbacPath(ds.uid), { auth: who.auth })).status).toBe(200);
      const put = await t.api.put(lbacPath(ds.uid), { auth: who.auth, body: { rules: [] } });
      expect(put.status).toBe(403);
    }
    expect((await t.api.get(lbacPath(ds.uid), { auth: none.auth })).status).toBe(403);
    expect((await t.api.get(lbacPath(ds.uid))).status).toBe(401);
  });

  it("datasources:write without datasources.permissions:write -> 403 naming the missing action", async () => {
    const ds = await lokiDataSource(t.api, "Logs Writer");
    const writer = await t.api.user("lbac-writer", "Editor");
    const role = await t.api.post("/api/access-control/roles", {
      auth: ADMIN,
      body: { name: "custom:ds-writer", permissions: [{ action: "datasources:read", scope: "datasources:*" }, { action: "datasources:write", scope: "datasources:*" }] },
    });
    const writers = await team(t.api, "DS Writers");
    await t.api.post(`/api/teams/${writers.id}/members`, { auth: ADMIN, body: { userId: writer.id } });
    expect((await t.api.put(`/api/access-control/teams/${writers.id}/roles`, { auth: ADMIN, body: { roleUids: [role.body.uid] } })).status).toBe(200);
    expect((await t.api.get(lbacPath(ds.uid), { auth: writer.auth })).status).toBe(200);
    const r = await t.api.put(lbacPath(ds.uid), { auth: writer.auth, body: { rules: [] } });
    expect(r.status).toBe(403);
    expect(r.body.message).toContain("Permissions needed: datasources.permissions:write");
  });
});

describe("data source LBAC rules (oss edition)", () => {
  const t = useServer({ "server.edition": "oss" });

  it("GET and PUT -> 404: the API exists only in enterprise and cloud", async () => {
    const ds = await lokiDataSource(t.api, "OSS Logs");
    expect((await t.api.get(lbacPath(ds.uid), { auth: ADMIN })).status).toBe(404);
    expect((await t.api.put(lbacPath(ds.uid), { auth: ADMIN, body: { rules: [] } })).status).toBe(404);
  });
});
