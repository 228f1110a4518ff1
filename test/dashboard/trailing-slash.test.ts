// Issue 21: a trailing slash reaches the same route, as the real product's
// router lets it (grafana-client's own integration test creates a service
// account with POST /api/serviceaccounts/). The guard of the route holds
// with the slash as without it.
import { describe, expect, it } from "vitest";
import { ADMIN } from "../helpers/api.ts";
import { useServer } from "../helpers/server.ts";

describe("a trailing slash on a dashboard route", () => {
  const t = useServer({});

  it("POST /api/serviceaccounts/ -> 201, as without the slash", async () => {
    const r = await t.api.post("/api/serviceaccounts/", { auth: ADMIN, body: { name: "slash-sa", role: "Viewer" } });
    expect(r.status).toBe(201);
    expect(r.body.name).toBe("slash-sa");
  });

  it("GET /api/datasources/ and GET /api/user/ -> the same answers as without it", async () => {
    for (const path of ["/api/datasources", "/api/user"]) {
      const plain = await t.api.get(path, { auth: ADMIN });
      const slash = await t.api.get(`${path}/`, { auth: ADMIN });
      expect(slash.status).toBe(200);
      expect(slash.body).toEqual(plain.body);
    }
  });

  it("the route's guard still applies: GET /api/datasources/ without credentials -> 401, a Viewer's POST /api/serviceaccounts/ -> 403", async () => {
    expect((await t.api.get("/api/datasources/")).status).toBe(401);
    const v = await t.api.user("slash-viewer", "Viewer");
    expect((await t.api.post("/api/serviceaccounts/", { auth: v.auth, body: { name: "nope" } })).status).toBe(403);
  });
});
