// The dashboard listener (:3000): the /api and /apis families and the admin
// page. Routes are registered in this one visible list (DESIGN rule 2), each
// through the router that guards it.
import { readFile } from "node:fs/promises";
import type { Hono } from "hono";
import { createBaseApp } from "../../lib/http/base-app.ts";
import { csrfProtection } from "../../lib/http/csrf.ts";
import { FRAME_AND_SNIFF_HEADERS } from "../../lib/http/frame-options.ts";
import { tlsEnabled } from "../../platform/tls.ts";
import { SESSION_COOKIE } from "./core/identity/sessions.ts";
import { createRouter, maybeIdentity, ORG_HEADER_ALIAS, type RouteEntry } from "./access/guard.ts";
import { registerAdminPage } from "./admin/serve-admin.ts";
import { dashboardKind } from "./apis/kinds/dashboards.ts";
import { folderKind } from "./apis/kinds/folders.ts";
import { playlistKind } from "./apis/kinds/playlists.ts";
import { registerOpenApi } from "./apis/openapi.ts";
import { registerApis } from "./apis/routes.ts";
import { registerSearch } from "./apis/search.ts";
import { registerStars } from "./apis/stars.ts";
import { createResourceStore } from "./apis/store.ts";
import { adminHasDefaultPassword, bootstrapIdentity, defaultPasswordCheck } from "./core/identity/bootstrap.ts";
import { createAlertRuleStore } from "./core/content/alert-rules.ts";
import { createContactPointStore } from "./core/content/contact-points.ts";
import { createMuteTimingStore } from "./core/content/mute-timings.ts";
import { createPolicyStore } from "./core/content/notification-policies.ts";
import { createTemplateStore } from "./core/content/notification-templates.ts";
import { createIdentity } from "./core/identity/identity.ts";
import { createStarStore } from "./core/content/stars.ts";
import type { IdentityDeps } from "./core/identity/identity-deps.ts";
import type { DashboardDeps } from "./deps.ts";
import { identityOptionsFrom } from "./identity-options.ts";
import { createDashboardAccess } from "./apis/dashboard-access.ts";
import { createAnnotationStore } from "./core/content/annotations.ts";
import { dashboardDependents } from "./core/content/dashboard-dependents.ts";
import { createLibraryElementStore } from "./core/content/library-elements.ts";
import { createPreferenceStore } from "./core/content/preferences.ts";
import { registerAccessControl } from "./legacy/identity/access-control.ts";
import { registerAnnotations } from "./legacy/content/annotations.ts";
import { registerLibraryElements } from "./legacy/content/library-elements.ts";
import { registerPreferences } from "./legacy/content/preferences.ts";
import { registerTeamGroups } from "./legacy/identity/team-groups.ts";
import { registerAlertRules } from "./legacy/content/alert-rules.ts";
import { registerAlertRuleGroups } from "./legacy/content/alerting-rule-groups.ts";
import { registerContactPoints } from "./legacy/content/alerting-contact-points.ts";
import { registerMuteTimings } from "./legacy/content/alerting-mute-timings.ts";
import { registerNotificationPolicies } from "./legacy/content/alerting-policies.ts";
import { registerNotificationTemplates } from "./legacy/content/alerting-templates.ts";
import { registerLegacyFolders } from "./legacy/content/folders.ts";
import { registerLegacyDashboards } from "./legacy/content/dashboards.ts";
import { registerDashboardVersions } from "./legacy/content/dashboard-versions.ts";
import { registerResourcePermissions } from "./legacy/content/resource-permissions.ts";
import { registerLegacyPlaylists } from "./legacy/content/playlists.ts";
import { registerSnapshots } from "./legacy/content/snapshots.ts";
import { createSnapshotStore } from "./core/content/snapshots.ts";
import { registerHealth } from "./legacy/admin/health.ts";
import { registerCluster } from "./legacy/admin/cluster.ts";
import { clusterView } from "./core/admin/cluster-view.ts";
import { registerLogin } from "./legacy/identity/login.ts";
import { registerLdap } from "./legacy/identity/ldap.ts";
import { createLdap } from "./core/identity/ldap.ts";
import { scheduleLdapSync } from "./core/identity/ldap-sync.ts";
import { loadLdapConfig } from "../../config/ldap.ts";
import { registerSecondFactor } from "./legacy/identity/second-factor.ts";
import { registerOAuth } from "./legacy/identity/oauth.ts";
import { createOAuth, type OAuthService } from "./core/identity/oauth.ts";
import { createPendingLogins, createSecondFactor } from "./core/identity/second-factor.ts";
import { registerOrgs } from "./legacy/identity/orgs.ts";
import { registerServiceAccounts } from "./legacy/identity/service-accounts.ts";
import { registerTeams } from "./legacy/identity/teams.ts";
import { registerUser } from "./legacy/identity/user.ts";
import { registerUsers } from "./legacy/identity/users.ts";
import { registerFrontendSettings } from "./legacy/admin/frontend-settings.ts";
import { registerServerAdmin } from "./legacy/admin/server-admin.ts";
import { registerAccessPolicies } from "./legacy/admin/access-policies.ts";
import { registerBackups } from "./legacy/admin/backups.ts";
import { createBackups } from "../../backup/service.ts";
import { openStoreAccess } from "../../store-access/access-store.ts";
import type { LicenceStore } from "./core/admin/licence-store.ts";
import { renderDashboardError } from "./render-error.ts";
import { secureValueAccess, secureValueKind } from "./apis/kinds/secure-values.ts";
import { loadDataSources } from "./core/datasources/datasource-registry.ts";
import { followOtherNodes } from "./other-nodes.ts";
import { clusterLock, LDAP_SYNC_LOCK, SECRETS_REWRAP_LOCK } from "./cluster-locks.ts";
import { provisionDataSources } from "./core/datasources/datasource-provisioning.ts";
import type { DataSourceDeps } from "./core/datasources/datasources.ts";
import { startSecrets } from "./core/secrets/secret-keys.ts";
import { registerDataSources } from "./legacy/datasources/datasources.ts";
import { unrestricted } from "./core/datasources/log-query-restriction.ts";
import { PROXIED_PATHS, registerDataSourceProxy, sandboxProxied } from "./legacy/datasources/datasource-proxy.ts";
import { registerDsQuery } from "./legacy/ds-query.ts";
import { createLbac } from "./core/datasources/lbac.ts";
import { createOutboundPolicy } from "./core/datasources/outbound-policy.ts";
import { registerDataSourceLbac } from "./legacy/datasources/datasource-lbac.ts";
import { grantDefaultPermissions, initializeDataSourcePermissions } from "./core/datasources/datasource-permissions.ts";
import { changed } from "./core/identity/identity-deps.ts";
import { namespaceOf } from "./core/identity/namespaces.ts";
import { registerDataSourcePermissions } from "./legacy/datasources/datasource-permissions.ts";
import { registerMetrics } from "./legacy/admin/metrics.ts";
import { createSelfMetrics } from "./core/admin/self-metrics.ts";
import { dashboardRequestMetrics } from "./request-metrics.ts";
import { runtimeVersion } from "../../platform/runtime.ts";
import { COMMIT, VERSION } from "../../version.ts";

