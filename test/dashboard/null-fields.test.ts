// Issue 21: a legacy body's top-level null is an absent field, as the real
// product's Go handlers read it. grafana-client sends every unset field as
// null (`"panelId": null`, `"timeEnd": null`, graphite `"data": null`); these
// were 400s. Nested values (a data source's jsonData) are data and keep
// their nulls; a required field sent as null is still missing.
import { describe, expect, it } from "vitest";
import { ADMIN } from "../helpers/api.ts";
import { useServer } from "../helpers/server.ts";

describe("null for an unset field of a legacy body", () => {
  const t = useServer({});

  it("POST /api/annotations with dashboardUID, panelId, timeEnd, tags null -> 200, a point annotation", async () => {
    const body = { dashboardUID: null, dashboardId: null, panelId: null, time: 1_700_000_000_000, timeEnd: null, tags: null, text: "deploy", data: null };
    const r = await t.api.post("/api/annotations", { auth: ADMIN, body });
    expect(r.status).toBe(200);
    const found = await t.api.get("/api/annotations?from=1699999999000&to=1700000001000", { auth: ADMIN });
    expect(found.body.find((a: { id: number }) => a.id === r.body.id)).toMatchObject({ text: "deploy", panelId: 0, time: 1_700_000_000_000, timeEnd: 1_700_000_000_000, tags: [] });
  });

  it("POST /api/annotations/graphite with data and tags null -> 200", async () => {
    const r = await t.api.post("/api/annotations/graphite", { auth: ADMIN, body: { what: "release", tags: null, when: 1_700_000_100, data: null } });
    expect(r.status).toBe(200);
  });

  it("POST /api/teams and /api/serviceaccounts with optional fields null -> created with their defaults", async () => {
    const team = await t.api.post("/api/teams", { auth: ADMIN, body: { name: "null-team", email: null } });
    expect(team.status).toBe(200);
    const sa = await t.api.post("/api/serviceaccounts", { auth: ADMIN, body: { name: "null-sa", role: null, isDisabled: null } });
    expect(sa.status).toBe(201);
    expect(sa.body).toMatchObject({ name: "null-sa", role: "Viewer", isDisabled: false });
  });

  it("a required field sent as null is missing -> 400 naming it; nested nulls are kept as sent", async () => {
    const missing = await t.api.post("/api/teams", { auth: ADMIN, body: { name: null } });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toMatch(/name/);
    const ds = await t.api.post("/api/datasources", { auth: ADMIN, body: { name: "null-ds", type: "prometheus", access: "proxy", url: "http://127.0.0.1:1", jsonData: { httpMethod: "POST", extra: null } } });
    expect(ds.status).toBe(200);
    const got = await t.api.get(`/api/datasources/uid/${ds.body.datasource.uid}`, { auth: ADMIN });
    expect(got.body.jsonData).toEqual({ httpMethod: "POST", extra: null });
  });
});
