// Each basic role, as a user and as a service account token, allowed and
// refused on representative endpoints; and no response ever carries a
// password or its hash.
import { describe, expect, it } from "vitest";
import { ADMIN, bearer } from "../helpers/api.ts";
import { useServer } from "../helpers/server.ts";

type Role = "None" | "Viewer" | "Editor" | "Admin";
const ROLES: Role[] = ["None", "Viewer", "Editor", "Admin"];

// method, path, body, the lowest role allowed (undefined: server admins only)
const ENDPOINTS: Array<[string, string, unknown, Role | undefined]> = [
  ["GET", "/api/teams/search", undefined, "Editor"],
  ["POST", "/api/teams", { name: "matrix-team-%" }, "Admin"],
  ["GET", "/api/serviceaccounts/search", undefined, "Admin"],
  ["POST", "/api/serviceaccounts", { name: "matrix-sa-%", role: "None" }, "Admin"],
  ["GET", "/api/orgs/1/users", undefined, "Admin"],
  ["POST", "/api/orgs", { name: "matrix-org-%" }, undefined],
  ["POST", "/api/admin/users", { login: "matrix-user-%", password: "matrix-pw" }, undefined],
];

const rank = (r: Role) => ROLES.indexOf(r);

describe("basic roles on representative endpoints", () => {
  const t = useServer({ "server.edition": "enterprise" });
  let n = 0;
  const call = (method: string, path: string, body: unknown, auth: string) => {
    const b = body === undefined ? undefined : JSON.parse(JSON.stringify(body).replace("%", String(++n)));
    return method === "GET" ? t.api.get(path, { auth }) : t.api.post(path, { auth, body: b });
  };

  for (const role of ROLES) {
    it(`user with role ${role}`, async () => {
      const u = await t.api.user(`matrix-${role.toLowerCase()}`, role);
      expect((await t.api.get("/api/user", { auth: u.auth })).status).toBe(200);
      for (const [method, path, body, lowest] of ENDPOINTS) {
        const r = await call(method, path, body, u.auth);
        const allowed = lowest !== undefined && rank(role) >= rank(lowest);
        expect({ method, path, status: r.status }).toEqual({ method, path, status: allowed ? expect.any(Number) : 403 });
        if (allowed) expect([200, 201]).toContain(r.status);
      }
    });

    it(`service account token with role ${role}`, async () => {
      const sa = await t.api.post("/api/serviceaccounts", { auth: ADMIN, body: { name: `matrix token ${role}`, role } });
      const key = (await t.api.post(`/api/serviceaccounts/${sa.body.id}/tokens`, { auth: ADMIN, body: { name: `matrix-${role}` } })).body.key;
      expect((await t.api.get("/api/user", { auth: bearer(key) })).status).toBe(403);
      for (const [method, path, body, lowest] of ENDPOINTS) {
        const r = await call(method, path, body, bearer(key));
        const allowed = lowest !== undefined && rank(role) >= rank(lowest);
        expect({ method, path, status: r.status }).toEqual({ method, path, status: allowed ? expect.any(Number) : 403 });
        if (allowed) expect([200, 201]).toContain(r.status);
      }
    });
  }

  it("the server admin may do all of them", async () => {
    for (const [method, path, body] of ENDPOINTS) expect([200, 201]).toContain((await call(method, path, body, ADMIN)).status);
  });

  it("no endpoint returns a password or a password hash", async () => {
    const u = await t.api.user("sweep", "Admin");
    const team = await t.api.post("/api/teams", { auth: ADMIN, body: { name: "sweep team" } });
    await t.api.post(`/api/teams/${team.body.teamId}/members`, { auth: ADMIN, body: { userId: u.id } });
    const paths = [
      "/api/user", "/api/orgs/1/users", "/api/teams/search", `/api/teams/${team.body.teamId}`, `/api/teams/${team.body.teamId}/members`,
      "/api/serviceaccounts/search", "/api/access-control/roles?includeHidden=true",
    ];
    for (const path of paths) {
      for (const auth of [ADMIN, u.auth]) {
        const r = await t.api.get(path, { auth });
        expect(r.status).toBe(200);
        const text = JSON.stringify(r.body);
        expect(text).not.toMatch(/\$2[aby]\$\d\d\$/); // bcrypt
        expect(text).not.toMatch(/"password/i);
        expect(text).not.toContain(u.password);
      }
    }
  });
});
