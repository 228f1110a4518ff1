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
// time, as a sign-in would, by the user's stored login (the username attribute,
// not what the user typed at sign-in: ldap-client.ts loginFilter). It decides
// first and applies after: a directory that cannot be reached, or whose search
// base is missing, changes nothing, and a run that would disable every user it
// checked (at least 2), or more than half of them (more than 10 checked),
// changes nothing either and says so. One user that cannot be updated (a
// database error) is logged and the run goes on.
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
import { NAME_LIMITS, storableIdentifier } from "./name-limits.ts";
import { holderOf } from "./users.ts";

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
  /**
   * the run changed nothing at all: it would have disabled every user it checked (at least 2), or
   * more than half of them (more than 10 checked), which looks like a directory problem (a moved
   * or unreadable search base, an emptied directory) far more often than like real removals
   */
  withheld: boolean;
}

/**
 * Would disabling `disabling` of the `checked` users the directory answered for be too many to be
 * believed? Every one of them (at least 2), or more than half of them (more than 10 checked).
 */
export function tooManyToDisable(checked: number, disabling: number): boolean {
  if (disabling === 0) return false;
  return (checked >= 2 && disabling >= checked) || (checked > 10 && disabling * 2 > checked);
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
  /** a known user, by its stored login (ldap-client.ts loginFilter), not by what was typed at sign-in */
  byLogin?: boolean;
}

