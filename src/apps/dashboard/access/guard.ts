// Every dashboard route is registered through this router with the access it
// requires (DESIGN rule 2): public, any signed-in caller, or a permission
// (action plus the scopes the request touches). The registry lets a test
// check that no route was added without a guard.
import type { Context, Handler, Hono } from "hono";
import { getCookie } from "hono/cookie";
import { ApiError } from "../../../lib/errors.ts";
import { queryParams } from "../../../lib/http/query.ts";
import type { Authenticator, Identity } from "../core/identity/authenticate.ts";
import { hasPermission } from "../core/identity/permissions.ts";
import { SESSION_COOKIE } from "../core/identity/sessions.ts";

export type Access =
  | { public: true }
  | {
      signedIn: true;
      usersOnly?: boolean;
      orgOf?: (c: Context) => string | undefined;
      /** answers a session that must enrol a second factor first (security.totp_required_for_admins) */
      duringEnrolment?: boolean;
    }
  | {
      action: string;
      /** the scopes of the object the request touches; any one covered is enough */
      scope?: (c: Context) => string | string[] | undefined;
      usersOnly?: boolean;
      /** evaluate in this organization (a path parameter) instead of the caller's current one */
      orgOf?: (c: Context) => string | undefined;
      /** how orgOf picks the organization, for docs/permissions.md (default: the organization of the path) */
      orgNote?: string;
      /** the 403 message when the permission is missing, where the real product has its own; the RBAC body otherwise */
      denied?: string;
    };

/** what the OpenAPI document says of a route beyond its path and access */
export interface RouteDoc {
  /** the validator of the JSON body (the one the handler parses with) */
  body?: { toJsonSchema(): unknown };
  /** statuses the route answers beyond those its access and path imply, with what each means */
  responses?: Record<number, string>;
}

export interface RouteEntry {
  method: string;
  path: string;
  access: Access;
  doc?: RouteDoc;
}

type Method = "get" | "post" | "put" | "patch" | "delete";

export type Router = Record<Method, (path: string, access: Access, handler: Handler, doc?: RouteDoc) => void> & {
  readonly entries: readonly RouteEntry[];
};

export function createRouter(app: Hono, auth: Authenticator): Router {
  const entries: RouteEntry[] = [];
  const add = (method: Method) => (path: string, access: Access, handler: Handler, doc?: RouteDoc) => {
    entries.push({ method: method.toUpperCase(), path, access, ...(doc ? { doc } : {}) });
    app.on(method.toUpperCase(), path, async (c, next) => {
      if (!("public" in access)) await authorize(c, access, auth);
      return next();
    }, handler);
  };
  return { get: add("get"), post: add("post"), put: add("put"), patch: add("patch"), delete: add("delete"), entries };
}

async function authorize(c: Context, access: Exclude<Access, { public: true }>, auth: Authenticator): Promise<void> {
  const identity = await auth.authenticate({
    authorization: c.req.header("Authorization"),
    session: getCookie(c, SESSION_COOKIE),
    orgId: ("orgOf" in access ? access.orgOf?.(c) : undefined) ?? queryParams(c).one("targetOrgId") ?? orgHeader(c),
  });
  c.set("identity" as never, identity as never);
  if (identity.mustEnrol && !("duringEnrolment" in access && access.duringEnrolment)) {
    throw new ApiError(403, "two-factor authentication is required for administrators: enrol a second factor first (POST /api/user/2fa/enrol)", {
      messageId: "second-factor.enrolment-required",
    });
  }
  if (access.usersOnly && identity.kind !== "user") throw new ApiError(403, "Endpoint only available for users");
  if ("action" in access) {
    const scopes = access.scope?.(c);
    if (!hasPermission(identity.permissions, access.action, scopes === undefined ? undefined : [scopes].flat())) {
      throw access.denied ? new ApiError(403, access.denied) : accessDenied(access.action);
    }
  }
}

/** the header the real product's clients name the organization by (docs/compatibility.md): the same as X-Svc-Org-Id */
export const ORG_HEADER_ALIAS = "X-Grafana-Org-Id";

/**
 * The organization a legacy request names by header: X-Svc-Org-Id, or its
 * alias as the real product's clients send it (grafana-client's
 * organization_id, Terraform's org_id). Both at once must agree: a request
 * naming two organizations is refused, never answered in either.
 */
export function orgHeader(c: Context): string | undefined {
  const own = c.req.header("X-Svc-Org-Id");
  const alias = c.req.header(ORG_HEADER_ALIAS);
  if (own !== undefined && alias !== undefined && own.trim() !== alias.trim()) {
    throw new ApiError(400, `the X-Svc-Org-Id header (${own.slice(0, 20)}) and the ${ORG_HEADER_ALIAS} header (${alias.slice(0, 20)}) name different organizations`);
  }
  return own ?? alias;
}

/** the real product's RBAC denial body (reference §1.1, shape 3) */
export function accessDenied(needed: string): ApiError {
  const digits = Array.from(crypto.getRandomValues(new Uint8Array(10)), (b) => b % 10).join("");
  return new ApiError(403, `You'll need additional permissions to perform this action. Permissions needed: ${needed}`, {
    body: { title: "Access denied", accessErrorId: `ACE${digits}` },
  });
}

/** the caller of a guarded route */
export function identityOf(c: Context): Identity {
  const identity = c.get("identity" as never) as Identity | undefined;
  if (!identity) throw new Error(`no identity on ${c.req.method} ${c.req.path}: the route is not guarded`);
  return identity;
}

export function maybeIdentity(c: Context): Identity | undefined {
  return c.get("identity" as never) as Identity | undefined;
}
