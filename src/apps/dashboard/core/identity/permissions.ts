// Permissions are (action, scope) pairs. A granted scope ending in "*"
// covers every scope that starts with the part before it, so "dashboards:*"
// covers "dashboards:uid:abc" and "*" covers everything (spec, "Authorization
// is by RBAC ... Scope wildcards").

export interface Permission {
  action: string;
  /** "" for actions that take no scope */
  scope: string;
}

/** action -> the scopes granted for it */
export type PermissionSet = ReadonlyMap<string, readonly string[]>;

export function toPermissionSet(permissions: Iterable<Permission>): PermissionSet {
  const set = new Map<string, string[]>();
  for (const p of permissions) {
    const scopes = set.get(p.action);
    if (!scopes) set.set(p.action, [p.scope]);
    else if (!scopes.includes(p.scope)) scopes.push(p.scope);
  }
  return set;
}

export function mergePermissionSets(sets: Iterable<PermissionSet>): PermissionSet {
  const merged = new Map<string, string[]>();
  for (const set of sets) {
    for (const [action, scopes] of set) {
      const into = merged.get(action) ?? [];
      for (const s of scopes) if (!into.includes(s)) into.push(s);
      merged.set(action, into);
    }
  }
  return merged;
}

/**
 * true when `granted` covers `wanted`. An empty grant (an action that takes
 * no scope) covers only an empty want: it must never stand for "everything".
 */
export function scopeCovers(granted: string, wanted: string): boolean {
  if (granted === wanted) return true;
  if (granted.endsWith("*")) return wanted.startsWith(granted.slice(0, -1));
  return false;
}

/**
 * Grants that live outside a permission set: managed folder and dashboard
 * permissions (resource-permissions.ts), too many to copy into every
 * caller's set, looked up per scope instead.
 */
export interface ManagedGrants {
  covers(action: string, scope: string): boolean;
  /** any grant of the action at all (a route guard without a scope) */
  any(action: string): boolean;
}

const managed = new WeakMap<PermissionSet, ManagedGrants>();

/** the set, with managed grants consulted after its own */
export function withManagedGrants(set: PermissionSet, grants: ManagedGrants): PermissionSet {
  managed.set(set, grants);
  return set;
}

/**
 * May the holder of `set` do `action`? Without a scope, any grant of the
 * action is enough (list endpoints then filter); with scopes, any one of them
 * being covered is enough (an object is reachable through itself, its folder...).
 */
export function hasPermission(set: PermissionSet, action: string, scopes?: readonly string[]): boolean {
  const granted = set.get(action);
  const more = managed.get(set);
  if (!scopes || scopes.length === 0) return granted !== undefined || (more?.any(action) ?? false);
  if (granted && scopes.some((wanted) => granted.some((g) => scopeCovers(g, wanted)))) return true;
  return more !== undefined && scopes.some((wanted) => more.covers(action, wanted));
}
