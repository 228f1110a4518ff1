// GET /openapi/v3: an OpenAPI 3 document of every route the dashboard
// listener serves, made from the router's registry and, for /apis kinds,
// from the same arktype schemas that validate requests. GET /swagger shows
// it as a page (no external scripts: it works offline).
import type { Router, RouteEntry } from "../access/guard.ts";
import type { KindDescriptor } from "./kind.ts";
import { servedVersions } from "./kind.ts";
import { VERSION } from "../../../version.ts";

const toOpenApiPath = (path: string) => path.replace(/:([A-Za-z]+)/g, "{$1}");

const VERBS: Record<string, string> = { get: "get", post: "post", put: "put", patch: "patch", delete: "delete" };
const word = (s: string) => s.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? "").toUpperCase());
const title = (s: string) => (s ? s[0]!.toUpperCase() + s.slice(1) : s);

/**
 * A legacy route's operationId, for clients generated from the document: the
 * method and the path's words, a parameter as By<Name> (GET
 * /api/users/:id/orgs -> getUsersByIdOrgs)
 */
function legacyOperationId(method: string, path: string): string {
  const parts = path.split("/").filter((p) => p && p !== "api").map((p) => (p.startsWith(":") ? `By${title(p.slice(1))}` : p === "*" ? "Any" : title(word(p))));
  return `${VERBS[method.toLowerCase()] ?? method.toLowerCase()}${parts.join("") || "Root"}`;
}

function accessText(e: RouteEntry): string {
  const a = e.access;
  if ("public" in a) return "public";
  if ("action" in a) return `requires ${a.action}`;
  return a.orgOf ? "signed in; the kind's own permission in the namespace's organization" : "signed in";
}

/** an arktype validator as an OpenAPI 3.0 schema */
function jsonSchemaOf(validator: { toJsonSchema(): unknown }): unknown {
  // what JSON Schema cannot say (a narrow's predicate) is written as its base: the shape without the extra check
  const toJsonSchema = validator.toJsonSchema as (options?: { fallback: (ctx: { base: unknown }) => unknown }) => unknown;
  try {
    return toOpenApi30(toJsonSchema.call(validator, { fallback: (ctx) => ctx.base }));
  } catch {
    return { type: "object" };
  }
}

const isNullType = (node: unknown) => typeof node === "object" && node !== null && (node as Record<string, unknown>).type === "null" && Object.keys(node).length === 1;

/**
 * JSON Schema (2020-12, what arktype writes) in OpenAPI 3.0's dialect: no
 * $schema, numeric exclusive bounds as a bound plus a flag, const as a
 * one-value enum, null as nullable (`x | null` is an anyOf holding
 * {type: "null"}), and an array's items always given. arktype writes
 * `additionalProperties: false` for undeclared keys dropped ("+": "delete")
 * as for undeclared keys refused; the program's schemas only drop them, so
 * the document leaves it out: a client may send more (GET's fields back).
 */
function toOpenApi30(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toOpenApi30);
  if (node === null || typeof node !== "object") return node;
  const source = node as Record<string, unknown>;
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = source[key];
    if (!Array.isArray(branches) || !branches.some(isNullType)) continue;
    const rest = branches.filter((b) => !isNullType(b));
    const others = { ...source };
    delete others[key];
    const base = rest.length === 1 ? { ...others, ...(rest[0] as Record<string, unknown>) } : rest.length ? { ...others, [key]: rest } : { ...others, enum: [null] };
    return { ...(toOpenApi30(base) as Record<string, unknown>), nullable: true };
  }
  if (isNullType(source)) return { nullable: true, enum: [null] };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(source)) {
    if (k === "$schema" || (k === "additionalProperties" && v === false)) continue;
    if ((k === "exclusiveMinimum" || k === "exclusiveMaximum") && typeof v === "number") {
      out[k === "exclusiveMinimum" ? "minimum" : "maximum"] = v;
      out[k] = true;
    } else if (k === "const") out.enum = [v];
    else out[k] = toOpenApi30(v);
  }
  if (out.type === "array" && out.items === undefined) out.items = {};
  return out;
}