export interface DashboardApp {
  app: Hono;
  /** every route with the access it requires */
  routes: readonly RouteEntry[];
  identity: IdentityDeps;
  /** stops background work (key file watching, re-wrapping) */
  close(): Promise<void>;
}

export async function createDashboardApp(deps: DashboardDeps): Promise<DashboardApp> {
  const { config, db } = deps;
  // first: a bad allow-list entry stops startup before anything runs
  const outbound = createOutboundPolicy({
    allowList: config.security.data_source_proxy_whitelist,
    refuseLinkLocal: config.security.data_source_refuse_link_local,
    refuseLoopback: config.security.data_source_refuse_loopback,
  });
  await bootstrapIdentity(db.pg, config.security.admin_password);
  warnWhileDefaultPassword(deps);
  const now = deps.now ?? (() => Date.now());
  const { deps: identity, auth, sessions, throttle } = createIdentity(db.pg, {
    ...identityOptionsFrom(config, now),
    onTokenUsed: recordTokenUse(db, deps.logger, now),
    changes: db.changes,
  });
  // LDAP sign-in (auth.ldap): an invalid ldap.toml stops the start, naming the field
  const ldapSettings = config.auth.ldap;
  const ldap = ldapSettings.enabled
    ? createLdap(identity, loadLdapConfig(ldapSettings.config_file), {
      allowSignUp: ldapSettings.allow_sign_up,
      skipOrgRoleSync: ldapSettings.skip_org_role_sync,
      maxConcurrent: ldapSettings.max_concurrent_operations,
      maxQueued: ldapSettings.max_queued_operations,
    }, deps.logger)
    : undefined;
  auth.setExternalLogin(ldap);

  // GET /metrics (dashboard.metrics.*): every request is observed from the outer layer on
  const requestMetrics = config.dashboard.metrics.enabled ? dashboardRequestMetrics() : undefined;
  const app = createBaseApp({
    logger: deps.logger.child({ service: "dashboard" }),
    lifecycle: deps.lifecycle,
    maxBodyBytes: config.server.max_request_body_size,
    render: renderDashboardError,
    // POST /api/serviceaccounts/ and GET /api/datasources/ as clients send them (issue 21)
    trailingSlashOptional: true,
    ...(requestMetrics ? { observe: requestMetrics.observe } : {}),
    subjectOf: (c) => ({ org: maybeIdentity(c)?.orgId ?? c.req.header("X-Svc-Org-Id") ?? c.req.header(ORG_HEADER_ALIAS) }),
    // before the body is read: a forged request is refused without reading it
    defaultHeaders: FRAME_AND_SNIFF_HEADERS,
    early: [
      csrfProtection({
        cookieName: SESSION_COOKIE,
        trustedOrigins: config.security.csrf_trusted_origins,
        additionalHeaders: config.security.csrf_additional_headers,
      }),
    ],
  });
  const enterprise = config.server.edition !== "oss";
  const licenceKey = enterprise ? await loadLicenceKey(config.security.licence_public_key_file) : undefined;
  const r = createRouter(app, auth);
  const preferences = createPreferenceStore(db.pg);
  const cluster = clusterView(deps);
  registerHealth(r, deps, cluster);
  registerCluster(r, cluster);
  const pendingLogins = createPendingLogins(db.pg, now);
  // OpenID Connect sign-in (auth.generic_oauth): made once the secrets service runs (below)
  let oauth: OAuthService | undefined;
  registerLogin(r, {
    auth, sessions, passwordLoginEnabled: config.server.edition !== "cloud", secureCookie: secureCookie(config), model: identity.model, pendingLogins,
    signOutRedirect: async (token) => oauth?.signOutUrl(token, rootUrl()),
  });
  registerUser(r, identity, preferences);
  const store = createResourceStore(db.pg);
  const namespaces = { edition: config.server.edition, stackId: config.dashboard.stack_id };
  registerOrgs(r, identity, {
    namespaceOf: (orgId) => namespaceOf(orgId, namespaces),
    onDeleted: (orgId) => {
      store.forget(namespaceOf(orgId, namespaces));
      for (const ds of dataSourceRegistry.list(orgId)) dataSourceRegistry.remove(ds);
    },
  });
  registerUsers(r, identity);
  registerLdap(r, { ldap, readConfig: () => loadLdapConfig(ldapSettings.config_file), onReload: () => auth.setExternalLogin(ldap) });
  registerServiceAccounts(r, identity);
  registerTeams(r, identity);
  if (enterprise) {
    registerAccessControl(r, identity, { validatePermissions: config.dashboard.rbac.permission_validation_enabled });
    registerTeamGroups(r, identity);
  }
  const dataSourceRegistry = await loadDataSources(db.pg);
  const running = await startSecrets(config.security, db.pg, db.dataDir, deps.logger, clusterLock(db, SECRETS_REWRAP_LOCK).run);
  const { secrets } = running;
  const secondFactor = createSecondFactor(identity, {
    throttle,
    sealer: secrets,
    enrolmentEnabled: config.security.totp_enabled,
    requiredForAdmins: config.security.totp_required_for_admins,
  });
  registerSecondFactor(r, identity, { secondFactor, pendingLogins, sessions, secureCookie: secureCookie(config) });
  const oauthSettings = config.auth.generic_oauth;
  oauth = oauthSettings.enabled
    ? createOAuth(identity, { ...oauthSettings, allowInsecureEmailLookup: config.auth.oauth_allow_insecure_email_lookup }, secrets, deps.logger)
    : undefined;
  registerOAuth(r, {
    oauth, sessions, secureCookie: secureCookie(config), passwordLoginEnabled: config.server.edition !== "cloud", rootUrl: () => rootUrl(), logger: deps.logger,
  });
  const dataSources: DataSourceDeps = {
    pg: db.pg,
    registry: dataSourceRegistry,
    secrets,
    secureValues: secureValueAccess(store, namespaces, secrets),
    outbound,
    // the access model holds data source permissions: it is rebuilt when they come or go
    onChanged: () => changed(identity),
    ...(enterprise ? { onCreated: (tx, ds, caller) => grantDefaultPermissions(tx, ds, caller) } : {}),
  };
  // a bad entry stops startup: leave nothing running behind it
  await provisionDataSources(dataSources, config.datasources, deps.logger).catch(async (err: unknown) => {
    await running.close();
    throw err;
  });
  if (enterprise) {
    await initializeDataSourcePermissions(identity, dataSources.registry);
    registerDataSourcePermissions(r, identity, dataSources.registry);
  }
  registerDataSources(r, { ...dataSources, listLimit: config.dashboard.datasource_limit });
  // team LBAC rules (enterprise, cloud); the query routes apply their restriction
  const lbac = enterprise ? createLbac(db.pg, identity.model) : undefined;
  if (lbac) registerDataSourceLbac(r, { registry: dataSources.registry, lbac });
  const restrictionOf = lbac?.restrictionOf ?? unrestricted;
  // what a data source answers is served sandboxed (issue 16 #1)
  for (const path of PROXIED_PATHS) app.use(path, sandboxProxied);
  registerDataSourceProxy(r, { ...dataSources, restrictionOf });
  registerDsQuery(r, { ...dataSources, restrictionOf, now, logger: deps.logger });
  const alertRules = createAlertRuleStore(db.pg);
  const libraryElements = createLibraryElementStore(db.pg);
  const annotations = createAnnotationStore(db.pg, now);
  const stars = createStarStore(db.pg);
  const dependents = dashboardDependents(libraryElements, annotations, stars);
  const folders = folderKind({
    nested: config.dashboard.nested_folders,
    maxDepth: config.dashboard.max_nested_folder_depth,
    alertRules,
    libraryElements,
    dependents,
    stars,
    permissions: identity.resourcePermissions,
  });
  const dashboards = dashboardKind({ dependents, permissions: identity.resourcePermissions });
  const dashboardAccess = createDashboardAccess({ store, namespaces, dashboards, now });
  registerAnnotations(r, {
    annotations, dashboards: dashboardAccess, model: identity.model, now, permissionsRevision: () => identity.resourcePermissions.revision(),
  });
  registerLibraryElements(r, { elements: libraryElements, dashboards: dashboardAccess, store, model: identity.model, now });
  registerPreferences(r, { preferences, dashboards: dashboardAccess, identity });
  // the port a listener configured with 0 was given, once it listens (licences, links, the admin page)
  const rootUrl = () => config.dashboard.root_url || `http://localhost:${deps.boundPorts?.dashboard ?? config.dashboard.http_port}/`;
  let licences: LicenceStore | undefined;
  if (enterprise) {
    // loaded only here: the oss edition never pays for the JWT and time-zone libraries
    const [{ registerReports }, { createReportStore }, { registerLicensing }, { createLicenceStore }] = await Promise.all([
      import("./legacy/content/reports.ts"), import("./core/content/reports.ts"), import("./legacy/admin/licensing.ts"), import("./core/admin/licence-store.ts"),
    ]);
    registerReports(r, { reports: createReportStore(db.pg), dashboards: dashboardAccess, now });
    licences = createLicenceStore(db.pg, licenceKey, rootUrl);
    registerLicensing(r, { licences, rootUrl, now });
  }
  const toggles = config.dashboard.feature_toggles;
  registerSearch(r, { stars, store, namespaces, folders, dashboards, now });
  // the legacy folder and dashboard API over the same objects as /apis
  const content = { store, namespaces, folders, dashboards, model: identity.model, now };
  registerLegacyFolders(r, { ...content, nested: config.dashboard.nested_folders, counting: { alertRules, libraryElements } });
  registerLegacyDashboards(r, { ...content, preferences });
  registerDashboardVersions(r, content);
  registerResourcePermissions(r, { ...content, pg: db.pg, permissions: identity.resourcePermissions });
  const playlists = playlistKind();
  registerLegacyPlaylists(r, { ...content, playlists });
  registerSnapshots(r, { snapshots: createSnapshotStore(db.pg), rootUrl, now });
  registerAlertRules(r, { rules: alertRules, store, folders, namespaces });
  registerAlertRuleGroups(r, { rules: alertRules, store, folders, namespaces });
  registerContactPoints(r, { contactPoints: createContactPointStore(db.pg, secrets) });
  registerNotificationPolicies(r, { policies: createPolicyStore(db.pg) });
  registerMuteTimings(r, { muteTimings: createMuteTimingStore(db.pg) });
  registerNotificationTemplates(r, { templates: createTemplateStore(db.pg) });
  // before the generic /apis routes, which would otherwise take these paths
  registerStars(r, { stars, store, namespaces, dashboards: dashboardAccess, collectionsOn: !toggles.includes("-collections.svc.app/v1alpha1") });
  const kinds = [folders, dashboards, playlists, secureValueKind(secrets, db.pg)];
  registerOpenApi(r, kinds, toggles);
  registerApis(r, { kinds, store, namespaces, featureToggles: toggles, now });
  registerFrontendSettings(r, {
    edition: config.server.edition, licences, rootUrl, adminPasswordIsDefault: defaultPasswordCheck(db.pg), now,
  });
  registerServerAdmin(r, { config, pg: db.pg, dataDir: db.dataDir, now, boundPorts: deps.boundPorts ?? {}, disk: deps.disk });
  // the stores' access policies and tokens: the process's one set (server.ts), or opened here when the dashboard runs alone
  const access = deps.access ?? (await openStoreAccess({ pg: db.pg, cluster: config.metrics.cluster_name, now }));
  registerAccessPolicies(r, { access, now });
  // the server's backups: server.ts's (with the stores' files), or the dashboard's own when it runs alone
  const backups = deps.backups ?? createBackups({ config, db, logger: deps.logger, now });
  registerBackups(r, { backups });
  const selfMetrics = requestMetrics && createSelfMetrics({
    pg: db.pg, now, logger: deps.logger, activeSessions: () => sessions.active(), totals: !config.dashboard.metrics.disable_total_stats,
    readModels: {
      access: identity.model.stats, datasources: dataSourceRegistry.stats, lbac: lbac?.stats, preferences: preferences.stats, resource_permissions: identity.resourcePermissions.stats,
    },
    dataSourceTypes: () => dataSourceRegistry.all().map((ds) => ds.type),
    build: { version: VERSION, revision: COMMIT, branch: "main", goversion: runtimeVersion(), edition: config.server.edition },
    joining: [requestMetrics, db.queryDurations],
  });
  // before the admin page's catch-all, which would answer a browser's /metrics with the page
  if (selfMetrics) registerMetrics(r, { registry: selfMetrics.registry, settings: config.dashboard.metrics });
  registerAdminPage(r, deps);
  followOtherNodes(db.changes, deps.logger, {
    identity, sessions, store, resourcePermissions: identity.resourcePermissions, dataSourceRegistry, lbac, preferences, libraryElements, stars, annotations,
  });
  // the LDAP active sync: users re-checked in the background (never on a request); started last, so a
  // failed start leaves no timer behind, and stopped before the database closes
  const ldapSync = ldap && ldapSettings.active_sync_enabled
    ? scheduleLdapSync(ldap, ldapSettings.sync_cron, deps.logger, clusterLock(db, LDAP_SYNC_LOCK).tryRun)
    : undefined;
  return {
    app,
    routes: r.entries,
    identity,
    close: async () => {
      if (!deps.backups) await backups.close();
      selfMetrics?.close();
      await ldapSync?.stop();
      await running.close();
    },
  };
}

