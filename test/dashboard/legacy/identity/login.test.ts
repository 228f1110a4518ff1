// Admin-page sign-in with a session cookie.
import { describe, expect, it } from "vitest";
import { ADMIN, basic } from "../../../helpers/api.ts";
import { testClock, useServer } from "../../../helpers/server.ts";

const cookieOf = (setCookie: string | null) => /svc_session=([^;]*)/.exec(setCookie ?? "")?.[1] ?? "";
const clock = testClock();

describe("POST /login and GET /logout", () => {
  const t = useServer({ "security.session_lifetime": "1h" }, clock);
  const login = (user: string, password: string) => t.api.post("/login", { body: { user, password } });

  it("POST /login -> 200 and an HttpOnly, SameSite=Lax session cookie that authenticates", async () => {
    const r = await login("admin", "admin");
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ message: "Logged in" });
    const set = r.headers.get("set-cookie")!;
    expect(set).toMatch(/^svc_session=[A-Za-z0-9_-]{43}; /);
    expect(set).toMatch(/HttpOnly/);
    expect(set).toMatch(/SameSite=Lax/);
    expect(set).toMatch(/Path=\//);
    const me = await t.api.get("/api/user", { headers: { Cookie: `svc_session=${cookieOf(set)}` } });
    expect(me.status).toBe(200);
    expect(me.body.login).toBe("admin");
  });

  it("POST /login with a wrong password -> 401, no cookie; a missing field -> 400", async () => {
    const r = await login("admin", "wrong");
    expect(r.status).toBe(401);
    expect(r.body.message).toBe("Invalid username or password");
    expect(r.headers.get("set-cookie")).toBeNull();
    expect((await t.api.post("/login", { body: { user: "admin" } })).status).toBe(400);
  });

  it("GET /logout ends the session and clears the cookie", async () => {
    const token = cookieOf((await login("admin", "admin")).headers.get("set-cookie"));
    const res = await fetch(`${t.server.urls.dashboard}/logout`, { headers: { Cookie: `svc_session=${token}` }, redirect: "manual" });
    expect(res.status).toBe(302);
    expect(res.headers.get("set-cookie")).toMatch(/svc_session=;.*Max-Age=0/);
    expect((await t.api.get("/api/user", { headers: { Cookie: `svc_session=${token}` } })).status).toBe(401);
  });

  it("a session expires after its lifetime; a changed password ends sessions", async () => {
    const u = await t.api.user("sessioner", "Viewer");
    const cookie = () => login("sessioner", u.password).then((r) => ({ Cookie: `svc_session=${cookieOf(r.headers.get("set-cookie"))}` }));
    const first = await cookie();
    expect((await t.api.get("/api/user", { headers: first })).status).toBe(200);
    clock.advance(3601_000);
    expect((await t.api.get("/api/user", { headers: first })).status).toBe(401);
    const second = await cookie();
    await t.api.put("/api/user/password", { auth: u.auth, body: { oldPassword: u.password, newPassword: "changed-pw" } });
    expect((await t.api.get("/api/user", { headers: second })).status).toBe(401);
    expect((await t.api.get("/api/user", { auth: basic("sessioner", "changed-pw") })).status).toBe(200);
  });

  it("PUT /api/user/password from a session keeps that session signed in and ends the user's others", async () => {
    const u = await t.api.user("pagechanger", "Viewer");
    const cookie = (password: string) => login("pagechanger", password).then((r) => ({ Cookie: `svc_session=${cookieOf(r.headers.get("set-cookie"))}` }));
    const page = await cookie(u.password);
    const other = await cookie(u.password);
    const r = await t.api.put("/api/user/password", { headers: page, body: { oldPassword: u.password, newPassword: "changed-from-page" } });
    expect(r.status).toBe(200);
    expect((await t.api.get("/api/user", { headers: page })).status).toBe(200);
    expect((await t.api.get("/api/user", { headers: other })).status).toBe(401);
  });

  it("a forged or unknown cookie -> 401", async () => {
    expect((await t.api.get("/api/user", { headers: { Cookie: "svc_session=forged" } })).status).toBe(401);
    expect((await t.api.get("/api/user", { headers: { Cookie: `svc_session=${"A".repeat(43)}` } })).status).toBe(401);
  });
});

describe("cloud edition", () => {
  const t = useServer({ "server.edition": "cloud" });

  it("basic authentication and password sign-in are refused", async () => {
    const r = await t.api.get("/api/user", { auth: ADMIN });
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ messageId: "basic-auth.disabled" });
    expect((await t.api.post("/login", { body: { user: "admin", password: "admin" } })).status).toBe(401);
  });
});
