// Bad input to /api/datasources: a 4xx naming what is wrong, never a 500,
// and nothing written (reference §4 messages where the real product has one).
import { describe, expect, it } from "vitest";
import { ADMIN } from "../../../helpers/api.ts";
import { useServer } from "../../../helpers/server.ts";

const prom = (name: string, extra: Record<string, unknown> = {}) => ({ name, type: "prometheus", access: "proxy", url: "http://x:9090", ...extra });

describe("data source input", () => {
  const t = useServer();
  const count = async () => ((await t.api.get("/api/datasources", { auth: ADMIN })).body as unknown[]).length;

  it("POST with wrong types, bad values or bad JSON -> 400 naming the field, and nothing is created", async () => {
    const before = await count();
    const cases: Array<[unknown, RegExp]> = [
      [{ name: 5, type: "prometheus" }, /name must be a string/],
      [{ name: "n", type: ["prometheus"] }, /type must be a string/],
      [prom("n", { url: 42 }), /url must be a string/],
      [prom("n", { basicAuth: "yes" }), /basicAuth must be boolean/],
      [prom("n", { isDefault: 1 }), /isDefault must be boolean/],
      // (null is an absent field, as the real product reads it: test/dashboard/null-fields.test.ts)
      [prom("n", { withCredentials: "true" }), /withCredentials must be boolean/],
      [prom("n", { version: 1.5 }), /version must be an integer/],
      [prom("n", { version: "2" }), /version must be/],
      [prom("n", { jsonData: [1, 2] }), /jsonData must be a JSON object/],
      [prom("n", { jsonData: "x" }), /jsonData must be/],
      [prom("n", { secureJsonData: "x" }), /secureJsonData must be an object/],
      [prom("n", { secureJsonData: { password: 5 } }), /secureJsonData\.password must be/],
      [prom("n", { secureJsonData: { password: ["a"] } }), /secureJsonData\.password must be/],
      [prom("n", { secureJsonData: { password: { name: 5 } } }), /secureJsonData\.password/],
      [prom("n", { secureJsonData: { password: { name: "" } } }), /secureJsonData\.password must be a string or \{"name"/],
      [prom("n", { secureJsonData: { "": "x" } }), /secureJsonData keys/],
      [prom("n", { access: "sideways" }), /access must be proxy or direct/],
      [prom("n", { uid: "bad uid!" }), /UID is invalid/],
      [prom("n", { uid: "u".repeat(41) }), /UID is invalid/],
      [prom("n".repeat(191)), /^Invalid datasource name\.$/],
      [prom("n", { url: `http://x/${"a".repeat(250)}` }), /^Invalid datasource url\.$/],
      [prom("n", { url: "http://[::1" }), /^Validation error, invalid URL$/],
      [prom("n", { url: "http://exa mple.com" }), /^Validation error, invalid URL$/],
      [prom("n", { type: "t".repeat(256) }), /type must have at most 255 characters/],
      [prom("n", { user: "u".repeat(256) }), /user must have at most 255 characters/],
      [prom("n", { database: "d".repeat(256) }), /database must have at most 255 characters/],
      [prom("n", { basicAuthUser: "b".repeat(256) }), /basicAuthUser must have at most 255 characters/],
      ['{"name":"a\\u0000b","type":"prometheus"}', /^bad request data: name must not contain NUL characters$/],
      ["not json", /bad request data/],
      ["[]", /bad request data/],
      ["null", /bad request data/],
    ];
    for (const [body, message] of cases) {
      const r = await t.api.post("/api/datasources", { auth: ADMIN, body });
      expect({ body, status: r.status }).toEqual({ body, status: 400 });
      expect({ body, message: r.body.message }).toEqual({ body, message: expect.stringMatching(message) });
    }
    expect(await count()).toBe(before);
  });

  it("the longest name (190) and url (255) are accepted; a url without a scheme is read as http", async () => {
    const long = await t.api.post("/api/datasources", { auth: ADMIN, body: prom("n".repeat(190), { url: `http://x/${"a".repeat(246)}` }) });
    expect(long.status).toBe(200);
    expect(long.body.datasource.url).toHaveLength(255);
    const bare = await t.api.post("/api/datasources", { auth: ADMIN, body: prom("bare url", { url: "localhost:9090" }) });
    expect(bare.status).toBe(200);
    expect(bare.body.datasource.url).toBe("localhost:9090");
    const none = await t.api.post("/api/datasources", { auth: ADMIN, body: { name: "no url", type: "loki" } });
    expect(none.status).toBe(200);
    expect(none.body.datasource).toMatchObject({ url: "", access: "proxy", jsonData: {} });
  });

  it("jsonData with teamHttpHeaders -> 403 (label rules have their own API)", async () => {
    const r = await t.api.post("/api/datasources", { auth: ADMIN, body: prom("headers", { jsonData: { teamHttpHeaders: { headers: {} } } }) });
    expect(r.status).toBe(403);
    expect(r.body.message).toMatch(/LBAC rules API/);
  });

  it("PUT with bad input -> 400 and the data source is unchanged", async () => {
    const d = (await t.api.post("/api/datasources", { auth: ADMIN, body: prom("put input", { secureJsonData: { password: "pw-put-input" } }) })).body.datasource;
    const bodies = [
      prom("put input", { jsonData: [] }), prom("put input", { secureJsonData: { password: 1 } }), prom("", {}), prom("put input", { url: "http://[::1" }),
      prom("put input", { uid: "another" }), prom("put input", { access: "x" }), { type: "prometheus" }, "[]",
    ];
    for (const body of bodies) {
      const r = await t.api.put(`/api/datasources/uid/${d.uid}`, { auth: ADMIN, body });
      expect({ body, status: r.status }).toEqual({ body, status: 400 });
    }
    const after = await t.api.get(`/api/datasources/uid/${d.uid}`, { auth: ADMIN });
    expect(after.body).toMatchObject({ name: "put input", version: 1, secureJsonFields: { password: true } });
  });

  it("names and uids that need escaping in a path: found by name and uid, 404 when absent", async () => {
    const r = await t.api.post("/api/datasources", { auth: ADMIN, body: prom("a/b c?d", { uid: "U-id_1" }) });
    expect(r.status).toBe(200);
    expect((await t.api.get(`/api/datasources/name/${encodeURIComponent("a/b c?d")}`, { auth: ADMIN })).body.uid).toBe("U-id_1");
    expect((await t.api.get("/api/datasources/uid/U-id_1", { auth: ADMIN })).body.name).toBe("a/b c?d");
    expect((await t.api.get("/api/datasources/uid/u-id_1", { auth: ADMIN })).status).toBe(404);
    expect((await t.api.get(`/api/datasources/id/${encodeURIComponent("a/b c?d")}`, { auth: ADMIN })).body).toEqual({ id: r.body.id });
    expect((await t.api.get("/api/datasources/99999999999", { auth: ADMIN })).status).toBe(400);
  });
});
