// LDAP / Active Directory sign-in in the real product's model (docs/authentication.md):
// the servers of ldap.toml are asked in order; the first that knows the user
// decides. A verified user is created (auth.ldap.allow_sign_up) or updated:
// login, email and name from the attributes, organization roles from the group
// mappings (unless auth.ldap.skip_org_role_sync), the server admin flag from
// grafana_admin, teams from team sync. A user matching no mapping (when there
// are mappings) is refused, as a user the directory no longer holds is (and
// disabled, its sessions ended). A server that cannot be reached is logged and
// the next one asked; local users never depend on it. The password is never
// stored or logged.
//
// Every directory conversation (a sign-in, a lookup, one user of the active
// sync) takes one of auth.ldap.max_concurrent_operations slots; at most
// auth.ldap.max_queued_operations sign-ins wait for one, and beyond that a
// sign-in is answered 503 at once: a flood of unknown user names (each one a
// bind and a search) costs a bounded number of connections, and local users
// and cached sign-ins never wait. The active sync (syncAll, scheduled by
// ldap-sync.ts) re-checks every enabled LDAP user in the background, one at a
// time, as a sign-in would; a directory that cannot be reached changes nothing.
import type { LdapConfig, LdapServerConfig } from "../../../../config/ldap.ts";
import { isUniqueViolation } from "../../../../db/errors.ts";
import { ApiError, badRequest, notFound } from "../../../../lib/errors.ts";
import { newUid } from "../../../../lib/ids.ts";
import type { Logger } from "../../../../lib/logger.ts";
import { createSemaphore } from "../../../../lib/semaphore.ts";
import type { Snapshot, UserRecord } from "./access-model.ts";
import type { ExternalLogin } from "./authenticate.ts";
import type { OrgRole } from "./basic-roles.ts";
import { keepCurrentOrg, setOrgRole } from "./external-users.ts";
import { changed, type IdentityDeps } from "./identity-deps.ts";
import { findUser, pingServer, whereOf, type LdapUser } from "./ldap-client.ts";
import { syncTeams, teamsForGroups } from "./team-sync.ts";

export const LDAP_AUTH_MODULE = "ldap";

export interface LdapSettings {
  allowSignUp: boolean;
  skipOrgRoleSync: boolean;
  /** directory conversations at once (auth.ldap.max_concurrent_operations) */
  maxConcurrent: number;
  /** sign-ins that may wait for a slot (auth.ldap.max_queued_operations); beyond: 503 */
  maxQueued: number;
}

/** what one run of the active sync did */
export interface LdapSyncReport {
  /** users the directory answered for */
  checked: number;
  /** users whose login, email, name, roles, server admin flag or teams changed */
  updated: number;
  /** users disabled (not found, or in no mapped group), their sessions ended */
  disabled: number;
  /** users left as they were because a server that might hold them could not answer */
  unchanged: number;
  /** the run stopped early: no server could be reached (nothing more was changed) */
  unreachable: boolean;
}

export interface LdapService extends ExternalLogin {
  /** GET /api/admin/ldap/status */
  status(): Promise<Array<{ host: string; port: number; available: boolean; error: string }>>;
  /** GET /api/admin/ldap/:username: the attributes and what the mappings would give; 404 when no server has the user */
  lookup(username: string): Promise<unknown>;
  /** POST /api/admin/ldap/sync/:id */
  syncUser(userId: number): Promise<string>;
  /** POST /api/admin/ldap/reload: a new, already checked configuration */
  reload(config: LdapConfig): void;
  /** the active sync: every enabled LDAP user against the directory, one at a time; `stopping` ends it between users */
  syncAll(stopping?: () => boolean): Promise<LdapSyncReport>;
}

/** the answer when every directory slot is taken and the queue is full: the caller may retry shortly */
const ldapBusy = () =>
  new ApiError(503, "LDAP sign-in is busy: too many sign-ins are waiting for the directory, try again shortly", {
    messageId: "ldap.busy",
    headers: { "Retry-After": "1" },
  });

