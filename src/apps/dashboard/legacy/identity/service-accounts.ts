// /api/serviceaccounts: the eight endpoints of the spec's "Legacy service accounts".
import { type } from "../../../../lib/arktype.ts";
import type { Context } from "hono";
import { ApiError } from "../../../../lib/errors.ts";
import { positiveInt } from "../../../../lib/http/query.ts";
import { parseBody } from "../../../../lib/http/validate.ts";
import { identityOf, type Router } from "../../access/guard.ts";
import { isOrgRole, ORG_ROLES } from "../../core/identity/basic-roles.ts";
import type { IdentityDeps } from "../../core/identity/identity-deps.ts";
import { parseId } from "../../core/identity/orgs.ts";
import {
  createServiceAccount, createToken, deleteServiceAccount, deleteToken, getServiceAccount, listTokens,
  searchServiceAccounts, updateServiceAccount, type Caller,
} from "../../core/identity/service-accounts.ts";

const NewAccount = type({ name: "string", "role?": "string", "isDisabled?": "boolean" });
const AccountChange = type({ "name?": "string", "role?": "string", "isDisabled?": "boolean" });
const NewToken = type({ name: "string", "secondsToLive?": "number.integer" });

function caller(c: Context): Caller {
  const id = identityOf(c);
  return { orgId: id.orgId, orgRole: id.orgRole, isServerAdmin: id.user.isServerAdmin, permissions: id.permissions };
}

function role(value: string | undefined) {
  if (value === undefined) return undefined;
  if (!isOrgRole(value)) {
    throw new ApiError(400, "invalid role specified", { messageId: "serviceaccounts.ErrInvalidRoleSpecified", extra: { allowed: ORG_ROLES } });
  }
  return value;
}


const accountId = (c: Context) => parseId(c.req.param("id"), "Service Account ID is invalid");
const scope = (c: Context) => `serviceaccounts:id:${c.req.param("id")}`;

export function registerServiceAccounts(r: Router, deps: IdentityDeps): void {
  r.get("/api/serviceaccounts/search", { action: "serviceaccounts:read" }, async (c) =>
    c.json(
      await searchServiceAccounts(deps, caller(c), {
        query: c.req.query("query") ?? "",
        page: positiveInt(c.req.query("page"), 1),
        perPage: positiveInt(c.req.query("perpage"), 1000),
        disabled: c.req.query("disabled") === "true",
        expiredTokens: c.req.query("expiredTokens") === "true",
      }),
    ),
  );

  r.post("/api/serviceaccounts", { action: "serviceaccounts:create" }, async (c) => {
    const body = await parseBody(c, NewAccount);
    return c.json(await createServiceAccount(deps, caller(c), { ...body, role: role(body.role) }), 201);
  }, { body: NewAccount });

  r.get("/api/serviceaccounts/:id", { action: "serviceaccounts:read", scope }, async (c) =>
    c.json(await getServiceAccount(deps, caller(c), accountId(c))),
  );

  r.patch("/api/serviceaccounts/:id", { action: "serviceaccounts:write", scope }, async (c) => {
    const id = accountId(c);
    const body = await parseBody(c, AccountChange);
    return c.json(await updateServiceAccount(deps, caller(c), id, { ...body, role: role(body.role) }));
  }, { body: AccountChange });

  r.delete("/api/serviceaccounts/:id", { action: "serviceaccounts:delete", scope }, async (c) => {
    await deleteServiceAccount(deps, caller(c), accountId(c));
    return c.json({ message: "Service account deleted" });
  });

  r.get("/api/serviceaccounts/:id/tokens", { action: "serviceaccounts:read", scope }, async (c) =>
    c.json(await listTokens(deps, caller(c), accountId(c))),
  );

  r.post("/api/serviceaccounts/:id/tokens", { action: "serviceaccounts:write", scope }, async (c) => {
    const id = accountId(c);
    const body = await parseBody(c, NewToken);
    return c.json(await createToken(deps, caller(c), id, body));
  }, { body: NewToken });

  r.delete("/api/serviceaccounts/:id/tokens/:tokenId", { action: "serviceaccounts:write", scope }, async (c) => {
    const id = accountId(c);
    const tokenId = parseId(c.req.param("tokenId"), "Token ID is invalid");
    await deleteToken(deps, caller(c), id, tokenId);
    return c.json({ message: "Service account token deleted" });
  });
}
