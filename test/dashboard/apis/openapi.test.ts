// The OpenAPI document describes every route served, from the same schemas.
import SwaggerParser from "@apidevtools/swagger-parser";
import { describe, expect, it } from "vitest";
import { ADMIN } from "../../helpers/api.ts";
import { useServer } from "../../helpers/server.ts";

describe("GET /openapi/v3 and /swagger", () => {
  const t = useServer({ "server.edition": "enterprise" });

  it("lists every legacy route and every served kind's operations, with spec schemas", async () => {
    const r = await t.api.get("/openapi/v3", { auth: ADMIN });
    expect(r.status).toBe(200);
    const doc = r.body;
    expect(doc.openapi).toMatch(/^3\./);
    for (const [path, method] of [
      ["/api/health", "get"], ["/api/serviceaccounts/{id}/tokens", "post"], ["/api/access-control/roles", "post"],
      ["/api/search", "get"], ["/api/user/stars/dashboard/uid/{uid}", "post"], ["/openapi/v3", "get"], ["/login", "post"],
    ]) {
      expect(doc.paths[path!]?.[method!], `${method} ${path}`).toBeDefined();
    }
    const coll = doc.paths["/apis/dashboard.svc.app/v1/namespaces/{namespace}/dashboards"];
    expect(Object.keys(coll).sort()).toEqual(["get", "post"]);
    expect(Object.keys(doc.paths["/apis/folder.svc.app/v1/namespaces/{namespace}/folders/{name}"]).sort()).toEqual(["delete", "get", "put"]);
    expect(doc.paths["/apis/dashboard.svc.app/v1/namespaces/{namespace}/dashboards/{name}/dto"].get).toBeDefined();
    expect(doc.paths["/apis/dashboard.svc.app/v1beta1/namespaces/{namespace}/dashboards"]).toBeUndefined();
    const spec = doc.components.schemas.Playlist_v1.properties.spec;
    expect(spec.required).toEqual(expect.arrayContaining(["title", "interval"]));
    expect(spec.properties.items.items.properties.type.enum).toEqual(expect.arrayContaining(["dashboard_by_uid", "dashboard_by_tag", "dashboard_by_id"]));
    // every legacy route of the router is in the document
    const count = Object.values(doc.paths as Record<string, object>).reduce((n, ops) => n + Object.keys(ops).length, 0);
    expect(count).toBeGreaterThan(60);
  });

  it("is a valid OpenAPI 3 document (swagger-parser), every operation with its own operationId (issue 21: clients are generated from it)", async () => {
    const doc = (await t.api.get("/openapi/v3", { auth: ADMIN })).body;
    await SwaggerParser.validate(structuredClone(doc));
    const ids: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, { operationId?: string }>>)) {
      for (const [method, op] of Object.entries(ops)) {
        expect(op.operationId, `${method} ${path}`).toMatch(/^[a-z][A-Za-z0-9]+$/);
        ids.push(op.operationId!);
      }
    }
    expect(ids.length).toBeGreaterThan(60);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    expect(doc.paths["/api/users/{id}/orgs"].get.operationId).toBe("getUsersByIdOrgs");
    expect(doc.paths["/apis/dashboard.svc.app/v1/namespaces/{namespace}/dashboards"].post.operationId).toBe("createDashboardV1");
  });

  it("legacy routes carry their body schema (from the validator the handler uses) and their statuses with error bodies", async () => {
    const doc = (await t.api.get("/openapi/v3", { auth: ADMIN })).body;
    const create = doc.paths["/api/folders"].post;
    const body = create.requestBody.content["application/json"].schema;
    expect(body.required).toContain("title");
    expect(Object.keys(body.properties)).toEqual(expect.arrayContaining(["uid", "title", "parentUid"]));
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(["200", "400", "401", "403", "409"]));
    expect(create.responses["409"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/LegacyError" });
    const save = doc.paths["/api/dashboards/db"].post;
    expect(save.requestBody.content["application/json"].schema.required).toEqual(["dashboard"]);
    expect(save.responses["412"].description).toContain("version-mismatch");
    expect(Object.keys(doc.paths["/api/folders/{uid}"].get.responses)).toEqual(expect.arrayContaining(["200", "401", "403", "404"]));
    expect(Object.keys(doc.paths["/api/health"].get.responses)).toEqual(["200"]);
  });

  it("GET /openapi/v3 without credentials -> 401; /swagger is a page", async () => {
    expect((await t.api.get("/openapi/v3")).status).toBe(401);
    const page = await fetch(`${t.server.urls.dashboard}/swagger`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await page.text()).toContain("/openapi/v3");
  });
});