interface Mapped {
  /** organization id -> role; empty when the server has no group mappings */
  orgRoles: Map<number, OrgRole>;
  /** undefined: no matching mapping says anything about it (left as it is) */
  serverAdmin: boolean | undefined;
  /** false: the server has mappings and none matches (refused) */
  allowed: boolean;
  matches: Array<{ groupDn: string; orgId: number; orgRole: OrgRole }>;
}

const isMember = (groups: readonly string[], dn: string) => dn === "*" || groups.some((g) => g.toLowerCase() === dn.toLowerCase());

/** the real product's mapping: the first matching mapping per organization gives the role */
export function mapGroups(server: LdapServerConfig, groups: readonly string[]): Mapped {
  const orgRoles = new Map<number, OrgRole>();
  const matches: Mapped["matches"] = [];
  let serverAdmin: boolean | undefined;
  if (server.groupMappings.some((g) => g.serverAdmin !== undefined)) serverAdmin = false;
  for (const g of server.groupMappings) {
    if (!isMember(groups, g.groupDn)) continue;
    if (g.serverAdmin) serverAdmin = true;
    if (orgRoles.has(g.orgId)) continue;
    orgRoles.set(g.orgId, g.orgRole);
    matches.push({ groupDn: g.groupDn, orgId: g.orgId, orgRole: g.orgRole });
  }
  return { orgRoles, serverAdmin, allowed: server.groupMappings.length === 0 || matches.length > 0, matches };
}

type Search = { found: LdapUser; server: LdapServerConfig } | "wrongPassword" | "notFound" | "unavailable";

interface SearchOptions {
  /** the active sync: waits for a slot however long the queue, and collects server errors instead of logging each */
  background?: { errors: Map<string, string>; failed: number };
}

