// Issue 16 #6: cross-site request forgery on cookie sessions. A state-changing
// request carrying the session cookie must come from the dashboard's own origin
// (or a trusted one); JSON endpoints take application/json only (415), so no
// form can post a body they would parse.
import { beforeAll, describe, expect, it } from "vitest";
import { ADMIN, bearer } from "../helpers/api.ts";
import { useServer } from "../helpers/server.ts";

const cookieOf = (setCookie: string | null) => /svc_session=([^;]*)/.exec(setCookie ?? "")?.[1] ?? "";

describe("CSRF: cookie-authenticated requests and their Origin", () => {
  const t = useServer({
    "security.csrf_trusted_origins": ["https://tools.corp.test", "wiki-trusted.corp.test"],
    "security.csrf_additional_headers": ["X-Forwarded-Host"],
  });
  let cookie = "";
  let self = "";
  let n = 0;
  beforeAll(async () => {
    const r = await t.api.post("/login", { body: { user: "admin", password: "admin" } });
    cookie = `svc_session=${cookieOf(r.headers.get("set-cookie"))}`;
    self = t.server.urls.dashboard;
  });

  /** POST /api/admin/users as a browser page would, with the admin's cookie */
  const createUser = (headers: Record<string, string>, body?: string) => {
    const login = `csrf-${++n}`;
    return fetch(`${self}/api/admin/users`, {
      method: "POST",
      headers: { Cookie: cookie, "Content-Type": "application/json", ...headers },
      body: body ?? JSON.stringify({ login, password: "pw-csrf-victim", name: login }),
    }).then(async (res) => ({ status: res.status, body: await res.json().catch(() => undefined), login }));
  };
  const exists = async (login: string) =>
    ((await t.api.get(`/api/users/search?query=${login}`, { auth: ADMIN })).body.users as Array<{ login: string }>).some((u) => u.login === login);

  it("POST with the cookie from a sibling subdomain -> 403 origin not allowed, nothing created", async () => {
    const r = await createUser({ Origin: "http://wiki.corp.test" });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ message: "origin not allowed" });
    expect(await exists(r.login)).toBe(false);
  });

  it("POST with the cookie from another port of the same host -> 403", async () => {
    const other = new URL(self);
    other.port = String(Number(other.port) + 1);
    const r = await createUser({ Origin: other.origin });
    expect(r.status).toBe(403);
    expect(await exists(r.login)).toBe(false);
  });

  it("Origin null, a non-web scheme, or a Referer from elsewhere (no Origin) -> 403", async () => {
    expect((await createUser({ Origin: "null" })).status).toBe(403);
    expect((await createUser({ Origin: "file://" })).status).toBe(403);
    expect((await createUser({ Referer: "http://wiki.corp.test/page.html" })).status).toBe(403);
  });

  it("PUT, PATCH and DELETE with the cookie from another origin -> 403 too", async () => {
    for (const method of ["PUT", "PATCH", "DELETE"]) {
      const res = await fetch(`${self}/api/user/preferences`, {
        method,
        headers: { Cookie: cookie, Origin: "http://wiki.corp.test", "Content-Type": "application/json" },
        body: method === "DELETE" ? undefined : JSON.stringify({ theme: "dark" }),
      });
      expect(res.status).toBe(403);
    }
  });

  it("same origin (Origin, or only a same-origin Referer) -> allowed", async () => {
    const r = await createUser({ Origin: self });
    expect(r.status).toBe(200);
    expect(await exists(r.login)).toBe(true);
    expect((await createUser({ Referer: `${self}/users` })).status).toBe(200);
  });

  it("a trusted origin, a trusted hostname on any port, a proxy's X-Forwarded-Host -> allowed", async () => {
    expect((await createUser({ Origin: "https://tools.corp.test" })).status).toBe(200);
    expect((await createUser({ Origin: "http://tools.corp.test" })).status).toBe(403);
    expect((await createUser({ Origin: "http://wiki-trusted.corp.test:8080" })).status).toBe(200);
    expect((await createUser({ Origin: "https://dash.corp.test", "X-Forwarded-Host": "dash.corp.test" })).status).toBe(200);
    expect((await createUser({ Origin: "https://evil.test", "X-Forwarded-Host": "dash.corp.test" })).status).toBe(403);
  });

  it("no Origin and no Referer (a script holding a cookie) -> allowed, as the real product", async () => {
    expect((await createUser({})).status).toBe(200);
  });

  it("GET with the cookie from another origin -> allowed (reads change nothing)", async () => {
    const res = await fetch(`${self}/api/user`, { headers: { Cookie: cookie, Origin: "http://wiki.corp.test" } });
    expect(res.status).toBe(200);
  });

  it("bearer token or basic auth, with or without a foreign Origin -> allowed (a form cannot send Authorization)", async () => {
    const sa = await t.api.post("/api/serviceaccounts", { auth: ADMIN, body: { name: "csrf-bot", role: "Admin" } });
    const token = await t.api.post(`/api/serviceaccounts/${sa.body.id}/tokens`, { auth: ADMIN, body: { name: "t" } });
    const team = (name: string, headers: Record<string, string>) =>
      fetch(`${self}/api/teams`, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify({ name }) });
    expect((await team("csrf-team-1", { Authorization: bearer(token.body.key) })).status).toBe(200);
    expect((await team("csrf-team-2", { Authorization: bearer(token.body.key), Origin: "http://wiki.corp.test" })).status).toBe(200);
    expect((await team("csrf-team-3", { Authorization: ADMIN, Origin: "http://wiki.corp.test", Cookie: cookie })).status).toBe(200);
  });

  it("an EMPTY Authorization header with the cookie and a foreign Origin -> 403 (the cookie authenticates it, so it is checked)", async () => {
    const r = await createUser({ Authorization: "", Origin: "http://wiki.corp.test" });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ message: "origin not allowed" });
    expect(await exists(r.login)).toBe(false);
    // from its own origin the same request passes: the cookie signs it in
    const own = await createUser({ Authorization: "", Origin: self });
    expect(own.status).toBe(200);
    expect(await exists(own.login)).toBe(true);
  });

  it("POST /login with a cookie from another origin -> 403 (no sign-in swap from a foreign page)", async () => {
    const res = await fetch(`${self}/login`, {
      method: "POST",
      headers: { Cookie: cookie, Origin: "http://wiki.corp.test", "Content-Type": "application/json" },
      body: JSON.stringify({ user: "admin", password: "admin" }),
    });
    expect(res.status).toBe(403);
  });
});

