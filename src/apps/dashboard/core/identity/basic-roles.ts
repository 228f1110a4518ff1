// The fixed permission sets of the basic roles, following the real product's
// defaults: Viewers read, Editors write dashboards, folders, annotations,
// playlists and library panels, Admins manage the organization, server
// admins manage the server. docs/permissions.md is generated from this table.
import type { Permission } from "./permissions.ts";

export const ORG_ROLES = ["None", "Viewer", "Editor", "Admin"] as const;
export type OrgRole = (typeof ORG_ROLES)[number];

export function isOrgRole(value: unknown): value is OrgRole {
  return typeof value === "string" && (ORG_ROLES as readonly string[]).includes(value);
}

/** None < Viewer < Editor < Admin */
export function roleRank(role: OrgRole): number {
  return ORG_ROLES.indexOf(role);
}

const p = (action: string, scope = ""): Permission => ({ action, scope });

/** annotation actions reach organization annotations by type and dashboard ones by dashboard or folder (spec scopes) */
const annotations = (action: string) => ["annotations:type:*", "dashboards:*", "folders:*"].map((scope) => p(action, scope));

/**
 * Viewers and Editors reach folders and dashboards through their managed
 * permissions (resource-permissions.ts: Viewer View and Editor Edit on what
 * sits at the root, by default); the role itself grants only the root
 * ("general") scope, so route guards without a scope let them list what
 * they may see, and Editors create at the root.
 */
const viewer: Permission[] = [
  p("dashboards:read", "folders:uid:general"), p("folders:read", "folders:uid:general"),
  ...annotations("annotations:read"),
  p("datasources:query", "datasources:*"),
  p("library.panels:read", "folders:uid:general"),
  p("playlists:read", "playlists:*"),
  p("alert.rules:read", "folders:uid:general"), p("alert.notifications:read"),
  p("orgs:read"),
];

const editor: Permission[] = [
  ...viewer,
  p("dashboards:create", "folders:uid:general"), p("folders:create", "folders:uid:general"),
  ...annotations("annotations:create"), ...annotations("annotations:write"), ...annotations("annotations:delete"),
  p("datasources:explore"),
  p("library.panels:create", "folders:uid:general"), p("library.panels:write", "folders:uid:general"),
  p("library.panels:delete", "folders:uid:general"),
  p("playlists:create"), p("playlists:write", "playlists:*"), p("playlists:delete", "playlists:*"),
  p("alert.notifications:write"),
  p("teams:read", "teams:*"),
  p("snapshots:create"), p("snapshots:delete"),
];

const admin: Permission[] = [
  ...editor,
  // every folder and dashboard of the organization, whatever their managed permissions say
  p("dashboards:read", "dashboards:*"), p("dashboards:read", "folders:*"), p("folders:read", "folders:*"),
  p("dashboards:create", "folders:*"),
  p("dashboards:write", "dashboards:*"), p("dashboards:write", "folders:*"),
  p("dashboards:delete", "dashboards:*"), p("dashboards:delete", "folders:*"),
  p("folders:create", "folders:*"), p("folders:write", "folders:*"), p("folders:delete", "folders:*"),
  p("library.panels:read", "folders:*"), p("library.panels:create", "folders:*"), p("library.panels:write", "folders:*"),
  p("library.panels:delete", "folders:*"),
  p("alert.rules:read", "folders:*"), p("alert.rules:create", "folders:*"), p("alert.rules:write", "folders:*"), p("alert.rules:delete", "folders:*"),
  p("dashboards.permissions:read", "dashboards:*"), p("dashboards.permissions:write", "dashboards:*"),
  p("folders.permissions:read", "folders:*"), p("folders.permissions:write", "folders:*"),
  p("datasources:read", "datasources:*"), p("datasources:create"), p("datasources:write", "datasources:*"),
  p("datasources:delete", "datasources:*"), p("datasources.id:read", "datasources:*"),
  p("datasources.permissions:read", "datasources:*"), p("datasources.permissions:write", "datasources:*"),
  p("serviceaccounts:read", "serviceaccounts:*"), p("serviceaccounts:create"),
  p("serviceaccounts:write", "serviceaccounts:*"), p("serviceaccounts:delete", "serviceaccounts:*"),
  p("serviceaccounts.permissions:read", "serviceaccounts:*"), p("serviceaccounts.permissions:write", "serviceaccounts:*"),
  p("teams:create"), p("teams:write", "teams:*"), p("teams:delete", "teams:*"),
  p("teams.permissions:read", "teams:*"), p("teams.permissions:write", "teams:*"),
  p("teams.roles:read", "teams:*"), p("teams.roles:add", "teams:*"), p("teams.roles:remove", "teams:*"),
  p("users.roles:read", "users:*"), p("users.roles:add", "users:*"), p("users.roles:remove", "users:*"),
  p("org.users:read", "users:*"), p("org.users:add", "users:*"), p("org.users:write", "users:*"),
  p("org.users:remove", "users:*"),
  p("orgs:write"), p("orgs.preferences:read"), p("orgs.preferences:write"),
  p("roles:read", "roles:*"), p("status:accesscontrol", "services:accesscontrol"),
  // custom roles of the organization, holding only permissions the admin has
  p("roles:write", "permissions:type:delegate"), p("roles:delete", "permissions:type:delegate"),
  p("permissions:type:delegate"),
  p("reports:read", "reports:*"), p("reports:create"), p("reports:write", "reports:*"),
  p("reports:delete", "reports:*"), p("reports:send", "reports:*"),
  p("reports.settings:read"), p("reports.settings:write"),
  p("secret.securevalues:create", "secret.securevalues:*"), p("secret.securevalues:read", "secret.securevalues:*"),
  p("secret.securevalues:write", "secret.securevalues:*"), p("secret.securevalues:delete", "secret.securevalues:*"),
  // the alerting provisioning API (the real product's fixed:alerting.provisioning roles, granted to Admin)
  p("alert.provisioning:read"), p("alert.provisioning:write"), p("alert.provisioning.secrets:read"), p("alert.provisioning.provenance:write"),
];

