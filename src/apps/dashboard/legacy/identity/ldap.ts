// The real product's LDAP debug API for server admins: GET /api/admin/ldap/status
// (each server reachable?), GET /api/admin/ldap/:username (the user's attributes
// and the roles and teams the mappings would give), POST /api/admin/ldap/sync/:id,
// POST /api/admin/ldap/reload (ldap.toml read again; an invalid file keeps the
// running configuration). With LDAP off each answers 400 "LDAP is not enabled".
import { ApiError, badRequest } from "../../../../lib/errors.ts";
import type { Router } from "../../access/guard.ts";
import type { LdapConfig } from "../../../../config/ldap.ts";
import type { LdapService } from "../../core/identity/ldap.ts";
import { parseId } from "../../core/identity/orgs.ts";

export interface LdapRouteDeps {
  /** undefined when auth.ldap.enabled is off */
  ldap: LdapService | undefined;
  /** reads and checks the config file again (throws naming the field) */
  readConfig: () => LdapConfig;
  /** after a reload: the authenticator forgets credentials verified under the old configuration */
  onReload: () => void;
}

export function registerLdap(r: Router, deps: LdapRouteDeps): void {
  const enabled = (): LdapService => {
    if (!deps.ldap) throw badRequest("LDAP is not enabled");
    return deps.ldap;
  };
  const off = { 400: "LDAP is not enabled" };

  r.get("/api/admin/ldap/status", { action: "ldap.status:read" }, async (c) => c.json(await enabled().status()), { responses: off });

  r.post("/api/admin/ldap/reload", { action: "ldap.config:reload" }, async (c) => {
    const ldap = enabled();
    let next: LdapConfig;
    try {
      next = deps.readConfig();
    } catch (err) {
      throw new ApiError(500, `Failed to reload LDAP config: ${(err as Error).message}`);
    }
    ldap.reload(next);
    deps.onReload();
    return c.json({ message: "LDAP config reloaded" });
  }, { responses: { ...off, 500: "Failed to reload LDAP config (the file is invalid: the message names the field)" } });

  r.post("/api/admin/ldap/sync/:id", { action: "ldap.user:sync" }, async (c) => {
    const ldap = enabled();
    const id = parseId(c.req.param("id"), "id is invalid");
    return c.json({ message: await ldap.syncUser(id) });
  }, { responses: { 400: "LDAP is not enabled, the user is not in LDAP any more (disabled) or the servers cannot be reached", 404: "not an LDAP user" } });

  r.get("/api/admin/ldap/:username", { action: "ldap.user:read" }, async (c) => {
    const ldap = enabled();
    const username = c.req.param("username");
    if (!username) throw badRequest("Validation error. You must specify an username");
    return c.json(await ldap.lookup(username));
  }, { responses: { ...off, 404: "No user was found in the LDAP server(s) with that username" } });
}
