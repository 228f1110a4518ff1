// Server-admin figures: GET /api/admin/settings (the configuration in the
// real product's {section: {key: "value"}} shape, secrets redacted) and
// GET /api/admin/stats (its counters, plus the data dir's size).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ADMIN, bearer } from "../../../helpers/api.ts";
import { useServer } from "../../../helpers/server.ts";

const METRICS_TOKEN = "metrics-admin-token-never-shown";
const DASH = "/apis/dashboard.svc.app/v1/namespaces/default/dashboards";

describe("GET /api/admin/settings and /api/admin/stats (in memory)", () => {
  const t = useServer({ "metrics.admin_token": METRICS_TOKEN, "security.previous_secret_keys": ["an-old-secret-key"] });

  it("GET /api/admin/settings -> sections of strings, nested blocks as dotted keys, secrets redacted", async () => {
    const r = await t.api.get("/api/admin/settings", { auth: ADMIN });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(["auth", "backups", "dashboard", "logs", "metrics", "security", "server", "storage"]);
    expect(r.body.auth).toMatchObject({ "ldap.enabled": "false" });
    for (const section of Object.values(r.body) as Array<Record<string, unknown>>) {
      for (const value of Object.values(section)) expect(typeof value).toBe("string");
    }
    expect(r.body.server).toMatchObject({ host: "127.0.0.1", edition: "oss", "http_tls_config.cert_file": "", shutdown_timeout: "10s" });
    expect(r.body.logs).toMatchObject({ "auth_proxy.enabled": "false", "auth_proxy.realm": expect.any(String), "limits.reject_old_samples": expect.any(String) });
    expect(r.body.storage.in_memory).toBe("true");
    expect(r.body.security).toMatchObject({
      admin_password: "*********", secret_key: "*********", previous_secret_keys: "*********", login_lockout_duration: "5m",
    });
    expect(r.body.metrics.admin_token).toBe("*********");
    const text = JSON.stringify(r.body);
    expect(text).not.toContain(METRICS_TOKEN);
    expect(text).not.toContain("an-old-secret-key");
  });

  it("GET /api/admin/stats -> the real product's counters and the storage block", async () => {
    await t.api.user("stats-editor", "Editor");
    await t.api.user("stats-viewer", "Viewer");
    await t.api.post("/api/serviceaccounts", { auth: ADMIN, body: { name: "stats robot", role: "Admin" } });
    const dash = (name: string, tags: string[]) => ({ metadata: { name }, spec: { title: name, tags } });
    expect((await t.api.post(DASH, { auth: ADMIN, body: dash("stats-a", ["prod", "web"]) })).status).toBe(201);
    expect((await t.api.post(DASH, { auth: ADMIN, body: dash("stats-b", ["web"]) })).status).toBe(201);
    const r = await t.api.get("/api/admin/stats", { auth: ADMIN });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      orgs: 1, users: 3, admins: 1, editors: 1, viewers: 1, dashboards: 2, tags: 2, folders: 0, playlists: 0,
      serviceAccounts: 1, serviceAccountTokens: 0, datasources: 0, stars: 0, annotations: 0, libraryPanels: 0, alerts: 0, snapshots: 0,
      storage: { dataDir: null, bytes: 0 },
    });
    for (const key of ["activeUsers", "activeAdmins", "activeSessions", "dailyActiveUsers", "monthlyActiveUsers"]) {
      expect(typeof r.body[key]).toBe("number");
    }
    await t.api.post("/login", { body: { user: "stats-editor", password: "pw-stats-editor-secret" } });
    const after = (await t.api.get("/api/admin/stats", { auth: ADMIN })).body;
    expect(after.activeUsers).toBe(r.body.activeUsers + 1);
    expect(after.activeEditors).toBe(r.body.activeEditors + 1);
    expect(after.activeSessions).toBe(r.body.activeSessions + 1);
  });

  it("org Admin or a service account token -> 403 naming settings:read / server.stats:read", async () => {
    const orgAdmin = await t.api.user("settings-org-admin", "Admin");
    const sa = await t.api.post("/api/serviceaccounts", { auth: ADMIN, body: { name: "settings sa", role: "Admin" } });
    const key = (await t.api.post(`/api/serviceaccounts/${sa.body.id}/tokens`, { auth: ADMIN, body: { name: "s" } })).body.key;
    for (const auth of [orgAdmin.auth, bearer(key)]) {
      const s = await t.api.get("/api/admin/settings", { auth });
      expect(s.status).toBe(403);
      expect(s.body.message).toMatch(/Permissions needed: settings:read$/);
      const st = await t.api.get("/api/admin/stats", { auth });
      expect(st.status).toBe(403);
      expect(st.body.message).toMatch(/Permissions needed: server.stats:read$/);
    }
    expect((await t.api.get("/api/admin/stats")).status).toBe(401);
  });
});

const dataDir = mkdtempSync(join(tmpdir(), "outpost-stats-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe("GET /api/admin/stats (data dir on disk)", () => {
  const t = useServer({ "storage.in_memory": false, "storage.data_dir": dataDir });

  it("-> storage.dataDir and the bytes of its files", async () => {
    const r = await t.api.get("/api/admin/stats", { auth: ADMIN });
    expect(r.status).toBe(200);
    expect(r.body.storage.dataDir).toBe(dataDir);
    // the database's own files alone are megabytes (a PostgreSQL server's database is counted apart)
    expect(r.body.storage.bytes + (r.body.storage.databaseBytes ?? 0)).toBeGreaterThan(1_000_000);
    expect(r.body.storage.backend).toBe(t.server.db.backend);
    // a second call within 10 s reuses the walk
    expect((await t.api.get("/api/admin/stats", { auth: ADMIN })).body.storage.bytes).toBe(r.body.storage.bytes);
  });
});

describe("ports chosen with 0 (issue 21): what the dashboard reports is where the listeners are", () => {
  const t = useServer({ "server.edition": "enterprise" });

  it("GET /api/admin/settings shows the bound ports; appUrl and DELETE /api/licensing/token use the dashboard's", async () => {
    const port = (url: string | undefined) => new URL(url!).port;
    const settings = (await t.api.get("/api/admin/settings", { auth: ADMIN })).body;
    expect(settings.dashboard.http_port).toBe(port(t.server.urls.dashboard));
    expect(settings.logs.http_port).toBe(port(t.server.urls.logs));
    expect(settings.metrics.http_port).toBe(port(t.server.urls.metrics));
    expect(settings.dashboard.http_port).not.toBe("0");
    const appUrl = `http://localhost:${port(t.server.urls.dashboard)}/`;
    expect((await t.api.get("/api/frontend/settings", { auth: ADMIN })).body.licenseInfo.appUrl).toBe(appUrl);
    const del = await t.api.delete("/api/licensing/token", { auth: ADMIN, body: { instance: appUrl } });
    expect(del.status).toBe(202);
    const wrong = await t.api.delete("/api/licensing/token", { auth: ADMIN, body: { instance: "http://localhost:0/" } });
    expect(wrong.status).toBe(422);
  });
});