/** granted to server admins in every organization, on top of their org role */
const serverAdmin: Permission[] = [
  p("users:read", "global.users:*"), p("users:create"), p("users:write", "global.users:*"),
  p("users:delete", "global.users:*"), p("users:disable", "global.users:*"), p("users:enable", "global.users:*"),
  p("users.password:write", "global.users:*"), p("users.permissions:read", "users:*"), p("users.permissions:write", "global.users:*"),
  p("org.users:read", "users:*"), p("org.users:add", "users:*"), p("org.users:write", "users:*"),
  p("org.users:remove", "users:*"),
  p("orgs:read", "orgs:*"), p("orgs:create"), p("orgs:write", "orgs:*"), p("orgs:delete", "orgs:*"),
  p("licensing:read"), p("licensing:write"), p("licensing:delete"),
  p("roles:read", "roles:*"), p("roles:write", "permissions:type:*"), p("roles:delete", "permissions:type:*"),
  p("permissions:type:delegate"), p("permissions:type:escalate"),
  p("status:accesscontrol", "services:accesscontrol"),
  p("server.stats:read"), p("settings:read", "settings:*"),
  // the log and metrics stores' access policies and their tokens (server-wide, as the stores are)
  p("accesspolicies:read"), p("accesspolicies:write"), p("accesspolicies:delete"),
  // the LDAP debug API (the real product's fixed:ldap roles, granted to server admins)
  p("ldap.status:read"), p("ldap.user:read"), p("ldap.user:sync"), p("ldap.config:reload"),
  // backups of the whole server (legacy/admin/backups.ts): every hash and sealed secret is in one, and the key to
  // the sealed secrets in one made with it
  p("server.backups:read"), p("server.backups:create"), p("server.backups:delete"), p("server.backups.secretkey:read"),
];

/** name, uid and permissions of each basic role, as the RBAC API shows them */
export const BASIC_ROLES = [
  { name: "basic:none", uid: "basic_none", displayName: "No basic role", orgRole: "None" as const, permissions: [] as Permission[] },
  { name: "basic:viewer", uid: "basic_viewer", displayName: "Viewer", orgRole: "Viewer" as const, permissions: viewer },
  { name: "basic:editor", uid: "basic_editor", displayName: "Editor", orgRole: "Editor" as const, permissions: editor },
  { name: "basic:admin", uid: "basic_admin", displayName: "Admin", orgRole: "Admin" as const, permissions: admin },
  { name: "basic:svc_admin", uid: "basic_svc_admin", displayName: "Server admin", orgRole: undefined, permissions: serverAdmin },
];

/**
 * The permissions of a basic role in an edition. Where data sources have
 * managed permissions (enterprise, cloud), Viewers and Editors do not query
 * every data source: each data source's own entries grant it (by default
 * Query to the Viewer and Editor roles), so an administrator can take it away.
 */
export function basicRolePermissions(role: (typeof BASIC_ROLES)[number], o: { dataSourcePermissions: boolean }): Permission[] {
  if (!o.dataSourcePermissions || (role.orgRole !== "Viewer" && role.orgRole !== "Editor")) return role.permissions;
  return role.permissions.filter((x) => !(x.action === "datasources:query" && x.scope === "datasources:*"));
}

/** every action a role may grant (permission validation on role creation) */
export const KNOWN_ACTIONS: ReadonlySet<string> = new Set(
  BASIC_ROLES.flatMap((r) => r.permissions.map((x) => x.action)).concat([
    "users.authtoken:read", "users.authtoken:write", "users:logout", "users.quotas:list", "users.quotas:write",
    "orgs.quotas:read", "orgs.quotas:write", "dashboards.public:write", "annotations:*",
  ]),
);
