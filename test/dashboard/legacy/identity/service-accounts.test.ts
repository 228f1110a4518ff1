// /api/serviceaccounts and token authentication (spec "Legacy service
// accounts", "Authentication"; reference conformance checks 4-12, 48-73).
import { describe, expect, it } from "vitest";
import { ADMIN, basic, bearer } from "../../../helpers/api.ts";
import { eventually } from "../../../helpers/eventually.ts";
import { testClock, useServer } from "../../../helpers/server.ts";

const clock = testClock();

describe("service accounts", () => {
  const t = useServer({}, clock);
  const sa = async (name: string, role?: string) => {
    const r = await t.api.post("/api/serviceaccounts", { auth: ADMIN, body: { name, ...(role ? { role } : {}) } });
    expect(r.status).toBe(201);
    return r.body as { id: number; uid: string; login: string };
  };
  const token = async (id: number, name: string, secondsToLive?: number) => {
    const r = await t.api.post(`/api/serviceaccounts/${id}/tokens`, { auth: ADMIN, body: { name, ...(secondsToLive !== undefined ? { secondsToLive } : {}) } });
    expect(r.status).toBe(200);
    return r.body as { id: number; name: string; key: string };
  };

  it("POST /api/serviceaccounts -> 201 with Viewer role, no tokens, sa-<org>-<slug> login", async () => {
    const r = await t.api.post("/api/serviceaccounts", { auth: ADMIN, body: { name: "ci bot" } });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.any(Number), uid: expect.stringMatching(/^\w{14}$/), name: "ci bot", login: "sa-1-ci-bot", orgId: 1,
      isDisabled: false, role: "Viewer", tokens: 0, avatarUrl: expect.stringMatching(/^\/avatar\//),
    });
  });

  it("POST a duplicate name -> 400; a bad role -> 400; no name -> 400", async () => {
    await sa("dup bot");
    expect((await t.api.post("/api/serviceaccounts", { auth: ADMIN, body: { name: "dup bot" } })).body).toMatchObject({
      message: "service account already exists", messageId: "serviceaccounts.ErrAlreadyExists",
    });
    const bad = await t.api.post("/api/serviceaccounts", { auth: ADMIN, body: { name: "x", role: "Boss" } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("invalid role specified");
    const none = await t.api.post("/api/serviceaccounts", { auth: ADMIN, body: {} });
    expect(none.status).toBe(400);
    expect(none.body.message).toMatch(/name must be a string/);
  });

  it("POST /api/serviceaccounts (Editor) -> 403 naming serviceaccounts:create", async () => {
    const editor = await t.api.user("sa-editor", "Editor");
    const r = await t.api.post("/api/serviceaccounts", { auth: editor.auth, body: { name: "nope" } });
    expect(r.status).toBe(403);
    expect(r.body.message).toMatch(/Permissions needed: serviceaccounts:create$/);
  });

  it("GET /api/serviceaccounts/:id -> profile; unknown -> 404 structured; not a number -> 400", async () => {
    const a = await sa("profile bot", "Editor");
    const r = await t.api.get(`/api/serviceaccounts/${a.id}`, { auth: ADMIN });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: a.id, name: "profile bot", role: "Editor", teams: [], orgId: 1 });
    expect(r.body.createdAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(r.body.accessControl).toEqual({ "serviceaccounts:delete": true, "serviceaccounts:read": true, "serviceaccounts:write": true });
    const missing = await t.api.get("/api/serviceaccounts/999999", { auth: ADMIN });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: "service account not found", messageId: "serviceaccounts.ErrNotFound", statusCode: 404, traceID: "" });
    expect((await t.api.get("/api/serviceaccounts/abc", { auth: ADMIN })).body).toEqual({ message: "Service Account ID is invalid" });
    expect((await t.api.get("/api/serviceaccounts/99999999999", { auth: ADMIN })).status).toBe(404);
  });

  it("GET /api/serviceaccounts/search: defaults, query, paging, page=0", async () => {
    await sa("search alpha");
    await sa("search beta");
    const all = await t.api.get("/api/serviceaccounts/search", { auth: ADMIN });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ page: 1, perPage: 1000 });
    expect(all.body.totalCount).toBe(all.body.serviceAccounts.length);
    const q = await t.api.get("/api/serviceaccounts/search?query=search%20&perpage=1&page=2", { auth: ADMIN });
    expect(q.body.totalCount).toBe(2);
    expect(q.body.serviceAccounts.map((s: { name: string }) => s.name)).toEqual(["search beta"]);
    expect(q.body.serviceAccounts[0].accessControl["serviceaccounts:read"]).toBe(true);
    expect((await t.api.get("/api/serviceaccounts/search?page=0", { auth: ADMIN })).body.page).toBe(1);
    const viewer = await t.api.user("sa-viewer", "Viewer");
    expect((await t.api.get("/api/serviceaccounts/search", { auth: viewer.auth })).status).toBe(403);
  });

  it("PATCH changes role, name and isDisabled; DELETE removes", async () => {
    const a = await sa("patch bot");
    const r = await t.api.patch(`/api/serviceaccounts/${a.id}`, { auth: ADMIN, body: { role: "Editor", name: "patched bot" } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ message: "Service account updated", id: a.id, name: "patched bot", serviceaccount: { role: "Editor" } });
    expect((await t.api.patch(`/api/serviceaccounts/${a.id}`, { auth: ADMIN, body: { role: "Boss" } })).status).toBe(400);
    expect((await t.api.delete(`/api/serviceaccounts/${a.id}`, { auth: ADMIN })).body).toEqual({ message: "Service account deleted" });
    expect((await t.api.get(`/api/serviceaccounts/${a.id}`, { auth: ADMIN })).status).toBe(404);
    expect((await t.api.delete(`/api/serviceaccounts/${a.id}`, { auth: ADMIN })).status).toBe(404);
  });

  it("tokens: the key is shown once, well-formed, and authenticates as the account", async () => {
    const a = await sa("token bot", "Admin");
    const k = await token(a.id, "t1");
    expect(k.key).toMatch(/^opsa_[A-Za-z0-9]{32}_[0-9a-f]{8}$/);
    const list = await t.api.get(`/api/serviceaccounts/${a.id}/tokens`, { auth: ADMIN });
    expect(list.body).toEqual([
      { id: k.id, name: "t1", role: "Admin", created: expect.any(String), lastUsedAt: null, expiration: null, secondsUntilExpiration: 0, hasExpired: false, isRevoked: false },
    ]);
    expect(JSON.stringify(list.body)).not.toContain(k.key);
    // bearer, and basic with user api_key
    expect((await t.api.get("/api/serviceaccounts/search", { auth: bearer(k.key) })).status).toBe(200);
    expect((await t.api.get("/api/serviceaccounts/search", { auth: basic("api_key", k.key) })).status).toBe(200);
    // the last-used time is written in the background
    await eventually(() => t.api.get(`/api/serviceaccounts/${a.id}/tokens`, { auth: ADMIN }), (used) => expect(used.body[0].lastUsedAt).toMatch(/^\d{4}-\d\d-\d\dT/));
    expect((await t.api.get(`/api/serviceaccounts/${a.id}`, { auth: ADMIN })).body.tokens).toBe(1);
  });

  it("a service account token on a user-only endpoint -> 403; on a server-admin endpoint -> 403", async () => {
    const a = await sa("admin bot", "Admin");
    const k = await token(a.id, "admin-bot-token");
    const me = await t.api.get("/api/user", { auth: bearer(k.key) });
    expect(me.status).toBe(403);
    expect(me.body).toEqual({ message: "Endpoint only available for users" });
    const users = await t.api.post("/api/admin/users", { auth: bearer(k.key), body: { login: "x", password: "xxxxxx" } });
    expect(users.status).toBe(403);
    expect(users.body.message).toMatch(/Permissions needed: users:create/);
  });

  it("token names are unique per organization; negative TTL -> 400; unknown account -> 404", async () => {
    const a = await sa("names one");
    const b = await sa("names two");
    await token(a.id, "shared-name");
    for (const id of [a.id, b.id]) {
      const r = await t.api.post(`/api/serviceaccounts/${id}/tokens`, { auth: ADMIN, body: { name: "shared-name" } });
      expect(r.status).toBe(400);
      expect(r.body.message).toBe("service account token with given name already exists in the organization");
    }
    const neg = await t.api.post(`/api/serviceaccounts/${a.id}/tokens`, { auth: ADMIN, body: { name: "neg", secondsToLive: -1 } });
    expect(neg.status).toBe(400);
    expect(neg.body.message).toBe("invalid SecondsToLive value");
    const huge = await t.api.post(`/api/serviceaccounts/${a.id}/tokens`, { auth: ADMIN, body: { name: "huge", secondsToLive: 1e15 } });
    expect(huge.status).toBe(400);
    expect((await t.api.post("/api/serviceaccounts/999999/tokens", { auth: ADMIN, body: { name: "z" } })).status).toBe(404);
    expect((await t.api.get("/api/serviceaccounts/999999/tokens", { auth: ADMIN })).body).toEqual([]);
  });

  it("expiry: secondsUntilExpiration within 7 days only; an expired token -> 401 Expired API key", async () => {
    const a = await sa("expiry bot", "Admin");
    const hour = await token(a.id, "one-hour", 3600);
    await token(a.id, "thirty-days", 30 * 86400);
    const list = await t.api.get(`/api/serviceaccounts/${a.id}/tokens`, { auth: ADMIN });
    const byName = Object.fromEntries(list.body.map((x: { name: string }) => [x.name, x]));
    expect(byName["one-hour"].secondsUntilExpiration).toBe(3600);
    expect(byName["one-hour"].expiration).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
    expect(byName["thirty-days"].secondsUntilExpiration).toBe(0);
    expect(byName["thirty-days"].hasExpired).toBe(false);
    expect((await t.api.get("/api/serviceaccounts/search", { auth: bearer(hour.key) })).status).toBe(200);
    clock.advance(3601_000);
    const expired = await t.api.get("/api/serviceaccounts/search", { auth: bearer(hour.key) });
    expect(expired.status).toBe(401);
    expect(expired.body).toMatchObject({ message: "Expired API key", messageId: "api-key.expired" });
    expect((await t.api.get(`/api/serviceaccounts/${a.id}/tokens`, { auth: ADMIN })).body.find((x: { name: string }) => x.name === "one-hour").hasExpired).toBe(true);
  });

  it("a deleted token, a disabled account, a garbled token -> 401 Invalid API key", async () => {
    const a = await sa("revoke bot", "Admin");
    const k1 = await token(a.id, "to-delete");
    const k2 = await token(a.id, "to-disable");
    expect((await t.api.delete(`/api/serviceaccounts/${a.id}/tokens/${k1.id}`, { auth: ADMIN })).body).toEqual({ message: "Service account token deleted" });
    expect((await t.api.delete(`/api/serviceaccounts/${a.id}/tokens/${k1.id}`, { auth: ADMIN })).body).toMatchObject({ message: "service account token not found" });
    expect((await t.api.delete(`/api/serviceaccounts/${a.id}/tokens/abc`, { auth: ADMIN })).body).toEqual({ message: "Token ID is invalid" });
    const deleted = await t.api.get("/api/serviceaccounts/search", { auth: bearer(k1.key) });
    expect(deleted.status).toBe(401);
    expect(deleted.body).toMatchObject({ message: "Invalid API key", messageId: "api-key.invalid" });
    await t.api.patch(`/api/serviceaccounts/${a.id}`, { auth: ADMIN, body: { isDisabled: true } });
    expect((await t.api.get("/api/serviceaccounts/search", { auth: bearer(k2.key) })).status).toBe(401);
    await t.api.patch(`/api/serviceaccounts/${a.id}`, { auth: ADMIN, body: { isDisabled: false } });
    expect((await t.api.get("/api/serviceaccounts/search", { auth: bearer(k2.key) })).status).toBe(200);
    for (const garbled of ["random", k2.key.slice(0, -1) + (k2.key.endsWith("0") ? "1" : "0"), k2.key.replace(/^opsa/, "glsa")]) {
      expect((await t.api.get("/api/serviceaccounts/search", { auth: bearer(garbled) })).body.message).toBe("Invalid API key");
    }
  });

  it("a token is bound to its organization: X-Svc-Org-Id of another org -> 401", async () => {
    const a = await sa("org bound", "Admin");
    const k = await token(a.id, "org-bound");
    const other = await t.api.post("/api/orgs", { auth: ADMIN, body: { name: "Token Org" } });
    const r = await t.api.get("/api/serviceaccounts/search", { auth: bearer(k.key), headers: { "X-Svc-Org-Id": String(other.body.orgId) } });
    expect(r.status).toBe(401);
    expect((await t.api.get("/api/serviceaccounts/search", { auth: bearer(k.key), headers: { "X-Svc-Org-Id": "1" } })).status).toBe(200);
  });

  it("service accounts of one org are invisible from another", async () => {
    const a = await sa("org one only");
    const other = await t.api.post("/api/orgs", { auth: ADMIN, body: { name: "Invisible Org" } });
    const inOther = { auth: ADMIN, headers: { "X-Svc-Org-Id": String(other.body.orgId) } };
    expect((await t.api.get(`/api/serviceaccounts/${a.id}`, inOther)).status).toBe(404);
    expect((await t.api.get("/api/serviceaccounts/search", inOther)).body.totalCount).toBe(0);
  });
});
