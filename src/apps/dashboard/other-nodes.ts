// What the dashboard holds in memory, kept current with the writes of other
// nodes on the same PostgreSQL database (db/change-feed.ts): each read model
// names the tables it is built from and what to do when another node
// changed them. The node's own writes update its models in place, as always.
import type { ChangeFeed } from "../../db/change-feed.ts";
import type { Logger } from "../../lib/logger.ts";
import type { ResourceStore } from "./apis/store.ts";
import type { AnnotationStore } from "./core/content/annotations.ts";
import type { LibraryElementStore } from "./core/content/library-elements.ts";
import type { PreferenceStore } from "./core/content/preferences.ts";
import type { StarStore } from "./core/content/stars.ts";
import type { DataSourceRegistry } from "./core/datasources/datasource-registry.ts";
import type { Lbac } from "./core/datasources/lbac.ts";
import { changed, type IdentityDeps } from "./core/identity/identity-deps.ts";
import type { ManagedKind, ResourcePermissions } from "./core/identity/resource-permissions.ts";
import type { SessionStore } from "./core/identity/sessions.ts";

export interface ReadModels {
  identity: IdentityDeps;
  sessions: SessionStore;
  store: ResourceStore;
  resourcePermissions: ResourcePermissions;
  dataSourceRegistry: DataSourceRegistry;
  lbac: Lbac | undefined;
  preferences: PreferenceStore;
  libraryElements: LibraryElementStore;
  stars: StarStore;
  annotations: AnnotationStore;
}

/** the tables the access model is built from (core/identity/access-model.ts); api tokens' last use is not a change of access */
export const IDENTITY_TABLES = [
  "orgs", "users", "org_members", "teams", "team_members", "roles", "role_permissions", "team_roles", "user_roles",
  "datasource_permissions", "user_second_factor", "api_tokens(org_id,service_account_id,name,hash,expires_at,is_revoked)",
] as const;

export function followOtherNodes(feed: ChangeFeed, logger: Logger, m: ReadModels): void {
  if (!feed.shared) return;
  const failed = (what: string) => (err: unknown) => logger.error(`reloading ${what} after another node's change failed`, { err: String(err) });
  feed.on("identity", IDENTITY_TABLES, () => {
    // users, roles, tokens and permissions are read again at next use; sessions a write ended are looked up again
    changed(m.identity);
    m.sessions.forget();
  });
  // a session another node made is looked up when first seen; one it ended must be forgotten here
  feed.on("sessions", ["sessions"], () => m.sessions.forget(), { deletesOnly: true });
  feed.on(
    "resources",
    ["resources"],
    (detail) => {
      const [group, resource, namespace, name] = detail?.split("\t") ?? [];
      const key = group !== undefined && resource !== undefined && namespace !== undefined && name !== undefined ? { group, resource, namespace } : undefined;
      m.store.refresh(key, key ? name : undefined).catch(failed("an object"));
    },
    { rowDetail: "api_group,resource,namespace,name" },
  );
  feed.on(
    "resource_permissions",
    ["resource_permissions"],
    (detail) => {
      const [org, kind, uid] = detail?.split("\t") ?? [];
      const scope = org && kind && uid !== undefined ? { orgId: Number(org), kind: kind as ManagedKind, uid } : undefined;
      m.resourcePermissions.reload(scope).catch(failed("folder and dashboard permissions"));
    },
    { rowDetail: "org_id,kind,uid" },
  );
  feed.on("data_sources", ["data_sources"], () => {
    m.dataSourceRegistry.reload().catch(failed("data sources"));
  });
  if (m.lbac) feed.on("lbac", ["datasource_lbac_rules"], () => m.lbac?.invalidate());
  feed.on("preferences", ["preferences"], () => m.preferences.invalidate());
  feed.on("library_elements", ["library_elements", "library_connections"], () => m.libraryElements.invalidate());
  feed.on("stars", ["stars"], () => m.stars.invalidate());
  feed.on("annotations", ["annotations"], () => m.annotations.invalidate());
}
