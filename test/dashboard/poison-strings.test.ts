// Issue 16 #15 (dashboard half): text PostgreSQL cannot store — NUL (U+0000)
// and unpaired surrogates — sent to every route of the OpenAPI document, in
// path parameters, query parameters and JSON bodies (values and keys, at the
// top and nested, as /apis envelopes and legacy bodies carry them). Nothing
// may answer 5xx or log an unhandled error; a poisoned JSON body is a 400
// "bad request data" naming the field.
import { beforeAll, describe, expect, it } from "vitest";
import { ADMIN } from "../helpers/api.ts";
import { useServer } from "../helpers/server.ts";

const FOLD = "/apis/folder.svc.app/v1/namespaces/default/folders";
const DASH = "/apis/dashboard.svc.app/v1/namespaces/default/dashboards";

/** what the URL can carry: a NUL, an encoded surrogate (invalid UTF-8), an overlong NUL, a code point past U+10FFFF */
const URL_POISONS = ["%00", "a%ED%B0%80", "%C0%80", "%F4%90%80%80"];
/** what a JSON body can carry, as escapes */
const JSON_POISONS = ["a\u0000b", "\udc00", "x\ud800", "\ud800\ud800\udc00\udc00"];
const QUERY_NAMES = [
  "query", "tag", "tags", "type", "name", "login", "loginOrEmail", "uid", "dashboardUID", "dashboardUIDs", "dashboardIds", "folderUIDs",
  "starred", "limit", "page", "perpage", "perPage", "from", "to", "userId", "dashboardId", "panelId", "alertId", "matchAny", "sort",
  "groupId", "ds_type", "includeHidden", "force", "forceDeleteRules", "expiredTokens", "disabled", "targetOrgId", "id",
  "resourceVersion", "resourceVersionMatch", "continue", "labelSelector", "fieldSelector", "timeoutSeconds", "watch",
];
/** routes whose answers do not depend on their input here: the admin page (not built in tests) */
const SKIP = new Set(["GET /", "GET /*"]);
/** the data source proxy reaches an upstream that is not there: 502 is its honest answer */
const UPSTREAM = /^\/api\/datasources\/(proxy|uid\/\{uid\}\/resources|uid\/\{uid\}\/health|\{id\}\/resources)|^\/api\/ds\/query/;

function poisonBody(s: string): Record<string, unknown> {
  const fields = ["name", "title", "text", "login", "email", "uid", "type", "url", "role", "groupId", "message", "description", "displayName",
    "group", "ruleGroup", "folderUID", "folderUid", "dashboardUID", "theme", "timezone", "language", "homeDashboardUID", "what", "data",
    "recipients", "replyTo", "token", "user", "password", "oldPassword", "newPassword", "loginOrEmail", "roleUid", "permission", "database"];
  const body: Record<string, unknown> = Object.fromEntries(fields.map((f) => [f, s]));
  return {
    ...body,
    tags: ["ok", s],
    jsonData: { [`k${s}`]: "v", nested: { deep: [s] } },
    secureJsonData: { password: s },
    model: { title: s },
    metadata: { name: "pz-new", labels: { a: s }, annotations: { [s]: "v" } },
    spec: { title: s, panels: [{ title: s }] },
    queries: [{ refId: s, expr: s, datasource: { uid: s } }],
    rules: [s],
    permissions: [{ action: s, scope: s }],
  };
}

