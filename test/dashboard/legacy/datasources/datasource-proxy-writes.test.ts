// Issue 16 #8: one method/path allow-list for the data source proxy and
// resource calls. Reads need datasources:query; writes to a store (ruler
// configuration, pushes, anything not a read endpoint) need datasources:write
// on the data source; POSTs to a prometheus data source outside the real
// plugin's read routes are refused for everyone, as the real product does.
// Against the bundled stores: a Viewer and an Editor are refused and nothing
// is stored; the org Admin (datasources:write) may push.
import { beforeAll, describe, expect, it } from "vitest";
import { ADMIN } from "../../../helpers/api.ts";
import { useServer } from "../../../helpers/server.ts";
import { logClient, nsAgo } from "../../../logstore/helpers.ts";
import { metricsClient } from "../../../metrics/helpers.ts";

const TENANT = "proxy-writes";
const RULES = "groups:\n  - name: forged\n    rules:\n      - record: forged:up\n        expr: vector(1)\n";

describe("issue 16 #8: writes through the data source proxy and resources", () => {
  const t = useServer();
  const users = {} as Record<"viewer" | "editor" | "orgAdmin", { auth: string }>;
  let logs = "";
  let metrics = "";

  beforeAll(async () => {
    const create = async (body: Record<string, unknown>) => {
      const r = await t.api.post("/api/datasources", { auth: ADMIN, body: { access: "proxy", jsonData: { tenantId: TENANT }, ...body } });
      expect(r.status).toBe(200);
      return r.body.datasource.uid as string;
    };
    logs = await create({ name: "writes-logs", type: "loki", url: t.server.urls.logs });
    metrics = await create({ name: "writes-metrics", type: "prometheus", url: `${t.server.urls.metrics}/prometheus` });
    users.viewer = await t.api.user("writes-viewer", "Viewer");
    users.editor = await t.api.user("writes-editor", "Editor");
    users.orgAdmin = await t.api.user("writes-admin", "Admin");
  });

  const send = (auth: string, method: string, path: string, body?: string, contentType = "application/json") =>
    fetch(t.server.urls.dashboard + path, { method, headers: { Authorization: auth, "Content-Type": contentType }, body });
  const pushBody = (line: string) => JSON.stringify({ streams: [{ stream: { app: "forged" }, values: [[nsAgo(1), line]] }] });

  /** the lines of {app="forged"} in the log store, asked directly */
  async function forgedLines(): Promise<string[]> {
    const r = await logClient(t.server.urls.logs!).get("/svc/api/v1/query_range", TENANT, {
      query: '{app="forged"}', start: nsAgo(3600), end: nsAgo(-60), limit: "100",
    });
    expect(r.status).toBe(200);
    return (r.body.data.result as Array<{ values: Array<[string, string]> }>).flatMap((s) => s.values.map((v) => v[1]));
  }

  it("a Viewer's and an Editor's POST resources|proxy/config/v1/rules/<ns> (metrics) -> 403, no rule stored", async () => {
    for (const who of [users.viewer, users.editor]) {
      for (const path of [`/api/datasources/uid/${metrics}/resources/config/v1/rules/forged`, `/api/datasources/proxy/uid/${metrics}/config/v1/rules/forged`]) {
        const r = await send(who.auth, "POST", path, RULES, "application/yaml");
        expect({ path, status: r.status }).toEqual({ path, status: 403 });
        expect((await r.json()).message).toBe("non allow-listed POSTs not allowed on proxied Prometheus datasource");
      }
    }
    const stored = await metricsClient(t.server.urls.metrics!).get("/prometheus/config/v1/rules", TENANT);
    expect(stored.text ?? "").not.toContain("forged");
  });

  it("a Viewer's and an Editor's POST proxy|resources push (logs) -> 403, no line stored; the org Admin's -> 204", async () => {
    for (const who of [users.viewer, users.editor]) {
      for (const path of [`/api/datasources/proxy/uid/${logs}/svc/api/v1/push`, `/api/datasources/uid/${logs}/resources/push`, `/api/datasources/proxy/uid/${logs}/api/prom/push`]) {
        const r = await send(who.auth, "POST", path, pushBody("forged by a query user"));
        expect({ path, status: r.status }).toEqual({ path, status: 403 });
        expect((await r.json()).message).toContain("writing through the data source needs datasources:write");
      }
    }
    expect(await forgedLines()).toEqual([]);
    const admin = await send(users.orgAdmin.auth, "POST", `/api/datasources/proxy/uid/${logs}/svc/api/v1/push`, pushBody("pushed by the org admin"));
    expect(admin.status).toBe(204);
    expect(await forgedLines()).toEqual(["pushed by the org admin"]);
  });

  it("GET of a non-read endpoint (the ruler configuration) -> 403 for a Viewer, 200 for the org Admin; in both modes", async () => {
    for (const path of [`/api/datasources/proxy/uid/${metrics}/config/v1/rules`, `/api/datasources/uid/${metrics}/resources/config/v1/rules`]) {
      expect((await send(users.viewer.auth, "GET", path)).status).toBe(403);
      const admin = await send(users.orgAdmin.auth, "GET", path);
      expect({ path, status: admin.status }).not.toEqual({ path, status: 403 });
    }
  });

  it("reads stay open to a Viewer in both modes: query, labels, series, POST query_range (form)", async () => {
    const reads = [
      ["GET", `/api/datasources/proxy/uid/${metrics}/api/v1/query?query=up`],
      ["GET", `/api/datasources/uid/${metrics}/resources/api/v1/labels`],
      ["GET", `/api/datasources/uid/${metrics}/resources/api/v1/label/__name__/values`],
      ["GET", `/api/datasources/proxy/uid/${logs}/svc/api/v1/labels`],
      ["GET", `/api/datasources/uid/${logs}/resources/series?match[]=${encodeURIComponent('{app="x"}')}`],
    ];
    for (const [method, path] of reads) {
      const r = await send(users.viewer.auth, method!, path!);
      expect({ path, status: r.status }).toEqual({ path, status: 200 });
    }
    const form = `query=${encodeURIComponent('{app="forged"}')}&start=${nsAgo(3600)}&end=${nsAgo(-60)}`;
    for (const path of [`/api/datasources/proxy/uid/${logs}/svc/api/v1/query_range`, `/api/datasources/uid/${logs}/resources/query_range`]) {
      const r = await send(users.viewer.auth, "POST", path, form, "application/x-www-form-urlencoded");
      expect({ path, status: r.status }).toEqual({ path, status: 200 });
    }
    const promForm = await send(users.viewer.auth, "POST", `/api/datasources/uid/${metrics}/resources/api/v1/query_range`, `query=up&start=1&end=2&step=1`, "application/x-www-form-urlencoded");
    expect(promForm.status).toBe(200);
  });
});