const schemaOf = (d: KindDescriptor) => jsonSchemaOf(d.specSchema);

const ERROR_REF = { $ref: "#/components/schemas/LegacyError" };
/** the legacy family's error bodies (render-error.ts): plain, structured, or with a status word */
const LEGACY_ERROR = {
  type: "object",
  required: ["message"],
  properties: {
    message: { type: "string" },
    messageId: { type: "string" },
    statusCode: { type: "integer" },
    traceID: { type: "string" },
    status: { type: "string", description: "a status word some routes add (not-found, version-mismatch, name-exists)" },
  },
};

const STATUS_TEXT: Record<number, string> = {
  400: "bad input, named in the message",
  401: "not signed in, or bad credentials",
  403: "the caller lacks the permission",
  404: "not found",
};

/** a legacy route's statuses: 200, those its access and path imply, and those its doc adds */
function legacyResponses(e: RouteEntry, hasParams: boolean): Record<string, unknown> {
  const error = (text: string) => ({ description: text, content: { "application/json": { schema: ERROR_REF } } });
  const out: Record<string, unknown> = { "200": { description: "JSON", content: { "application/json": { schema: { type: "object" } } } } };
  const statuses = new Set<number>();
  if (e.doc?.body || e.method !== "GET") statuses.add(400);
  if (!("public" in e.access)) statuses.add(401);
  if ("action" in e.access || ("signedIn" in e.access && (e.access.orgOf || e.access.usersOnly))) statuses.add(403);
  if (hasParams) statuses.add(404);
  for (const s of statuses) out[String(s)] = error(STATUS_TEXT[s]!);
  for (const [s, text] of Object.entries(e.doc?.responses ?? {})) out[s] = Number(s) < 400 ? { description: text } : error(text);
  return out;
}