/**
 * The session cookie is Secure whenever browsers reach the dashboard over HTTPS:
 * its own TLS, an https root_url (a TLS proxy in front), or security.cookie_secure.
 */
export function secureCookie(config: DashboardDeps["config"]): boolean {
  return tlsEnabled(config.dashboard.http_tls_config) || /^https:/i.test(config.dashboard.root_url) || config.security.cookie_secure;
}

/** a configured key that cannot be read or is not an RSA public key stops startup, naming the problem */
async function loadLicenceKey(file: string): Promise<CryptoKey | undefined> {
  if (!file) return undefined;
  const pem = await readFile(file, "utf8").catch((err: unknown) => {
    throw new Error(`security.licence_public_key_file: cannot read ${file}: ${(err as Error).message}`);
  });
  const { importLicenceKey } = await import("./core/admin/licence.ts");
  return importLicenceKey(pem).catch((err: unknown) => {
    throw new Error(`security.licence_public_key_file: ${file}: ${(err as Error).message}`);
  });
}

/** checked in the background: a bcrypt comparison must not delay startup */
function warnWhileDefaultPassword(deps: DashboardDeps): void {
  adminHasDefaultPassword(deps.db.pg).then(
    (isDefault) => {
      if (isDefault) {
        deps.logger.warn("the admin user's password is the default \"admin\": change it before exposing this server");
      }
    },
    () => {},
  );
}

/**
 * Records when a token was last used without a database write per request:
 * at most one background write per token per minute.
 */
function recordTokenUse(db: DashboardDeps["db"], logger: DashboardDeps["logger"], now: () => number) {
  const written = new Map<number, number>();
  return (tokenId: number) => {
    const t = now();
    if ((written.get(tokenId) ?? -Infinity) > t - 60_000) return;
    written.set(tokenId, t);
    db.pg
      .query("update api_tokens set last_used_at = $2 where id = $1", [tokenId, new Date(t)])
      .catch((err: unknown) => logger.warn("could not record token use", { err: String(err) }));
  };
}
