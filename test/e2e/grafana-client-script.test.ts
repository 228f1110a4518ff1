// A folders-and-dashboards script driven the way the Python grafana-client
// (5.1 line) drives the real product: its request runner (requests with a
// session: basic auth, its User-Agent, X-Grafana-Org-Id for organization_id,
// JSON bodies as its element methods build them, unset fields as null, GET
// parameters sent as a form body, an exception on every status >= 400) and
// the calls its users make (folder.py, dashboard.py, dashboard_versions.py,
// search.py, health.py). PyPI is not reachable from CI, so the library
// itself cannot run here; each request below is the one its source sends
// (docs/compatibility.md lists the methods and what they send).
import { request as httpRequest } from "node:http";
import { describe, expect, it } from "vitest";
import { useServer } from "../helpers/server.ts";

class GrafanaClientError extends Error {
  constructor(readonly status: number, readonly response: unknown) {
    super(`Client Error ${status}: ${JSON.stringify(response)}`);
  }
}

function send(url: string, method: string, headers: Record<string, string>, body: string | undefined) {
  return new Promise<{ status: number; contentType: string; text: string }>((resolve, reject) => {
    const req = httpRequest(url, { method, headers: body === undefined ? headers : { ...headers, "Content-Length": String(Buffer.byteLength(body)) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers["content-type"] ?? ""), text: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** GrafanaClient.__getattr__'s request runner, request for request */
function grafanaClient(base: string, auth: [string, string], organizationId?: number) {
  const session: Record<string, string> = { "User-Agent": "grafana-client/5.1.4", Accept: "*/*", Authorization: `Basic ${btoa(auth.join(":"))}` };
  if (organizationId) session["X-Grafana-Org-Id"] = String(organizationId);
  const request = async (method: string, url: string, opts: { json?: unknown; data?: Record<string, unknown> } = {}) => {
    const headers = { ...session };
    let body: string | undefined;
    if (opts.json !== undefined) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(opts.json);
    } else if (opts.data && Object.keys(opts.data).length) {
      // requests form-encodes `data=`, even on a GET (dashboard_versions.py does this)
      headers["Content-Type"] = "application/x-www-form-urlencoded";
      body = new URLSearchParams(Object.entries(opts.data).map(([k, v]) => [k, String(v)])).toString();
    }
    // node:http, not fetch: fetch refuses a body on a GET, which requests sends
    const r = await send(`${base}/api${url}`, method.toUpperCase(), headers, body);
    const text = r.text;
    if (r.status >= 400) {
      let response: unknown = text;
      try {
        response = JSON.parse(text);
      } catch {
        // the library keeps the text
      }
      throw new GrafanaClientError(r.status, response);
    }
    if (r.status === 204) return null;
    if (r.contentType.startsWith("text/")) return text;
    return JSON.parse(text);
  };
  return {
    GET: (url: string, opts?: { data?: Record<string, unknown> }) => request("get", url, opts),
    POST: (url: string, opts?: { json?: unknown }) => request("post", url, opts),
    PUT: (url: string, opts?: { json?: unknown }) => request("put", url, opts),
    DELETE: (url: string) => request("delete", url),
  };
}

describe("a grafana-client script: folders, dashboards, versions, permissions, search", () => {
  const t = useServer();

  it("runs from start to end as it does against the real product", async () => {
    const api = grafanaClient(t.server.urls.dashboard, ["admin", "admin"]);

    // GrafanaApi.version: health.check() -> version gates the >= 8 code paths
    const health = await api.GET("/health");
    expect(Number(String(health.version).split(".")[0])).toBeGreaterThanOrEqual(8);

    // folder.create_folder(title, uid, parent_uid)
    const team = await api.POST("/folders", { json: { title: "Team A", uid: "gc-team-a" } });
    expect(team.uid).toBe("gc-team-a");
    const sub = await api.POST("/folders", { json: { title: "Team A / prod", uid: "gc-team-a-prod", parentUid: "gc-team-a" } });
    // folder.get_all_folders(parent_uid)
    const children = await api.GET("/folders?parentUid=gc-team-a");
    expect(children.map((f: { uid: string }) => f.uid)).toEqual(["gc-team-a-prod"]);
    // folder.get_folder(uid), folder.get_folder_by_id(id)
    expect((await api.GET(`/folders/gc-team-a-prod`)).parentUid).toBe("gc-team-a");
    expect((await api.GET(`/folders/id/${sub.id}`)).uid).toBe("gc-team-a-prod");
    // folder.update_folder(uid, title, version) and with overwrite=True
    const renamed = await api.PUT("/folders/gc-team-a", { json: { title: "Team A (renamed)", version: team.version } });
    expect(renamed.title).toBe("Team A (renamed)");
    await expect(api.PUT("/folders/gc-team-a", { json: { title: "stale", version: team.version } })).rejects.toMatchObject({ status: 412 });
    await api.PUT("/folders/gc-team-a", { json: { title: "Team A", overwrite: true } });

    // dashboard.update_dashboard({...}): the dashboard JSON as exported, with null id and uid on a new one
    const dashboardJson = {
      id: null, uid: null, title: "Service overview", tags: ["gc", "prod"], timezone: "browser", schemaVersion: 39, version: 0,
      panels: [{ id: 1, type: "timeseries", title: "Requests", gridPos: { x: 0, y: 0, w: 12, h: 8 }, targets: [{ refId: "A", expr: "up" }] }],
    };
    const created = await api.POST("/dashboards/db", {
      json: { dashboard: dashboardJson, folderUid: "gc-team-a-prod", folderId: null, message: "created by script", overwrite: false },
    });
    expect(created).toMatchObject({ status: "success", version: 1, folderUid: "gc-team-a-prod" });
    const uid = created.uid as string;

    // dashboard.get_dashboard(uid) -> {dashboard, meta}; scripts then edit and post it back with the meta's folderUid
    const fetched = await api.GET(`/dashboards/uid/${uid}`);
    expect(fetched.meta.folderUid).toBe("gc-team-a-prod");
    expect(fetched.dashboard.panels[0].targets[0].expr).toBe("up");
    fetched.dashboard.title = "Service overview (v2)";
    const updated = await api.POST("/dashboards/db", { json: { dashboard: fetched.dashboard, folderUid: fetched.meta.folderUid, overwrite: false, message: "v2" } });
    expect(updated.version).toBe(2);
    // a second writer posting the old version is refused with the real product's 412
    await expect(api.POST("/dashboards/db", { json: { dashboard: { ...fetched.dashboard, version: 1 }, folderUid: "gc-team-a-prod" } })).rejects.toMatchObject({
      status: 412, response: { status: "version-mismatch" },
    });

    // dashboard_versions: list (limit as a form body on a GET), one, restore
    const versions = await api.GET(`/dashboards/uid/${uid}/versions`, { data: { limit: 10 } });
    expect(versions.versions.map((v: { version: number }) => v.version)).toEqual([2, 1]);
    const v1 = await api.GET(`/dashboards/uid/${uid}/versions/1`);
    expect(v1.data.title).toBe("Service overview");
    const restored = await api.POST(`/dashboards/uid/${uid}/restore`, { json: { version: 1 } });
    expect(restored.version).toBe(3);

    // dashboard.update_permissions_by_uid(uid, items) and get_permissions_by_uid(uid)
    const viewer = await t.api.user("gc-viewer", "Viewer");
    await api.POST(`/dashboards/uid/${uid}/permissions`, { json: { items: [{ userId: viewer.id, permission: 2 }] } });
    const perms = await api.GET(`/dashboards/uid/${uid}/permissions`);
    expect(perms.some((p: { userId: number; permission: number; inherited: boolean }) => p.userId === viewer.id && p.permission === 2 && !p.inherited)).toBe(true);
    // folder.update_folder_permissions(uid, items)
    await api.POST("/folders/gc-team-a/permissions", { json: { items: [{ role: "Editor", permission: 2 }] } });

    // search.search_dashboards(query=..., tag=..., type_="dash-db")
    const hits = await api.GET("/search?query=Service&tag=gc&type=dash-db");
    expect(hits).toEqual([expect.objectContaining({ uid, title: "Service overview", url: expect.stringContaining(`/d/${uid}/`), folderUid: "gc-team-a-prod" })]);
    // dashboard.get_dashboards_tags(), get_home_dashboard()
    expect(await api.GET("/dashboards/tags")).toEqual(expect.arrayContaining([{ term: "gc", count: 1 }, { term: "prod", count: 1 }]));
    expect((await api.GET("/dashboards/home")).meta.isHome).toBe(true);

    // folder.move_folder(uid, parent_uid) to the root, then delete_dashboard and delete_folder
    expect((await api.POST("/folders/gc-team-a-prod/move", { json: { parentUid: "" } })).parentUid).toBeUndefined();
    expect((await api.DELETE(`/dashboards/uid/${uid}`)).message).toBe("Dashboard Service overview deleted");
    await expect(api.GET(`/dashboards/uid/${uid}`)).rejects.toMatchObject({ status: 404 });
    expect((await api.DELETE("/folders/gc-team-a-prod")).message).toBe("Folder Team A / prod deleted");
    expect((await api.DELETE("/folders/gc-team-a")).message).toBe("Folder Team A deleted");
  });

  it("GrafanaApi(organization_id=N) writes into organization N, never into the caller's current one", async () => {
    const admin = grafanaClient(t.server.urls.dashboard, ["admin", "admin"]);
    const org = await admin.POST("/orgs", { json: { name: "gc-org-two" } });
    const inOrg = grafanaClient(t.server.urls.dashboard, ["admin", "admin"], org.orgId);
    await inOrg.POST("/folders", { json: { title: "Only in org two", uid: "gc-org2-f" } });
    await inOrg.POST("/dashboards/db", { json: { dashboard: { id: null, uid: "gc-org2-d", title: "Org two dash" }, folderUid: "gc-org2-f", overwrite: false } });
    expect((await inOrg.GET("/dashboards/uid/gc-org2-d")).meta.folderUid).toBe("gc-org2-f");
    await expect(admin.GET("/dashboards/uid/gc-org2-d")).rejects.toMatchObject({ status: 404 });
    await expect(admin.GET("/folders/gc-org2-f")).rejects.toMatchObject({ status: 404 });
    // a user outside that organization naming it -> refused, not answered in org 1
    const viewer = await t.api.user("gc-outsider", "Viewer");
    const outsider = grafanaClient(t.server.urls.dashboard, [viewer.login, viewer.password], org.orgId);
    await expect(outsider.GET("/folders")).rejects.toMatchObject({ status: 403 });
  });
});