describe("poison strings on every dashboard route", () => {
  const t = useServer({ "server.edition": "enterprise" });
  let paths: Record<string, Record<string, unknown>>;

  beforeAll(async () => {
    // objects for the valid path parameters to reach
    await t.api.post(FOLD, { auth: ADMIN, body: { metadata: { name: "pz-f" }, spec: { title: "Poison" } } });
    await t.api.post(DASH, { auth: ADMIN, body: { metadata: { name: "pz-d", annotations: { "svc.app/folder": "pz-f" } }, spec: { title: "Poison" } } });
    await t.api.post("/api/teams", { auth: ADMIN, body: { name: "pz-team" } });
    await t.api.post("/api/serviceaccounts", { auth: ADMIN, body: { name: "pz-sa" } });
    await t.api.post("/api/datasources", { auth: ADMIN, body: { name: "pz-ds", uid: "pz-ds", type: "loki", access: "proxy", url: "http://127.0.0.1:9" } });
    await t.api.post("/api/annotations", { auth: ADMIN, body: { text: "pz" } });
    await t.api.post("/api/library-elements", { auth: ADMIN, body: { uid: "pz-le", name: "pz", kind: 1, model: {} } });
    const doc = await t.api.get("/openapi/v3", { auth: ADMIN });
    expect(doc.status).toBe(200);
    paths = doc.body.paths;
  }, 120_000);

  /** a path with its parameters filled: the poison, or values that exist */
  const fill = (template: string, poison?: string) =>
    template.replace(/\{([A-Za-z]+)\}/g, (_m, p: string) => {
      if (p === "namespace") return "default";
      if (poison !== undefined) return poison;
      if (p === "name") return template.includes("/dashboards") ? "pz-d" : "pz-f";
      if (p === "uid") return template.includes("library-elements") ? "pz-le" : "pz-ds";
      return "1";
    });

  const routes = () =>
    Object.entries(paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => ({ method: m.toUpperCase(), path }))).filter((r) => !SKIP.has(`${r.method} ${r.path}`));

  const failures: string[] = [];
  const send = async (method: string, template: string, url: string, body?: string) => {
    const res = await fetch(t.server.urls.dashboard + url, {
      method,
      headers: { Authorization: ADMIN, Accept: "application/json", ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
      ...(body === undefined ? {} : { body }),
    });
    const text = await res.text();
    const upstream = UPSTREAM.test(template) && (res.status === 502 || res.status === 504);
    if (res.status >= 500 && !upstream) failures.push(`${res.status} ${method} ${url.slice(0, 160)} ${text.slice(0, 160)}`);
    return { status: res.status, text };
  };

  it("path and query parameters with NUL, invalid UTF-8 and overlong encodings -> never 5xx", async () => {
    expect(routes().length).toBeGreaterThan(50);
    for (const { method, path } of routes()) {
      const body = ["POST", "PUT", "PATCH"].includes(method) ? "{}" : undefined;
      for (const poison of URL_POISONS) {
        const qs = QUERY_NAMES.map((q) => `${q}=${poison}`).join("&");
        await send(method, path, fill(path, poison), body);
        await send(method, path, `${fill(path)}?${qs}`, body);
      }
    }
    expect(failures).toEqual([]);
  }, 600_000);

  it("JSON bodies with NUL or unpaired surrogates anywhere -> 400 bad request data naming the field, never 5xx", async () => {
    let refused = 0;
    for (const { method, path } of routes()) {
      if (!["POST", "PUT", "PATCH", "DELETE"].includes(method)) continue;
      for (const poison of JSON_POISONS) {
        const r = await send(method, path, fill(path), JSON.stringify(poisonBody(poison)));
        if (r.status === 400 && /bad request data/.test(r.text)) refused++;
      }
    }
    expect(failures).toEqual([]);
    expect(refused).toBeGreaterThan(100);
    // the field is named, keys too
    const text = await t.api.post("/api/annotations", { auth: ADMIN, body: '{"text":"ok","data":{"list":["fine","a\\u0000"]}}' });
    expect(text.status).toBe(400);
    const key = await t.api.post(FOLD, { auth: ADMIN, body: '{"metadata":{"name":"pz-k","annotations":{"a\\udc00":"v"}},"spec":{"title":"t"}}' });
    expect({ status: key.status, message: key.body.message, reason: key.body.reason }).toEqual({
      status: 400, message: "bad request data: a key of metadata.annotations must not contain unpaired surrogates", reason: "BadRequest",
    });
    const dash = await t.api.post(DASH, { auth: ADMIN, body: '{"metadata":{"name":"pz-j"},"spec":{"title":"t","panels":[{"title":"\\u0000"}]}}' });
    expect(dash.body.message).toBe("bad request data: spec.panels[0].title must not contain NUL characters");
  }, 600_000);

  it("escaped backslashes and surrogate pairs are ordinary text, stored and read back", async () => {
    const text = "C:\\u0000\\udc00 \u{1F600}";
    const created = await t.api.post(FOLD, { auth: ADMIN, body: { metadata: { name: "pz-ok" }, spec: { title: text } } });
    expect(created.status).toBe(201);
    expect((await t.api.get(`${FOLD}/pz-ok`, { auth: ADMIN })).body.spec.title).toBe(text);
    // an escaped backslash before "ud83d" leaves the next escape a lone low surrogate
    const tricky = await t.api.post(FOLD, { auth: ADMIN, body: '{"metadata":{"name":"pz-t"},"spec":{"title":"\\\\ud83d\\ude00"}}' });
    expect({ status: tricky.status, message: tricky.body.message }).toEqual({ status: 400, message: "bad request data: spec.title must not contain unpaired surrogates" });
  });

  it("nothing was logged as an unhandled error, and the server still answers", async () => {
    expect(t.server.logs.filter((l) => l.msg === "unhandled error").map((l) => `${String(l.path)}: ${String(l.err).slice(0, 200)}`)).toEqual([]);
    expect((await t.api.get("/api/health")).status).toBe(200);
  });
});