interface UpsertOptions {
  /**
   * a sync (not a sign-in): a login or email from the directory that is another user's leaves the
   * user's login and email as they are (the rest is updated); set to true when that happened.
   * At a sign-in the same conflict refuses the sign-in.
   */
  keepNames?: { kept: boolean };
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
  const searchServers = async (login: string, password: string | undefined, { background, byLogin = false }: SearchOptions): Promise<Search> => {
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
        const r = await findUser(server, login, password, byLogin);
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

  /** would upsert change the user itself (login, email, name, server admin flag, org roles)? With ignoreNames, apart from the login and email */
  const differs = (snap: Snapshot, user: UserRecord, found: LdapUser, mapped: Mapped, ignoreNames = false): boolean => {
    const login = found.login.trim();
    if (!ignoreNames && (user.login !== login || user.email !== (found.email || login).trim())) return true;
    if (found.name !== "" && found.name !== user.name) return true;
    if (mapped.serverAdmin !== undefined && mapped.serverAdmin !== user.isServerAdmin) return true;
    if (settings.skipOrgRoleSync || mapped.orgRoles.size === 0) return false;
    const have = snap.memberships.get(user.id) ?? new Map<number, OrgRole>();
    const want = [...mapped.orgRoles].filter(([orgId]) => snap.orgs.has(orgId));
    return have.size !== want.length || want.some(([orgId, role]) => have.get(orgId) !== role);
  };

  /** creates or updates the user from the directory; undefined when it may not sign in */
  const upsert = async (found: LdapUser, mapped: Mapped, existing: UserRecord | undefined, options: UpsertOptions = {}): Promise<UserRecord | undefined> => {
    const snap = await deps.model.snapshot();
    let login = found.login.trim();
    let email = (found.email || login).trim();
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
    // what the users table cannot hold is refused, not left to fail in the database (a 500 at sign-in)
    if (!storableIdentifier(login, NAME_LIMITS.userLogin) || !storableIdentifier(email, NAME_LIMITS.userEmail)) {
      if (!user || !options.keepNames) {
        log.warn("LDAP sign-in refused: the directory's login or email is too long or holds control characters", { loginLength: login.length, emailLength: email.length });
        return undefined;
      }
      log.warn("LDAP sync: the directory's login or email is too long or holds control characters; the user's login and email are left as they were", { login: user.login });
      options.keepNames.kept = true;
      login = user.login;
      email = user.email;
    }
    // logins and emails share one namespace (users.ts holderOf): the directory's login may not be
    // another user's email, nor its email another user's login, which the unique indexes alone miss
    const holder = holderOf(snap, [login, email], user?.id);
    if (holder) {
      if (!user || !options.keepNames) {
        log.warn("LDAP sign-in refused: the login or email the directory gives is another user's login or email", { login, email, holder: holder.login });
        return undefined;
      }
      log.warn("LDAP sync: the login or email the directory gives is another user's login or email; the user's login and email are left as they were", {
        login: user.login, email: user.email, directoryLogin: login, directoryEmail: email, holder: holder.login,
      });
      options.keepNames.kept = true;
      login = user.login;
      email = user.email;
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
        // another user took the login or email meanwhile
        if (isUniqueViolation(err, "users_login_key", "users_email_key")) {
          log.warn("LDAP sign-in refused: the login or email the directory gives is another user's login or email", { login, email });
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
        // the typed name found nobody; the user whose login it is is disabled only when the
        // directory has no entry with that login either (with search_filter "(mail=%s)" a user
        // signs in with the email: typing another user's login must not disable that user)
        const gone = await existingLdapUser(login);
        if (gone && (await search(gone.login, password, { byLogin: true }).catch(() => "unavailable" as const)) === "notFound") await disableRemoved(gone);
        return undefined;
      }
      const mapped = mapGroups(r.server, r.found.groups);
      if (!mapped.allowed) {
        log.info("LDAP sign-in refused: the user does not belong in any of the specified LDAP groups", { login: r.found.login });
        return undefined;
      }
      // the user the entry's login names (what was typed may be another attribute: search_filter "(mail=%s)")
      const existing = (await existingLdapUser(r.found.login.trim())) ?? (await existingLdapUser(login));
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
      // by the stored login; a missing search base or a server that cannot answer is "something went wrong", never "not found"
      const r = await search(user.login, undefined, { byLogin: true });
      if (r === "notFound") {
        await disableRemoved(user);
        throw badRequest("User not found in LDAP. Disabled the user without updating information");
      }
      if (typeof r === "string") throw badRequest("Something went wrong while finding the user in LDAP");
      const mapped = mapGroups(r.server, r.found.groups);
      if (!mapped.allowed) throw badRequest("the user does not belong in any of the specified LDAP groups");
      const keepNames = { kept: false };
      const synced = await upsert(r.found, mapped, user, { keepNames });
      if (!synced) throw new ApiError(500, "Failed to update the user");
      if (keepNames.kept) return "User synced, but the login or email LDAP gives is another user's: the user's login and email were left as they were";
      return "User synced successfully";
    },

    reload(next) {
      config = next;
      log.info("LDAP config reloaded", { servers: next.servers.length });
    },

    async syncAll(stopping = () => false) {
      const report: LdapSyncReport = { checked: 0, updated: 0, disabled: 0, unchanged: 0, unreachable: false, withheld: false };
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
      /** what the directory said of each user it answered for: applied once every user has been looked up */
      const decisions: Array<{ id: number; login: string; seen: number; disable?: string; found?: { user: LdapUser; mapped: Mapped } }> = [];

      // 1. every user looked up; nothing changed yet
      for (const id of ids) {
        // a stopping server applies nothing of a run it could not finish looking up
        if (stopping()) return report;
        let login = String(id);
        try {
          // as it is now: a sign-in or an administrator may have changed it
          const user = (await deps.model.snapshot()).users.get(id);
          if (!user || user.isDisabled || user.authModule !== LDAP_AUTH_MODULE) continue;
          login = user.login;
          background.errors.clear();
          const r = await search(user.login, undefined, { background, byLogin: true });
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
          const seen = user.updatedAt.getTime();
          if (r === "notFound") {
            decisions.push({ id, login, seen, disable: "LDAP active sync: user not found in LDAP: disabled, sessions ended" });
            continue;
          }
          const mapped = mapGroups(r.server, r.found.groups);
          if (!mapped.allowed) {
            decisions.push({ id, login, seen, disable: "LDAP active sync: the user does not belong in any of the specified LDAP groups: disabled, sessions ended" });
            continue;
          }
          decisions.push({ id, login, seen, found: { user: r.found, mapped } });
        } catch (err) {
          report.unchanged++;
          log.error("LDAP active sync: the user could not be looked up; it is left as it is and the run goes on", { login, error: (err as Error).message });
        }
      }
      if (partial.size && !report.unreachable) {
        log.warn("LDAP active sync: some LDAP servers could not answer; the users they might hold were left as they were", {
          servers: [...partial].map(([server, error]) => ({ server, error })),
        });
      }

      // 2. the decisions, unless they would disable too many of the users checked
      const disabling = decisions.filter((d) => d.disable !== undefined).length;
      if (tooManyToDisable(report.checked, disabling)) {
        report.withheld = true;
        report.unchanged += decisions.length;
        log.warn(
          "LDAP active sync changed nothing: it would have disabled too many of the users the directory answered for (every one of at least 2, or more than half of more than 10), which looks like a directory problem (search_base_dns, search_filter, group_mappings, the bind account's rights, an emptied directory) rather than removals; disable users by hand or with POST /api/admin/ldap/sync/:id if they were really removed",
          { checked: report.checked, wouldDisable: disabling, users: decisions.filter((d) => d.disable !== undefined).slice(0, 20).map((d) => d.login) },
        );
        return report;
      }
      for (const d of decisions) {
        if (stopping()) break;
        try {
          const snap = await deps.model.snapshot();
          const user = snap.users.get(d.id);
          // changed since it was looked up (deleted, disabled, signed in, edited): left for the next run
          if (!user || user.isDisabled || user.authModule !== LDAP_AUTH_MODULE || user.updatedAt.getTime() !== d.seen) {
            report.unchanged++;
            continue;
          }
          if (d.disable !== undefined) {
            if (await disableRemoved(user, d.disable)) report.disabled++;
            continue;
          }
          const { user: found, mapped } = d.found!;
          if (differs(snap, user, found, mapped)) {
            const keepNames = { kept: false };
            // a login or email that is another user's alone (kept as it was, logged) is no update
            if ((await upsert(found, mapped, user, { keepNames })) && (!keepNames.kept || differs(snap, user, found, mapped, true))) report.updated++;
            continue;
          }
          const teams = await syncTeams(deps, { userId: user.id, groups: found.groups, authModule: LDAP_AUTH_MODULE });
          if (teams.added.length || teams.removed.length) report.updated++;
        } catch (err) {
          report.unchanged++;
          log.error("LDAP active sync: the user could not be updated; it is left as it is and the run goes on", { login: d.login, error: (err as Error).message });
        }
      }
      return report;
    },
  };
}
