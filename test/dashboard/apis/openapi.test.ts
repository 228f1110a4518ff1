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

  it("every legacy route that validates a JSON body documents it, with its distinctive statuses", async () => {
    const doc = (await t.api.get("/openapi/v3", { auth: ADMIN })).body;
    const schemaOf = (path: string, method: string) => doc.paths[path]?.[method]?.requestBody?.content["application/json"].schema;
    const props = (path: string, method: string) => Object.keys(schemaOf(path, method)?.properties ?? {});
    const statuses = (path: string, method: string) => Object.keys(doc.paths[path][method].responses);
    // annotations (a narrowed JSON object written as its base; `| null` as nullable)
    expect(props("/api/annotations", "post")).toEqual(expect.arrayContaining(["text", "dashboardUID", "tags", "data"]));
    expect(schemaOf("/api/annotations", "post").properties.tags).toMatchObject({ type: "array", nullable: true });
    expect(props("/api/annotations/graphite", "post")).toContain("what");
    expect(props("/api/annotations/{id}", "patch")).toContain("text");
    expect(props("/api/annotations/mass-delete", "post")).toContain("annotationId");
    // library elements
    expect(schemaOf("/api/library-elements", "post").required).toEqual(expect.arrayContaining(["model", "kind"]));
    expect(schemaOf("/api/library-elements/{uid}", "patch").required).toContain("version");
    expect(statuses("/api/library-elements/{uid}", "patch")).toContain("412");
    // preferences (every owner, PUT and PATCH; undeclared keys are dropped, not refused)
    for (const path of ["/api/user/preferences", "/api/org/preferences", "/api/teams/{id}/preferences"]) {
      for (const method of ["put", "patch"]) expect(props(path, method), `${method} ${path}`).toContain("homeDashboardUID");
    }
    expect(schemaOf("/api/user/preferences", "put").additionalProperties).toBeUndefined();
    expect(statuses("/api/user/preferences", "put")).toContain("404");
    // reports, licensing (enterprise)
    expect(schemaOf("/api/reports", "post").required).toEqual(expect.arrayContaining(["name", "schedule", "dashboards"]));
    expect(props("/api/reports/{id}", "put")).toContain("dashboards");
    expect(schemaOf("/api/licensing/token", "post").required).toEqual(["token"]);
    expect(props("/api/licensing/token", "delete")).toEqual(["instance"]);
    expect(statuses("/api/licensing/token", "delete")).toContain("422");
    // alerting provisioning
    expect(props("/api/v1/provisioning/alert-rules", "post")).toEqual(expect.arrayContaining(["title", "ruleGroup", "folderUID", "condition"]));
    expect(statuses("/api/v1/provisioning/alert-rules", "post")).toContain("409");
    expect(props("/api/v1/provisioning/alert-rules/{uid}", "put")).toContain("title");
    expect(props("/api/v1/provisioning/folder/{folderUid}/rule-groups/{group}", "put")).toEqual(expect.arrayContaining(["interval", "rules"]));
    expect(schemaOf("/api/v1/provisioning/contact-points", "post").required).toEqual(["name"]);
    expect(props("/api/v1/provisioning/contact-points/{uid}", "put")).toContain("settings");
    expect(schemaOf("/api/v1/provisioning/policies", "put")).toMatchObject({ type: "object" });
    expect(schemaOf("/api/v1/provisioning/mute-timings", "post").properties.time_intervals).toEqual({ type: "array", items: {} });
    expect(statuses("/api/v1/provisioning/mute-timings/{name}", "put")).toContain("409");
    expect(props("/api/v1/provisioning/templates/{name}", "put")).toEqual(expect.arrayContaining(["template", "version"]));
    // data sources, their permissions and LBAC rules, queries
    expect(schemaOf("/api/datasources", "post").required).toEqual(expect.arrayContaining(["name", "type"]));
    expect(statuses("/api/datasources", "post")).toContain("409");
    for (const path of ["/api/datasources/uid/{uid}", "/api/datasources/{id}"]) expect(props(path, "put"), path).toContain("jsonData");
    for (const who of ["users/{id}", "teams/{id}", "builtInRoles/{role}"]) {
      expect(schemaOf(`/api/access-control/datasources/{uid}/${who}`, "post").required, who).toEqual(["permission"]);
    }
    expect(props("/api/datasources/uid/{uid}/lbac/teams", "put")).toEqual(["rules"]);
    expect(props("/api/ds/query", "post")).toEqual(expect.arrayContaining(["from", "to", "queries"]));
    // users, the signed-in user, sign-in
    expect(props("/api/users/{id}", "put")).toEqual(expect.arrayContaining(["login", "email", "name", "theme"]));
    expect(statuses("/api/users/{id}", "put")).toContain("409");
    expect(props("/api/admin/users/{id}/permissions", "put")).toContain("isSvcAdmin");
    expect(schemaOf("/api/admin/users/{id}/password", "put").required).toEqual(["password"]);
    expect(schemaOf("/api/user/password", "put").required).toEqual(expect.arrayContaining(["oldPassword", "newPassword"]));
    expect(schemaOf("/login", "post").required).toEqual(expect.arrayContaining(["user", "password"]));
    expect(statuses("/login", "post")).toContain("401");
    // organizations and their members
    expect(schemaOf("/api/admin/users", "post").required).toEqual(["password"]);
    expect(statuses("/api/admin/users", "post")).toContain("412");
    for (const [path, method] of [["/api/orgs", "post"], ["/api/org", "put"], ["/api/orgs/{orgId}", "put"]] as const) {
      expect(schemaOf(path, method).required, `${method} ${path}`).toEqual(["name"]);
      expect(statuses(path, method), `${method} ${path}`).toContain("409");
    }
    for (const base of ["/api/org", "/api/orgs/{orgId}"]) {
      expect(props(`${base}/users`, "post"), base).toEqual(expect.arrayContaining(["loginOrEmail", "role"]));
      expect(props(`${base}/users/{userId}`, "patch"), base).toEqual(["role"]);
    }
    // teams, their members and groups
    expect(schemaOf("/api/teams", "post").required).toEqual(["name"]);
    expect(statuses("/api/teams/{id}", "put")).toContain("409");
    expect(schemaOf("/api/teams/{id}/members", "post").required).toEqual(["userId"]);
    expect(schemaOf("/api/teams/{teamId}/groups", "post").required).toEqual(["groupId"]);
    // service accounts and their tokens
    expect(schemaOf("/api/serviceaccounts", "post").required).toEqual(["name"]);
    expect(props("/api/serviceaccounts/{id}", "patch")).toEqual(expect.arrayContaining(["name", "role", "isDisabled"]));
    expect(props("/api/serviceaccounts/{id}/tokens", "post")).toContain("secondsToLive");
    // roles (enterprise)
    expect(props("/api/access-control/roles", "post")).toEqual(expect.arrayContaining(["name", "permissions"]));
    expect(statuses("/api/access-control/roles/{uid}", "put")).toContain("409");
    expect(props("/api/access-control/roles/hard-reset", "post")).toEqual(["BasicRoles"]);
    expect(schemaOf("/api/access-control/teams/{teamId}/roles", "put").required).toEqual(["roleUids"]);
    expect(schemaOf("/api/access-control/teams/{teamId}/roles", "post").required).toEqual(["roleUid"]);
    // routes that take no JSON body have none
    for (const [path, method] of [["/api/user/stars/dashboard/uid/{uid}", "post"], ["/api/licensing/token/renew", "post"], ["/api/admin/users/{id}/disable", "post"]] as const) {
      expect(doc.paths[path][method].requestBody, `${method} ${path}`).toBeUndefined();
    }
  });

  it("GET /openapi/v3 without credentials -> 401; /swagger is a page", async () => {
    expect((await t.api.get("/openapi/v3")).status).toBe(401);
    const page = await fetch(`${t.server.urls.dashboard}/swagger`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await page.text()).toContain("/openapi/v3");
  });
});