describe("CSRF: JSON endpoints take application/json only", () => {
  const t = useServer();
  const post = (path: string, contentType: string | undefined, body: string, auth = ADMIN) =>
    fetch(`${t.server.urls.dashboard}${path}`, { method: "POST", headers: { Authorization: auth, ...(contentType ? { "Content-Type": contentType } : {}) }, body });

  it("a JSON body sent as text/plain, a form or multipart -> 415 naming Content-Type; nothing created", async () => {
    const json = JSON.stringify({ login: "plain-text-user", password: "pw-plain-text", name: "x" });
    for (const type of ["text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", undefined]) {
      const res = await post("/api/admin/users", type, json);
      expect(res.status).toBe(415);
      expect(await res.json()).toMatchObject({ message: "unsupported media type: the Content-Type header must be application/json" });
    }
    expect((await t.api.get("/api/users/search?query=plain-text-user", { auth: ADMIN })).body.totalCount).toBe(0);
  });

  it("application/json with a charset, and +json types -> accepted", async () => {
    const res = await post("/api/teams", "application/json; charset=utf-8", JSON.stringify({ name: "charset-team" }));
    expect(res.status).toBe(200);
  });

  it("/apis: a text/plain body -> 415 Status UnsupportedMediaType", async () => {
    const res = await post("/apis/folder.svc.app/v1/namespaces/default/folders", "text/plain", JSON.stringify({ metadata: { name: "f1" }, spec: { title: "F" } }));
    expect(res.status).toBe(415);
    expect(await res.json()).toMatchObject({ kind: "Status", reason: "UnsupportedMediaType", code: 415 });
  });
});
