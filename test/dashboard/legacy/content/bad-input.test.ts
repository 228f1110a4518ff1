// Hostile values on the legacy folder, dashboard, version, permission,
// playlist, snapshot, rule-group and organization routes: numbers past
// every column's range, wrong types, oversized strings, unknown ids. Each
// answer is a 4xx (never 5xx); the ones a review found answering 500 are
// pinned to their 400 naming the field.
import { beforeAll, describe, expect, it } from "vitest";
import { ADMIN } from "../../../helpers/api.ts";
import { useServer } from "../../../helpers/server.ts";

describe("bad input on issue 21's routes", () => {
  const t = useServer();
  beforeAll(async () => {
    await t.api.post("/api/folders", { auth: ADMIN, body: { uid: "bi-f", title: "bi-f" } });
    await t.api.post("/api/dashboards/db", { auth: ADMIN, body: { dashboard: { uid: "bi-d", title: "bi-d" }, folderUid: "bi-f" } });
  });
  const big = 1e300;

  it("numbers past a column's range -> 400 naming the field (these answered 500)", async () => {
    const cases: Array<[string, unknown, string]> = [
      ["/api/dashboards/uid/bi-d/restore", { version: big }, "version"],
      ["/api/folders/bi-f/permissions", { items: [{ userId: big, permission: 1 }] }, "userId"],
      ["/api/folders/bi-f/permissions", { items: [{ teamId: 2 ** 40, permission: 1 }] }, "teamId"],
      ["/api/snapshots", { dashboard: {}, expires: big }, "expires"],
      ["/api/snapshots", { dashboard: {}, expires: 2 ** 52 }, "expires"],
    ];
    for (const [path, body, field] of cases) {
      const r = await t.api.post(path, { auth: ADMIN, body });
      expect(r.status, `${path} ${JSON.stringify(body)}`).toBe(400);
      expect(r.body.message).toContain(field);
    }
  });

  it("every other hostile value -> a 4xx or a 2xx, never 5xx", async () => {
    const calls: Array<[string, string, unknown]> = [
      ["POST", "/api/dashboards/uid/bi-d/restore", { version: 2 ** 53 }],
      ["GET", "/api/dashboards/uid/bi-d/versions/9999999999", undefined],
      ["GET", "/api/dashboards/uid/bi-d/versions?limit=99999999999999999999&start=99999999999999999999", undefined],
      ["GET", "/api/dashboards/uid/bi-d/versions?continueToken=999999999999999999", undefined],
      ["POST", "/api/dashboards/db", { dashboard: { id: big, title: "x" } }],
      ["POST", "/api/dashboards/db", { dashboard: { title: "x" }, folderId: big }],
      ["POST", "/api/dashboards/db", { dashboard: { title: "x".repeat(300) } }],
      ["POST", "/api/dashboards/db", { dashboard: { title: 7 } }],
      ["POST", "/api/dashboards/db", { dashboard: { title: "x", uid: 7 } }],
      ["POST", "/api/dashboards/db", { dashboard: { title: "x", tags: "notarray" } }],
      ["PUT", "/api/folders/bi-f", { title: "x", version: big }],
      ["GET", "/api/folders/id/99999999999", undefined],
      ["GET", "/api/dashboards/id/4294967296/versions", undefined],
      ["GET", "/api/folders?limit=99999999999999999999&page=99999999999999999999", undefined],
      ["POST", "/api/folders", { title: "y".repeat(300) }],
      ["POST", "/api/folders/bi-f/move", { parentUid: 5 }],
      ["GET", "/api/playlists?limit=99999999999999999999", undefined],
      ["POST", "/api/playlists", { name: "p".repeat(300), interval: "5m" }],
      ["POST", "/api/playlists", { name: "p", interval: "5m", items: [{ type: "dashboard_by_id", value: "x", order: big }] }],
      ["GET", "/api/dashboard/snapshots?limit=99999999999999999999", undefined],
      ["POST", "/api/snapshots", { dashboard: {}, name: "n".repeat(100_000) }],
      ["PUT", "/api/v1/provisioning/folder/bi-f/rule-groups/g", { interval: big, rules: [] }],
      ["PUT", "/api/v1/provisioning/folder/bi-f/rule-groups/g", { interval: 10 * 2 ** 40, rules: [] }],
      ["DELETE", "/api/orgs/99999999999999", undefined],
      ["DELETE", "/api/orgs/abc", undefined],
    ];
    for (const [method, path, body] of calls) {
      const call = { auth: ADMIN, ...(body !== undefined ? { body } : {}) };
      const r = method === "GET" ? await t.api.get(path, call) : method === "PUT" ? await t.api.put(path, call)
        : method === "DELETE" ? await t.api.delete(path, call) : await t.api.post(path, call);
      expect(r.status, `${method} ${path} ${JSON.stringify(body)?.slice(0, 80)}: ${JSON.stringify(r.body).slice(0, 160)}`).toBeLessThan(500);
    }
  });
});
