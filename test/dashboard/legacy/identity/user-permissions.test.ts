// GET /api/access-control/user/permissions: the caller's own permissions as
// {action: [scopes]} (the real product's shape), which the admin page uses to
// hide what the user cannot do.
import { describe, expect, it } from "vitest";
import { ADMIN } from "../../../helpers/api.ts";
import { useServer } from "../../../helpers/server.ts";

describe("GET /api/access-control/user/permissions", () => {
  const t = useServer();

  it("admin -> every action it holds, with scopes", async () => {
    const r = await t.api.get("/api/access-control/user/permissions", { auth: ADMIN });
    expect(r.status).toBe(200);
    expect(r.body["serviceaccounts:create"]).toEqual(expect.arrayContaining([expect.any(String)]));
    expect(r.body["datasources:create"]).toBeDefined();
    for (const scopes of Object.values(r.body)) expect(Array.isArray(scopes)).toBe(true);
  });

  it("Viewer -> reads, but no service account or data source creation", async () => {
    const viewer = await t.api.user("perm-viewer", "Viewer");
    const r = await t.api.get("/api/access-control/user/permissions", { auth: viewer.auth });
    expect(r.status).toBe(200);
    expect(r.body["serviceaccounts:create"]).toBeUndefined();
    expect(r.body["datasources:create"]).toBeUndefined();
    expect(Object.keys(r.body).length).toBeGreaterThan(0);
  });

  it("no credentials -> 401", async () => {
    expect((await t.api.get("/api/access-control/user/permissions")).status).toBe(401);
  });
});
