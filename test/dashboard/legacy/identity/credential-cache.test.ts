// The verified-credentials cache: a basic-auth caller pays one bcrypt, not one
// per request, however the identity tables change around it (issue 17: after
// a service account and a token were created every request paid bcrypt). And
// what must take effect at once still does: a changed password, a disabled or
// deleted service account, a revoked token, a lost membership.
import { describe, expect, it } from "vitest";
import { passwordComparisons } from "../../../../src/apps/dashboard/core/identity/passwords.ts";
import { ADMIN, basic, bearer } from "../../../helpers/api.ts";
import { useServer } from "../../../helpers/server.ts";

/** runs `count` calls, `concurrency` at a time */
async function inParallel<T>(count: number, concurrency: number, call: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      out[i] = await call(i);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return out;
}

describe("verified-credentials cache", () => {
  const t = useServer();

  it("a thousand basic-auth requests around identity changes cost exactly one bcrypt", async () => {
    const bob = await t.api.user("cache-bob", "Viewer");
    const carol = await t.api.user("cache-carol", "Editor");
    // identity changes before bob's first request: a service account, a token, another user's data
    const sa = await t.api.post("/api/serviceaccounts", { auth: ADMIN, body: { name: "cache-sa", role: "Viewer" } });
    expect(sa.status).toBe(201);
    const token = await t.api.post(`/api/serviceaccounts/${sa.body.id}/tokens`, { auth: ADMIN, body: { name: "cache-token" } });
    expect(token.status).toBe(200);
    expect((await t.api.put("/api/user/password", { auth: carol.auth, body: { oldPassword: carol.password, newPassword: "carol-new-pw" } })).status).toBe(200);
    expect((await t.api.get("/api/user", { auth: bearer(token.body.key) })).status).toBe(403);
    expect((await t.api.get("/api/user", { auth: basic(carol.login, "carol-new-pw") })).status).toBe(200);

    const before = passwordComparisons();
    const statuses = await inParallel(1000, 50, async (i) => {
      if (i === 500) {
        // more changes half way: another service account and token, another user's organization
        const sa2 = await t.api.post("/api/serviceaccounts", { auth: ADMIN, body: { name: "cache-sa-2", role: "Editor" } });
        await t.api.post(`/api/serviceaccounts/${sa2.body.id}/tokens`, { auth: ADMIN, body: { name: "cache-token-2" } });
        await t.api.post("/api/user/using/1", { auth: basic(carol.login, "carol-new-pw") });
      }
      const path = ["/api/user", "/api/org", "/api/user/preferences"][i % 3]!;
      return (await t.api.get(path, { auth: bob.auth })).status;
    });
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    // bob's one verification; the admin's and carol's credentials were verified before: none for them
    expect(passwordComparisons() - before).toBe(1);
  });

  it("concurrent requests with a wrong password share one bcrypt and all fail", async () => {
    const dave = await t.api.user("cache-dave", "Viewer");
    const before = passwordComparisons();
    const statuses = await inParallel(20, 20, async () => (await t.api.get("/api/user", { auth: basic(dave.login, "wrong") })).status);
    expect(statuses).toEqual(Array(20).fill(401));
    expect(passwordComparisons() - before).toBe(1);
    // each failure counted: the login is locked out now, even with the right password
    const locked = await t.api.get("/api/user", { auth: dave.auth });
    expect(locked.status).toBe(401);
    expect(locked.body.messageId).toBe("login-attempt.blocked");
  });

  it("the same wrong password repeated one request at a time costs one bcrypt (CI: concurrent requests arrived after the first finished)", async () => {
    const hal = await t.api.user("cache-hal", "Viewer");
    const before = passwordComparisons();
    for (let i = 0; i < 3; i++) {
      const r = await t.api.get("/api/user", { auth: basic(hal.login, "wrong") });
      expect(r.status).toBe(401);
      expect(r.body.messageId).not.toBe("login-attempt.blocked");
    }
    expect(passwordComparisons() - before).toBe(1);
    // the right password is not refused by the remembered wrong one (and resets the count)
    expect((await t.api.get("/api/user", { auth: hal.auth })).status).toBe(200);
    expect(passwordComparisons() - before).toBe(2);
    // a different wrong password is checked afresh
    expect((await t.api.get("/api/user", { auth: basic(hal.login, "wrong-2") })).status).toBe(401);
    expect(passwordComparisons() - before).toBe(3);
  });

  it("a changed password takes effect at once: the cached old one is refused, the new one works", async () => {
    const erin = await t.api.user("cache-erin", "Viewer");
    expect((await t.api.get("/api/user", { auth: erin.auth })).status).toBe(200);
    expect((await t.api.get("/api/user", { auth: erin.auth })).status).toBe(200);
    const changed = await t.api.put("/api/user/password", { auth: erin.auth, body: { oldPassword: erin.password, newPassword: "erin-new-pw" } });
    expect(changed.status).toBe(200);
    expect((await t.api.get("/api/user", { auth: erin.auth })).status).toBe(401);
    expect((await t.api.get("/api/user", { auth: basic(erin.login, "erin-new-pw") })).status).toBe(200);
  });

  it("a lost membership takes effect at once for a cached login", async () => {
    const frank = await t.api.user("cache-frank", "Editor");
    expect((await t.api.get("/api/org", { auth: frank.auth })).status).toBe(200);
    expect((await t.api.delete(`/api/orgs/1/users/${frank.id}`, { auth: ADMIN })).status).toBe(200);
    const r = await t.api.get("/api/org", { auth: frank.auth });
    expect(r.status).toBe(403);
  });

  it("a token stops working at once when deleted, or when its account is disabled or deleted", async () => {
    const make = async (name: string) => {
      const sa = await t.api.post("/api/serviceaccounts", { auth: ADMIN, body: { name, role: "Viewer" } });
      const tok = await t.api.post(`/api/serviceaccounts/${sa.body.id}/tokens`, { auth: ADMIN, body: { name: `${name}-t` } });
      const auth = bearer(tok.body.key);
      for (let i = 0; i < 3; i++) expect((await t.api.get("/api/org", { auth })).status).toBe(200);
      return { id: sa.body.id as number, tokenId: tok.body.id as number, auth };
    };
    const a = await make("cache-tok-a");
    expect((await t.api.delete(`/api/serviceaccounts/${a.id}/tokens/${a.tokenId}`, { auth: ADMIN })).status).toBe(200);
    expect((await t.api.get("/api/org", { auth: a.auth })).status).toBe(401);

    const b = await make("cache-tok-b");
    expect((await t.api.patch(`/api/serviceaccounts/${b.id}`, { auth: ADMIN, body: { isDisabled: true } })).status).toBe(200);
    expect((await t.api.get("/api/org", { auth: b.auth })).status).toBe(401);

    const c = await make("cache-tok-c");
    expect((await t.api.delete(`/api/serviceaccounts/${c.id}`, { auth: ADMIN })).status).toBe(200);
    expect((await t.api.get("/api/org", { auth: c.auth })).status).toBe(401);
  });

  it("preferences written are read back at once (GET /api/user's theme, GET /api/user/preferences)", async () => {
    const gina = await t.api.user("cache-gina", "Viewer");
    expect((await t.api.get("/api/user", { auth: gina.auth })).body.theme).toBe("dark");
    expect((await t.api.patch("/api/user/preferences", { auth: gina.auth, body: { theme: "light" } })).status).toBe(200);
    expect((await t.api.get("/api/user", { auth: gina.auth })).body.theme).toBe("light");
    expect((await t.api.get("/api/user/preferences", { auth: gina.auth })).body).toMatchObject({ theme: "light" });
    expect((await t.api.put("/api/user/preferences", { auth: gina.auth, body: {} })).status).toBe(200);
    expect((await t.api.get("/api/user", { auth: gina.auth })).body.theme).toBe("dark");
  });

  it("a new organization is answered by GET /api/org at once", async () => {
    const created = await t.api.post("/api/orgs", { auth: ADMIN, body: { name: "Cache Org" } });
    expect(created.status).toBe(200);
    const r = await t.api.get("/api/org", { auth: ADMIN, headers: { "X-Svc-Org-Id": String(created.body.orgId) } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: created.body.orgId, name: "Cache Org" });
  });
});