export function createLdap(deps: IdentityDeps, initial: LdapConfig, settings: LdapSettings, logger: Logger): LdapService {
  let config = initial;
  const log = logger.child({ logger: "ldap" });

  const directory = createSemaphore(settings.maxConcurrent);
  /** at most maxConcurrent conversations; a sign-in finding the queue full is refused at once (never counted as a failed sign-in) */
  const slot = <T>(work: () => Promise<T>, background: boolean): Promise<T> => {
    if (!background && directory.active >= settings.maxConcurrent && directory.waiting >= settings.maxQueued) {
      return Promise.reject(ldapBusy());
    }
    return directory.run(work);
  };

  /** every server in order; the first that has the user decides */
  const search = (login: string, password?: string, options: SearchOptions = {}): Promise<Search> =>
    slot(() => searchServers(login, password, options), options.background !== undefined);
  const searchServers = async (login: string, password: string | undefined, { background }: SearchOptions): Promise<Search> => {
    let failed = 0;
    let wrong = false;
    for (const server of config.servers) {
      // single bind (bind_dn with %s) can search only with the user's password: without it
      // (a lookup, the sync) the server cannot tell, which must never read as "not found"
      if (password === undefined && server.bindDn.includes("%s")) {
        failed++;
        background?.errors.set(whereOf(server), "bind_dn binds as the user (single bind): users cannot be looked up without their password");
        continue;
      }
      try {
        const r = await findUser(server, login, password);
        if ("user" in r) return { found: r.user, server };
        if ("wrongPassword" in r) wrong = true;
      } catch (err) {
        failed++;
        if (background) background.errors.set(whereOf(server), (err as Error).message);
        else log.error("LDAP server unavailable: sign-in tries the next server, local users are not affected", { server: whereOf(server), error: (err as Error).message });
      }
    }
    if (background) background.failed = failed;
    if (wrong) return "wrongPassword";
    // a server that could not answer might hold the user: "not found" (which disables a user)
    // only when every server answered; sign-in is refused either way
    return failed ? "unavailable" : "notFound";
  };

  /** the directory no longer has the user: disabled, sessions ended (the real product's sync does the same) */
  const disableRemoved = async (user: UserRecord, why = "user not found in LDAP: disabled"): Promise<boolean> => {
    if (user.isDisabled) return false;
    // "and not is_disabled": an administrator's disable made meanwhile stays an administrator's
    const r = await deps.pg.query("update users set is_disabled = true, disabled_by_directory = true, updated_at = now() where id = $1 and not is_disabled", [user.id]);
    if (!r.affectedRows) return false;
    await deps.pg.query("delete from sessions where user_id = $1", [user.id]);
    changed(deps);
    log.info(why, { login: user.login });
    return true;
  };

  /** can any host of any server be reached (and its service account bind)? the sync's test of "the directory is down" */
  const anyServerAnswers = async (): Promise<boolean> =>
    slot(async () => (await Promise.all(config.servers.map((s) => pingServer(s)))).flat().some((h) => h.available), true);

  /** would upsert change the user itself (login, email, name, server admin flag, org roles)? */
  const differs = (snap: Snapshot, user: UserRecord, found: LdapUser, mapped: Mapped): boolean => {
    const login = found.login.trim();
    if (user.login !== login || user.email !== (found.email || login).trim() || (found.name !== "" && found.name !== user.name)) return true;
    if (mapped.serverAdmin !== undefined && mapped.serverAdmin !== user.isServerAdmin) return true;
    if (settings.skipOrgRoleSync || mapped.orgRoles.size === 0) return false;
    const have = snap.memberships.get(user.id) ?? new Map<number, OrgRole>();
    const want = [...mapped.orgRoles].filter(([orgId]) => snap.orgs.has(orgId));
    return have.size !== want.length || want.some(([orgId, role]) => have.get(orgId) !== role);
  };

  /** creates or updates the user from the directory; undefined when it may not sign in */
  const upsert = async (found: LdapUser, mapped: Mapped, existing: UserRecord | undefined): Promise<UserRecord | undefined> => {
    const snap = await deps.model.snapshot();
    const login = found.login.trim();
    const email = (found.email || login).trim();
    // found by its login only (never by email: a directory entry with another account's mail must not take it over)
    let user = existing ?? exactLogin(snap, login);
    if (user && (user.isServiceAccount || (user.authModule !== LDAP_AUTH_MODULE && (user.passwordHash || user.authModule)))) {
      log.warn("LDAP sign-in refused: a local user with this login or email exists", { login });
      return undefined;
    }
    if (!user && !settings.allowSignUp) {
      log.info("LDAP sign-in refused: the user does not exist and auth.ldap.allow_sign_up is off", { login });
      return undefined;
    }
    const syncRoles = !user || !settings.skipOrgRoleSync;
    const orgRoles = new Map(mapped.orgRoles);
    // no group mappings at all: a new user joins the main organization as a Viewer (the real product's auto_assign_org)
    if (!user && orgRoles.size === 0) orgRoles.set(1, "Viewer");
    const knownOrgs = new Set(snap.orgs.keys());
    for (const orgId of orgRoles.keys()) {
      if (!knownOrgs.has(orgId)) {
        log.warn("LDAP group mapping names an organization that does not exist: ignored", { orgId });
        orgRoles.delete(orgId);
      }
    }
    const id = await deps.pg
      .transaction(async (tx) => {
        let userId: number;
        if (!user) {
          const row = await tx.query<{ id: number }>(
            `insert into users (uid, login, email, name, password_hash, is_server_admin, auth_module)
             values ($1, $2, $3, $4, null, $5, $6) returning id`,
            [newUid(), login, email, found.name, mapped.serverAdmin ?? false, LDAP_AUTH_MODULE],
          );
          userId = row.rows[0]!.id;
        } else {
          userId = user.id;
          await tx.query(
            // re-enabled only when the directory disabled it; an adopted account keeps no server admin flag of its own
            `update users set login = $2, email = $3, name = $4, auth_module = $5, password_hash = null,
                    is_disabled = case when disabled_by_directory then false else is_disabled end, disabled_by_directory = false,
                    is_server_admin = coalesce($6, case when auth_module = 'ldap' then is_server_admin else false end), updated_at = now() where id = $1`,
            [userId, login, email, found.name || user.name, LDAP_AUTH_MODULE, mapped.serverAdmin ?? null],
          );
        }
        if (syncRoles && (mapped.orgRoles.size > 0 || !user)) {
          const orgIds = [...orgRoles.keys()];
          await tx.query("delete from org_members where user_id = $1 and not (org_id = any($2::int[]))", [userId, orgIds]);
          for (const [orgId, role] of orgRoles) await setOrgRole(tx, orgId, userId, role);
        }
        await keepCurrentOrg(tx, userId);
        return userId;
      })
      .catch((err: unknown) => {
        if (isUniqueViolation(err, "users_login_key", "users_email_key")) {
          log.warn("LDAP sign-in refused: the login or email is another user's", { login });
          return undefined;
        }
        throw err;
      });
    if (id === undefined) return undefined;
    changed(deps);
    await syncTeams(deps, { userId: id, groups: found.groups, authModule: LDAP_AUTH_MODULE });
    return (await deps.model.snapshot()).users.get(id);
  };

  /** the user whose login (not email) this is */
  const exactLogin = (snap: Awaited<ReturnType<typeof deps.model.snapshot>>, login: string) => {
    const u = snap.byLogin.get(login.toLowerCase());
    return u && u.login.toLowerCase() === login.toLowerCase() ? u : undefined;
  };
  const existingLdapUser = async (login: string) => {
    const u = exactLogin(await deps.model.snapshot(), login);
    return u && u.authModule === LDAP_AUTH_MODULE ? u : undefined;
  };
  /** disabled by an administrator (not by the directory): a sign-in never undoes it */
  const disabledByAdmin = async (user: UserRecord) =>
    user.isDisabled && !(await deps.pg.query<{ d: boolean }>("select disabled_by_directory as d from users where id = $1", [user.id])).rows[0]?.d;

  return {
    module: LDAP_AUTH_MODULE,

    async signIn(login, password) {
      // an empty password would be an anonymous bind, which servers accept
      if (!password || !login) return undefined;
      const r = await search(login, password);
      if (r === "wrongPassword" || r === "unavailable") return undefined;
      if (r === "notFound") {
        const gone = await existingLdapUser(login);
        if (gone) await disableRemoved(gone);
        return undefined;
      }
      const mapped = mapGroups(r.server, r.found.groups);
      if (!mapped.allowed) {
        log.info("LDAP sign-in refused: the user does not belong in any of the specified LDAP groups", { login: r.found.login });
        return undefined;
      }
      const existing = await existingLdapUser(login);
      if (existing && (await disabledByAdmin(existing))) {
        log.info("LDAP sign-in refused: the user was disabled by an administrator", { login });
        return undefined;
      }
      return upsert(r.found, mapped, existing);
    },

    async status() {
      return (await Promise.all(config.servers.map((s) => pingServer(s)))).flat();
    },

    async lookup(username) {
      const r = await search(username);
      if (typeof r === "string") throw notFound("No user was found in the LDAP server(s) with that username");
      const { found, server } = r;
      const a = server.attributes;
      const mapped = mapGroups(server, found.groups);
      const snap = await deps.model.snapshot();
      const mappedDns = new Set(mapped.matches.map((m) => m.groupDn.toLowerCase()));
      const roles = [
        ...mapped.matches.map((m) => ({ orgId: m.orgId, orgName: snap.orgs.get(m.orgId)?.name ?? "", orgRole: m.orgRole, groupDN: m.groupDn })),
        ...found.groups.filter((g) => !mappedDns.has(g.toLowerCase())).map((g) => ({ orgId: 0, orgName: "", orgRole: "", groupDN: g })),
      ];
      const teams = (await teamsForGroups(deps, found.groups, [...mapped.orgRoles.keys()])).map((t) => ({
        teamName: t.name,
        orgName: snap.orgs.get(t.orgId)?.name ?? "",
        groupDN: t.groupId,
      }));
      return {
        name: { cfgAttrValue: a.name, ldapValue: found.givenName },
        surname: { cfgAttrValue: a.surname, ldapValue: found.surname },
        email: { cfgAttrValue: a.email, ldapValue: found.email },
        login: { cfgAttrValue: a.username, ldapValue: found.login },
        isGrafanaAdmin: mapped.serverAdmin ?? null,
        isDisabled: false,
        roles,
        teams,
      };
    },

    async syncUser(userId) {
      const user = (await deps.model.snapshot()).users.get(userId);
      if (!user || user.isServiceAccount || user.authModule !== LDAP_AUTH_MODULE) throw notFound("user not found");
      const r = await search(user.login);
      if (r === "notFound") {
        await disableRemoved(user);
        throw badRequest("User not found in LDAP. Disabled the user without updating information");
      }
      if (typeof r === "string") throw badRequest("Something went wrong while finding the user in LDAP");
      const mapped = mapGroups(r.server, r.found.groups);
      if (!mapped.allowed) throw badRequest("the user does not belong in any of the specified LDAP groups");
      const synced = await upsert(r.found, mapped, user);
      if (!synced) throw new ApiError(500, "Failed to update the user");
      return "User synced successfully";
    },

    reload(next) {
      config = next;
      log.info("LDAP config reloaded", { servers: next.servers.length });
    },

    async syncAll(stopping = () => false) {
      const report: LdapSyncReport = { checked: 0, updated: 0, disabled: 0, unchanged: 0, unreachable: false };
      if (config.servers.every((s) => s.bindDn.includes("%s"))) {
        log.warn("LDAP active sync skipped: every server binds as the user (bind_dn with %s), so users cannot be looked up without their password");
        return { ...report, unreachable: true };
      }
      const ids = [...(await deps.model.snapshot()).users.values()]
        .filter((u) => u.authModule === LDAP_AUTH_MODULE && !u.isServiceAccount && !u.isDisabled)
        .map((u) => u.id);
      const background = { errors: new Map<string, string>(), failed: 0 };
      /** servers that could not answer for some user (logged once at the end, not once per user) */
      const partial = new Map<string, string>();
      for (const id of ids) {
        if (stopping()) break;
        // as it is now: a sign-in, an administrator or an earlier user's sync may have changed it
        const snap = await deps.model.snapshot();
        const user = snap.users.get(id);
        if (!user || user.isDisabled || user.authModule !== LDAP_AUTH_MODULE) continue;
        background.errors.clear();
        const r = await search(user.login, undefined, { background });
        for (const [server, error] of background.errors) partial.set(server, error);
        if (r === "unavailable" || r === "wrongPassword") {
          report.unchanged++;
          // no server answered for this user: the directory is down (the run ends, changing nothing
          // more), unless a server still answers a status check (an error of this user's entry alone)
          if (background.failed >= config.servers.length && !(await anyServerAnswers())) {
            report.unreachable = true;
            log.warn("LDAP active sync stopped: no LDAP server could be reached; no user was changed for it", {
              servers: [...background.errors].map(([server, error]) => ({ server, error })),
            });
            break;
          }
          continue;
        }
        report.checked++;
        if (r === "notFound") {
          if (await disableRemoved(user, "LDAP active sync: user not found in LDAP: disabled, sessions ended")) report.disabled++;
          continue;
        }
        const mapped = mapGroups(r.server, r.found.groups);
        if (!mapped.allowed) {
          if (await disableRemoved(user, "LDAP active sync: the user does not belong in any of the specified LDAP groups: disabled, sessions ended")) report.disabled++;
          continue;
        }
        if (differs(snap, user, r.found, mapped)) {
          if (await upsert(r.found, mapped, user)) report.updated++;
          continue;
        }
        const teams = await syncTeams(deps, { userId: user.id, groups: r.found.groups, authModule: LDAP_AUTH_MODULE });
        if (teams.added.length || teams.removed.length) report.updated++;
      }
      if (partial.size && !report.unreachable) {
        log.warn("LDAP active sync: some LDAP servers could not be reached; the users they might hold were left as they were", {
          servers: [...partial].map(([server, error]) => ({ server, error })),
        });
      }
      return report;
    },
  };
}
