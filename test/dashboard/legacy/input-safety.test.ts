// Input the database cannot store, or that would overflow a bound, gets a
// 400 and leaves the server working (found by fuzzing the content APIs).
import { describe, expect, it } from "vitest";
import { ADMIN } from "../../helpers/api.ts";
import { useServer } from "../../helpers/server.ts";

const deep = (n: number) => "[".repeat(n) + "]".repeat(n);

describe("input safety on the content APIs", () => {
  const t = useServer({ "server.edition": "enterprise" });

  it("NUL characters and unpaired surrogates in bodies or URLs -> 400", async () => {
    const bodies: Array<[string, string]> = [
      ["/api/annotations", '{"text":"a\\u0000b"}'],
      ["/api/annotations", '{"text":"x","data":{"k":"\\ud800"}}'],
      ["/api/library-elements", '{"name":"n","kind":1,"model":{"type":"\\u0000"}}'],
    ];
    for (const [path, body] of bodies) {
      const r = await t.api.post(path, { auth: ADMIN, body });
      expect({ path, body, status: r.status }).toEqual({ path, body, status: 400 });
      expect(r.body.message).toMatch(/^bad request data: (text|data\.k|model\.type) must not contain (NUL characters|unpaired surrogates)$/);
    }
    const prefs = await t.api.put("/api/user/preferences", { auth: ADMIN, body: '{"language":"\\u0000"}' });
    expect(prefs.status).toBe(400);
    for (const path of ["/api/annotations?tags=%00", "/api/annotations/tags?tag=%00", "/api/teams/1/groups?groupId=%00"]) {
      const r = await t.api.get(path, { auth: ADMIN });
      expect({ path, status: r.status }).toEqual({ path, status: 400 });
    }
    expect((await t.api.get("/api/annotations", { auth: ADMIN })).status).toBe(200);
  });

  it("JSON nested deeper than 100 levels -> 400, and the server keeps answering", async () => {
    for (const [method, path] of [["put", "/api/user/preferences"], ["post", "/api/annotations"], ["post", "/api/library-elements"]] as const) {
      const r = await t.api[method](path, { auth: ADMIN, body: deep(5000) });
      expect({ path, status: r.status, message: r.body.message }).toEqual({ path, status: 400, message: "bad request data: JSON nested deeper than 100 levels" });
    }
    const model = await t.api.post("/api/library-elements", { auth: ADMIN, body: `{"name":"deep","kind":1,"model":{"x":${deep(3000)}}}` });
    expect(model.status).toBe(400);
    expect((await t.api.patch("/api/user/preferences", { auth: ADMIN, body: { theme: "light" } })).status).toBe(200);
  });

  it("numbers past their column's range -> 400 naming the field; the time index keeps working", async () => {
    for (const body of [{ text: "t", time: 1e308 }, { text: "t", time: 1, timeEnd: 9223372036854774784 }, { text: "t", panelId: 9999999999999999999 }]) {
      const r = await t.api.post("/api/annotations", { auth: ADMIN, body });
      expect({ body, status: r.status }).toEqual({ body, status: 400 });
    }
    expect((await t.api.post("/api/annotations/graphite", { auth: ADMIN, body: { what: "w", when: 1e308 } })).status).toBe(400);
    expect((await t.api.post("/api/annotations/mass-delete", { auth: ADMIN, body: { annotationId: 10000000000 } })).status).toBe(400);
    const huge = await t.api.get("/api/annotations?userId=99999999999", { auth: ADMIN });
    expect(huge.status).toBe(400);
    expect(huge.body.message).toContain("userId");
    expect((await t.api.get("/api/annotations?from=1&to=2", { auth: ADMIN })).status).toBe(200);
    const e = await t.api.post("/api/library-elements", { auth: ADMIN, body: { name: "v", kind: 1, model: {} } });
    expect((await t.api.patch(`/api/library-elements/${e.body.result.uid}`, { auth: ADMIN, body: { version: 2147483648 } })).status).toBe(400);
  });

  it("values too long for their index -> 400: tags, library element names, team group ids", async () => {
    const tags = await t.api.post("/api/annotations", { auth: ADMIN, body: { text: "t", tags: ["x".repeat(3000)] } });
    expect(tags.status).toBe(400);
    expect(tags.body.message).toBe("tags are too long: at most 500 characters in all");
    expect((await t.api.post("/api/annotations/graphite", { auth: ADMIN, body: { what: "w", tags: "y".repeat(3000) } })).status).toBe(400);
    expect((await t.api.post("/api/library-elements", { auth: ADMIN, body: { name: "n".repeat(151), kind: 1, model: {} } })).status).toBe(400);
    const team = await t.api.post("/api/teams", { auth: ADMIN, body: { name: "long groups" } });
    expect((await t.api.post(`/api/teams/${team.body.teamId}/groups`, { auth: ADMIN, body: { groupId: "g".repeat(3000) } })).status).toBe(400);
  });

  it("preferences: an array body -> 400; unknown keys are dropped, not stored", async () => {
    expect((await t.api.put("/api/user/preferences", { auth: ADMIN, body: [] })).status).toBe(400);
    expect((await t.api.put("/api/annotations/1", { auth: ADMIN, body: [] })).status).toBe(400);
    expect((await t.api.put("/api/user/preferences", { auth: ADMIN, body: { theme: "dark", foo: "bar", navbar: { bookmarkUrls: [], extra: 1 } } })).status).toBe(200);
    expect((await t.api.get("/api/user/preferences", { auth: ADMIN })).body).toEqual({ theme: "dark", navbar: { bookmarkUrls: [] } });
  });
});
