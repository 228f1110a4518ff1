// The config file's datasources block (core/datasources/datasource-provisioning.ts):
// applied at startup, read-only through the API unless editable, restarts
// with the same file change nothing, a changed file updates, an entry gone
// from the file is handed over to the API, a bad entry stops startup.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../../../src/config/load.ts";
import { createLogger } from "../../../../src/lib/logger.ts";
import { startOutpost, type RunningServer } from "../../../../src/server.ts";
import { ADMIN, client } from "../../../helpers/api.ts";
import { bunBin, repoRoot } from "../../../helpers/paths.ts";
import { runToExit } from "../../../helpers/process.ts";

const dir = mkdtempSync(join(tmpdir(), "outpost-provisioning-"));
const quiet = { "dashboard.http_port": 0, "logs.enabled": false, "metrics.enabled": false, "server.log_format": "json" };
const logs: string[] = [];
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function configFile(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

async function start(file: string, flags: Record<string, unknown> = { "storage.data_dir": join(dir, "data") }): Promise<RunningServer> {
  const logger = createLogger({ level: "info", format: "json", write: (line) => logs.push(line) });
  return startOutpost(loadConfig({ file, flags: { ...quiet, ...flags } }), logger);
}

/** the error startup fails with */
async function startupError(text: string): Promise<ConfigError> {
  const err = await start(configFile("bad.yaml", text), { "storage.in_memory": true }).then(
    async (s) => {
      await s.stop();
      throw new Error("startup succeeded");
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConfigError);
  return err as ConfigError;
}

const S1 = `s3cr3t-file-${crypto.randomUUID()}`;
const S2 = `s3cr3t-changed-${crypto.randomUUID()}`;
const FIRST = `
datasources:
  - name: Logs
    type: loki
    uid: prov-logs
    url: http://localhost:3100
    isDefault: true
    jsonData:
      maxLines: 1000
    secureJsonData:
      httpHeaderValue1: ${S1}
  - name: Editable
    type: prometheus
    uid: prov-edit
    url: http://localhost:9009
    editable: true
  - name: No uid
    type: prometheus
`;

describe("provisioned data sources across restarts", () => {
  let server: RunningServer | undefined;
  let noUid = "";
  const api = () => client(server!.urls.dashboard);
  const get = async (uid: string) => (await api().get(`/api/datasources/uid/${uid}`, { auth: ADMIN })).body;
  const restart = async (file: string) => {
    await server?.stop();
    server = await start(file);
  };
  afterAll(async () => {
    await server?.stop();
  });

  it("startup creates them: readOnly unless editable, secrets sealed and listed in secureJsonFields", async () => {
    await restart(configFile("first.yaml", FIRST));
    expect(await get("prov-logs")).toMatchObject({
      name: "Logs", type: "loki", url: "http://localhost:3100", isDefault: true, jsonData: { maxLines: 1000 },
      secureJsonFields: { httpHeaderValue1: true }, readOnly: true, version: 1, orgId: 1,
    });
    expect(await get("prov-edit")).toMatchObject({ name: "Editable", readOnly: false, version: 1 });
    const list = (await api().get("/api/datasources", { auth: ADMIN })).body as Array<{ name: string; uid: string; readOnly: boolean }>;
    expect(list.map((d) => [d.name, d.readOnly])).toEqual([["Editable", false], ["Logs", true], ["No uid", true]]);
    noUid = list[2]!.uid;
    const raw = await server!.db.pg.query("select d.*, s.sealed from data_sources d left join secrets s on s.owner = 'datasource:' || d.id");
    expect(JSON.stringify(raw.rows)).not.toContain(S1);
  }, 60_000);

  it("PUT or DELETE of a read-only data source -> 403 Cannot update/delete read-only data source (92)", async () => {
    const d = await get("prov-logs");
    for (const path of ["/api/datasources/uid/prov-logs", `/api/datasources/${d.id}`]) {
      const r = await api().put(path, { auth: ADMIN, body: { name: "Logs", type: "loki", url: "http://elsewhere" } });
      expect({ status: r.status, message: r.body.message }).toEqual({ status: 403, message: "Cannot update read-only data source" });
    }
    for (const path of ["/api/datasources/uid/prov-logs", "/api/datasources/name/Logs", `/api/datasources/${d.id}`]) {
      const r = await api().delete(path, { auth: ADMIN });
      expect({ status: r.status, message: r.body.message }).toEqual({ status: 403, message: "Cannot delete read-only data source" });
    }
    expect(await get("prov-logs")).toMatchObject({ url: "http://localhost:3100", version: 1 });
  });

  it("an editable one changes through the API", async () => {
    const r = await api().put("/api/datasources/uid/prov-edit", { auth: ADMIN, body: { name: "Editable", type: "prometheus", url: "http://changed:9009" } });
    expect(r.status).toBe(200);
    expect(r.body.datasource).toMatchObject({ url: "http://changed:9009", version: 2, readOnly: false });
  });

  it("a restart with the same file changes nothing of what matches it, and puts back what the API changed", async () => {
    await restart(join(dir, "first.yaml"));
    expect(await get("prov-logs")).toMatchObject({ version: 1, readOnly: true, secureJsonFields: { httpHeaderValue1: true } });
    // the file is the source of truth, for editable data sources too
    expect(await get("prov-edit")).toMatchObject({ url: "http://localhost:9009", version: 3 });
    await restart(join(dir, "first.yaml"));
    expect((await get("prov-edit")).version).toBe(3);
  }, 60_000);

  it("a secure value named by an entry must list provisioning.svc.app in spec.decrypters, or startup fails", async () => {
    const SV = "/apis/secret.svc.app/v1beta1/namespaces/default/securevalues";
    const sv = (name: string, extra: Record<string, unknown>) => ({ metadata: { name }, spec: { description: name, value: `${S2}-${name}`, ...extra } });
    expect((await api().post(SV, { auth: ADMIN, body: sv("prov-ok", { decrypters: ["provisioning.svc.app"] }) })).status).toBe(201);
    expect((await api().post(SV, { auth: ADMIN, body: sv("prov-no", { decrypters: ["loadtest-cloud"] }) })).status).toBe(201);
    await server!.stop();
    server = undefined;
    const refused = configFile("refs.yaml", JSON.stringify({ datasources: [{ name: "Logs", type: "loki", uid: "prov-logs", secureJsonData: { token: { name: "prov-no" } } }] }));
    const err = await start(refused).then((s) => s.stop().then(() => undefined), (e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems).toEqual([
      'datasources[0] (name "Logs"): secureJsonData.token: secure value "prov-no" does not list provisioning.svc.app in spec.decrypters',
    ]);
  }, 60_000);

  it("a changed file updates them: fields, secrets (a secret left out is cleared), a uid, a second organization", async () => {
    await restart(join(dir, "first.yaml"));
    const org = await api().post("/api/orgs", { auth: ADMIN, body: { name: "Provisioned org" } });
    expect(org.status).toBe(200);
    const changed = configFile("changed.yaml", JSON.stringify({
      datasources: [
        { name: "Logs", type: "loki", uid: "prov-logs", url: "http://localhost:3101", isDefault: true, secureJsonData: { password: S2, token: { name: "prov-ok" } } },
        { name: "Editable", type: "prometheus", uid: "prov-edit", url: "http://localhost:9009", editable: true },
        { name: "No uid", type: "prometheus", uid: "prov-nouid" },
        { name: "Logs", type: "loki", uid: "prov-logs", orgId: org.body.orgId, url: "http://org2:3100" },
      ],
    }));
    await restart(changed);
    expect(await get("prov-logs")).toMatchObject({
      url: "http://localhost:3101", version: 2, readOnly: true, secureJsonFields: { password: true, token: true }, jsonData: {},
    });
    // an entry found by name takes the uid it names
    expect(await get("prov-nouid")).toMatchObject({ name: "No uid", version: 2 });
    expect((await api().get(`/api/datasources/uid/${noUid}`, { auth: ADMIN })).status).toBe(404);
    expect((await get("prov-edit")).version).toBe(3);
    const other = await api().get("/api/datasources/uid/prov-logs", { auth: ADMIN, headers: { "X-Svc-Org-Id": String(org.body.orgId) } });
    expect(other.body).toMatchObject({ orgId: org.body.orgId, url: "http://org2:3100", readOnly: true });
    // one uid in two organizations: two data sources, each seen only in its own
    expect(other.body.id).not.toBe((await get("prov-logs")).id);
    const org2List = await api().get("/api/datasources", { auth: ADMIN, headers: { "X-Svc-Org-Id": String(org.body.orgId) } });
    expect((org2List.body as Array<{ uid: string }>).map((d) => d.uid)).toEqual(["prov-logs"]);
    expect((await api().get(`/api/datasources/${other.body.id}`, { auth: ADMIN })).status).toBe(404);
    const rows = await server!.db.pg.query("select * from secrets");
    expect(JSON.stringify(rows.rows)).not.toContain(S2);
  }, 60_000);

  it("an entry removed from the file -> the data source stays, no longer read-only", async () => {
    await restart(configFile("fewer.yaml", JSON.stringify({ datasources: [{ name: "Editable", type: "prometheus", uid: "prov-edit", url: "http://localhost:9009", editable: true }] })));
    const d = await get("prov-logs");
    expect(d).toMatchObject({ readOnly: false, version: 2, secureJsonFields: { password: true, token: true } });
    const r = await api().put("/api/datasources/uid/prov-logs", { auth: ADMIN, body: { name: "Logs", type: "loki", url: "http://api-owned:3100" } });
    expect(r.status).toBe(200);
    await restart(join(dir, "fewer.yaml"));
    expect(await get("prov-logs")).toMatchObject({ readOnly: false, url: "http://api-owned:3100", version: 3 });
    expect(logs.join("\n")).toContain("data source no longer in the config file");
  }, 60_000);

  it("no log line holds a secret of the file", () => {
    expect(logs.length).toBeGreaterThan(10);
    for (const s of [S1, S2]) expect(logs.join("\n")).not.toContain(s);
  });
});

describe("a provisioned data source that cannot be applied stops startup", () => {
  const SECRET = `s3cr3t-bad-${crypto.randomUUID()}`;
  const entry = (extra: Record<string, unknown>) => ({ name: "bad", type: "loki", url: "http://x", secureJsonData: { password: SECRET }, ...extra });
  const file = (...entries: unknown[]) => JSON.stringify({ datasources: [{ name: "fine", type: "prometheus" }, ...entries] });

  it("a bad url, uid or name, an unknown organization -> ConfigError naming datasources[1], without its secrets", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ url: "http://[::1" }, "Validation error, invalid URL"],
      [{ uid: "bad uid!" }, "UID is invalid"],
      [{ name: "n".repeat(191) }, "Invalid datasource name."],
      [{ orgId: 99 }, "organization 99 does not exist"],
      [{ secureJsonData: { token: { name: "missing-value" } } }, 'secure value "missing-value" not found'],
      [{ jsonData: { teamHttpHeaders: {} } }, "team HTTP headers"],
    ];
    for (const [extra, message] of cases) {
      const err = await startupError(file(entry(extra)));
      expect(err.problems).toHaveLength(1);
      expect(err.problems[0]).toMatch(/^datasources\[1\] \(name "(bad|n+)"\): /);
      expect(err.problems[0]).toContain(message);
      expect(err.message).not.toContain(SECRET);
    }
  }, 180_000); // six server startups: 62 s on a loaded machine

  it("two entries with one name or uid, or two defaults in one organization -> ConfigError", async () => {
    const dupName = await startupError(file(entry({ name: "fine" })));
    expect(dupName.problems[0]).toMatch(/^datasources\[1\] \(name "fine"\): .*datasources\[0\]/);
    const dupUid = await startupError(file(entry({ uid: "same" }), entry({ name: "other", uid: "same" })));
    expect(dupUid.problems[0]).toMatch(/^datasources\[2\] \(name "other"\): .*uid "same".*datasources\[1\]/);
    const defaults = await startupError(file(entry({ isDefault: true }), entry({ name: "other", isDefault: true })));
    expect(defaults.problems[0]).toMatch(/^datasources\[2\] \(name "other"\): .*default/);
    expect([dupName, dupUid, defaults].map((e) => e.message).join("\n")).not.toContain(SECRET);
  }, 120_000); // three server startups

  it("a secret of the wrong type -> the config error does not show it", async () => {
    const err = await startupError("datasources:\n  - name: bad\n    type: loki\n    secureJsonData:\n      password: 8675309123\n");
    expect(err.message).toMatch(/datasources\.0\.secureJsonData\.password/);
    expect(err.message).not.toContain("8675309123");
  }, 60_000);

  it("outpost serve with a bad entry -> exit 2 naming it, without its secret", () => {
    const path = configFile("cli.yaml", file(entry({ url: "http://[::1" })));
    const r = runToExit(bunBin, [join(repoRoot, "src", "main.ts"), "serve", "--config", path, "--in-memory", "--http-port", "0", "--logs-port", "0", "--metrics-port", "0"], { cwd: repoRoot, timeoutMs: 60_000 });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('datasources[1] (name "bad"): Validation error, invalid URL');
    expect(r.stderr + r.stdout).not.toContain(SECRET);
  }, 60_000);
});
