// Server-admin user lists: GET /api/users and GET /api/users/search (the real
// product's shapes). Only holders of users:read on every user (server admins)
// may list them; service accounts are never listed here.
import type { Router } from "../../access/guard.ts";
import type { IdentityDeps } from "../../core/identity/identity-deps.ts";
import { searchUsers } from "../../core/identity/user-lists.ts";
import { pageQuery } from "../schemas.ts";

export function registerUsers(r: Router, deps: IdentityDeps): void {
  const allUsers = { action: "users:read", scope: () => "global.users:*" };

  r.get("/api/users", allUsers, async (c) => c.json((await searchUsers(deps, pageQuery(c))).users));

  r.get("/api/users/search", allUsers, async (c) => c.json(await searchUsers(deps, pageQuery(c))));
}
