// Server-admin user lists: GET /api/users and GET /api/users/search (the real
// product's shapes). Only holders of users:read on every user (server admins)
// may list them; service accounts are never listed here.
import type { Context } from "hono";
import { positiveInt } from "../../../lib/http/query.ts";
import type { Router } from "../access/guard.ts";
import type { IdentityDeps } from "../core/identity-deps.ts";
import { searchUsers, type PageQuery } from "../core/user-lists.ts";

/** perpage defaults to 1000 and page to 1, as in the real product (values below 1 take the default) */
export function pageQuery(c: Context): PageQuery {
  return {
    query: c.req.query("query") ?? "",
    page: positiveInt(c.req.query("page"), 1),
    perPage: positiveInt(c.req.query("perpage"), 1000),
  };
}

export function registerUsers(r: Router, deps: IdentityDeps): void {
  const allUsers = { action: "users:read", scope: () => "global.users:*" };

  r.get("/api/users", allUsers, async (c) => c.json((await searchUsers(deps, pageQuery(c))).users));

  r.get("/api/users/search", allUsers, async (c) => c.json(await searchUsers(deps, pageQuery(c))));
}
