// /api/admin/access-policies and /api/admin/access-tokens: the log and
// metrics stores' access policies and tokens (store-access/), managed from the
// dashboard by server administrators, so the admin page needs no store
// credentials of its own. The same StoreAccess as the metrics store's
// /admin/api/v3 (a token revoked here is refused by both stores at once), the
// same GEM bodies (model.ts); token lists add each token's usage. If-Match is
// not required here (a session behind CSRF checks, or basic auth), but one
// sent is honoured; answers carry the ETag the stores' admin API gives. The
// token's secret is in the creation answer only.
import type { Context } from "hono";
import { type } from "../../../../lib/arktype.ts";
import { parseBody } from "../../../../lib/http/validate.ts";
import type { StoreAccess } from "../../../../store-access/access-store.ts";
import { etagOf, policyJson, tokenJson, type AccessToken } from "../../../../store-access/model.ts";
import type { Router } from "../../access/guard.ts";

/** GEM's policy body; model.ts checks the rest (names, tenants, known scopes) */
const Realm = type({ tenant: "string", "cluster?": "string | null", "label_policies?": "unknown[] | null" });
const PolicyIn = type({
  "name?": "string",
  "display_name?": "string | null",
  realms: Realm.array(),
  scopes: "string[]",
  "status?": "'active' | 'inactive'",
});
/** GEM's token body: access_policy on creation; a PUT changes display_name and expiration */
const TokenIn = type({ "name?": "string", "display_name?": "string | null", "access_policy?": "string", "expiration?": "string | null" });

const POLICIES = "/api/admin/access-policies";
const TOKENS = "/api/admin/access-tokens";

export interface AccessPolicyRouteDeps {
  access: StoreAccess;
  now: () => number;
}

/** If-Match when the client sent one (an empty header counts as none); otherwise none is required */
const ifMatch = (c: Context) => c.req.header("If-Match")?.trim() || null;
const name = (c: Context) => c.req.param("name")!;

export function registerAccessPolicies(r: Router, deps: AccessPolicyRouteDeps): void {
  const { access, now } = deps;
  const read = { action: "accesspolicies:read" };
  const write = { action: "accesspolicies:write" };
  const remove = { action: "accesspolicies:delete" };
  const tagged = (c: Context, body: unknown, etag: string) => c.json(body, 200, { ETag: etag });
  const policyTag = (n: string) => etagOf("policy", n, access.getPolicy(n).version);
  const tokenTag = (t: AccessToken) => etagOf("token", t.name, t.version);
  /** a token as listed, with what it has sent and asked for since the server started */
  const tokenView = (t: AccessToken) => {
    const { last_used_ms, ...counts } = access.usage.of(t.name);
    return { ...tokenJson(t, now()), usage: { ...counts, last_used_at: last_used_ms ? new Date(last_used_ms).toISOString() : null } };
  };

  // ?tenant=x: the policies that reach tenant x (a realm naming it, or every tenant)
  r.get(POLICIES, read, (c) => {
    const tenant = c.req.query("tenant");
    const items = tenant ? access.policiesReaching(tenant) : access.listPolicies();
    return c.json({ items: items.map(policyJson), type: "accesspolicy" });
  });
  r.post(POLICIES, write, async (c) => {
    const p = await access.createPolicy(await parseBody(c, PolicyIn));
    return tagged(c, policyJson(p), policyTag(p.name));
  }, { body: PolicyIn, responses: { 409: "an access policy of this name already exists" } });
  r.get(`${POLICIES}/:name`, read, (c) => tagged(c, policyJson(access.getPolicy(name(c))), policyTag(name(c))));
  r.put(`${POLICIES}/:name`, write, async (c) => {
    const p = await access.updatePolicy(name(c), await parseBody(c, PolicyIn), ifMatch(c));
    return tagged(c, policyJson(p), policyTag(p.name));
  }, { body: PolicyIn, responses: { 412: "If-Match was sent and is not the policy's current ETag" } });
  r.delete(`${POLICIES}/:name`, remove, async (c) => {
    await access.deletePolicy(name(c), ifMatch(c));
    return c.json({ message: "Access policy deleted, with its tokens" });
  }, { responses: { 412: "If-Match was sent and is not the policy's current ETag" } });

  // ?access_policy=x: the tokens of one policy
  r.get(TOKENS, read, (c) => {
    const policy = c.req.query("access_policy");
    return c.json({ items: access.listTokens(policy || undefined).map(tokenView), type: "token" });
  });
  // the one answer that carries the secret: only its hash is kept
  r.post(TOKENS, write, async (c) => {
    const { token, secret } = await access.createToken(await parseBody(c, TokenIn));
    return tagged(c, { ...tokenView(token), token: secret }, tokenTag(token));
  }, { body: TokenIn, responses: { 409: "a token of this name already exists" } });
  r.get(`${TOKENS}/:name`, read, (c) => {
    const t = access.getToken(name(c));
    return tagged(c, tokenView(t), tokenTag(t));
  });
  r.put(`${TOKENS}/:name`, write, async (c) => {
    const t = await access.updateToken(name(c), await parseBody(c, TokenIn), ifMatch(c));
    return tagged(c, tokenView(t), tokenTag(t));
  }, { body: TokenIn, responses: { 412: "If-Match was sent and is not the token's current ETag" } });
  r.delete(`${TOKENS}/:name`, remove, async (c) => {
    await access.deleteToken(name(c), ifMatch(c));
    return c.json({ message: "Access token deleted" });
  }, { responses: { 412: "If-Match was sent and is not the token's current ETag" } });
}