export function openApiDocument(entries: readonly RouteEntry[], kinds: KindDescriptor[], toggles: readonly string[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  const add = (path: string, method: string, op: Record<string, unknown>) => {
    paths[path] ??= {};
    paths[path]![method.toLowerCase()] = op;
  };
  for (const e of entries) {
    if (e.path.startsWith("/apis/:group")) continue; // described per kind below
    const params = [...e.path.matchAll(/:([A-Za-z]+)/g)].map((m) => ({ name: m[1], in: "path", required: true, schema: { type: "string" } }));
    add(toOpenApiPath(e.path), e.method, {
      operationId: legacyOperationId(e.method, e.path),
      summary: accessText(e),
      ...(params.length ? { parameters: params } : {}),
      ...(e.doc?.body ? { requestBody: { required: true, content: { "application/json": { schema: jsonSchemaOf(e.doc.body) } } } } : {}),
      responses: legacyResponses(e, params.length > 0),
    });
  }
  const schemas: Record<string, unknown> = { LegacyError: LEGACY_ERROR };
  for (const d of kinds) {
    for (const v of servedVersions(d, toggles)) {
      const name = `${d.kind}_${v}`;
      schemas[name] = {
        type: "object",
        required: ["metadata", "spec"],
        properties: {
          apiVersion: { type: "string", enum: [`${d.group}/${v}`] },
          kind: { type: "string", enum: [d.kind] },
          metadata: {
            type: "object",
            properties: {
              name: { type: "string", maxLength: d.maxNameLength },
              generateName: { type: "string" },
              resourceVersion: { type: "string" },
              labels: { type: "object", additionalProperties: { type: "string" } },
              annotations: { type: "object", additionalProperties: { type: "string" } },
            },
          },
          spec: schemaOf(d),
        },
      };
      const ref = { $ref: `#/components/schemas/${name}` };
      const body = { required: true, content: { "application/json": { schema: ref } } };
      const ns = { name: "namespace", in: "path", required: true, schema: { type: "string" } };
      const nm = { name: "name", in: "path", required: true, schema: { type: "string" } };
      const collection = `/apis/${d.group}/${v}/namespaces/{namespace}/${d.resource}`;
      const list = { name: "limit", in: "query", schema: { type: "integer" } };
      const cont = { name: "continue", in: "query", schema: { type: "string" } };
      const sel = ["labelSelector", "fieldSelector"].map((n) => ({ name: n, in: "query", schema: { type: "string" } }));
      // checked as the API server checks them (query-options.ts); accepted, a list is always the latest state
      const rv = { name: "resourceVersion", in: "query", schema: { type: "string", pattern: "^[0-9]*$" } };
      const rvMatch = { name: "resourceVersionMatch", in: "query", schema: { type: "string", enum: ["Exact", "NotOlderThan"] } };
      const timeout = { name: "timeoutSeconds", in: "query", schema: { type: "integer" } };
      const id = (verb: string, suffix = "") => `${verb}${d.kind}${suffix}${title(word(v))}`;
      add(collection, "GET", { operationId: id("list"), summary: `list ${d.resource} (${d.actions.read})`, parameters: [ns, list, cont, ...sel, rv, rvMatch, timeout], responses: { "200": { description: `${d.kind}List` } } });
      add(collection, "POST", { operationId: id("create"), summary: `create a ${d.kind} (${d.actions.create})`, parameters: [ns], requestBody: body, responses: { "201": { description: d.kind } } });
      add(`${collection}/{name}`, "GET", { operationId: id("get"), summary: `get a ${d.kind} (${d.actions.read})`, parameters: [ns, nm, rv], responses: { "200": { description: d.kind } } });
      add(`${collection}/{name}`, "PUT", { operationId: id("replace"), summary: `replace a ${d.kind} (${d.actions.write})`, parameters: [ns, nm], requestBody: body, responses: { "200": { description: d.kind } } });
      add(`${collection}/{name}`, "DELETE", { operationId: id("delete"), summary: `delete a ${d.kind} (${d.actions.delete})`, parameters: [ns, nm], responses: { "200": { description: "Status" } } });
      for (const sub of Object.keys(d.subresources ?? {})) {
        add(`${collection}/{name}/${sub}`, "GET", { operationId: id("get", title(word(sub))), summary: `${sub} of a ${d.kind}`, parameters: [ns, nm], responses: { "200": { description: sub } } });
      }
    }
  }
  return {
    openapi: "3.0.3",
    info: { title: "Outpost dashboard API", version: VERSION },
    components: {
      schemas,
      securitySchemes: { basic: { type: "http", scheme: "basic" }, bearer: { type: "http", scheme: "bearer" } },
    },
    security: [{ basic: [] }, { bearer: [] }],
    paths,
  };
}

const SWAGGER_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Outpost API</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:70rem}code{font-size:.95em}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}
.m{font-weight:600;font-family:monospace}</style></head>
<body><h1>Outpost API</h1><p>Generated from <a href="/openapi/v3">/openapi/v3</a> (sign in first).</p>
<table><thead><tr><th>method</th><th>path</th><th>summary</th></tr></thead><tbody id="rows"></tbody></table>
<script>
fetch("/openapi/v3", { credentials: "same-origin" }).then((r) => r.ok ? r.json() : Promise.reject(new Error(r.status + " " + r.statusText)))
  .then((doc) => {
    const rows = document.getElementById("rows");
    for (const [path, ops] of Object.entries(doc.paths)) for (const [method, op] of Object.entries(ops)) {
      const tr = document.createElement("tr");
      for (const [cls, text] of [["m", method.toUpperCase()], ["", path], ["", op.summary || ""]]) {
        const td = document.createElement("td"); td.className = cls; td.textContent = text; tr.appendChild(td);
      }
      rows.appendChild(tr);
    }
  })
  .catch((e) => { document.getElementById("rows").textContent = "could not load the document: " + e.message; });
</script></body></html>`;

export function registerOpenApi(r: Router, kinds: KindDescriptor[], toggles: readonly string[]): void {
  r.get("/openapi/v3", { signedIn: true }, (c) => c.json(openApiDocument(r.entries, kinds, toggles)));
  r.get("/swagger", { public: true }, (c) => c.html(SWAGGER_PAGE));
}
