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
 * May the holder of `set` do `action`? Without a scope, any grant of the
 * action is enough (list endpoints then filter); with scopes, any one of them
 * being covered is enough (an object is reachable through itself, its folder...).
 */
export function hasPermission(set: PermissionSet, action: string, scopes?: readonly string[]): boolean {
  const granted = set.get(action);
  if (!granted) return false;
  if (!scopes || scopes.length === 0) return true;
  return scopes.some((wanted) => granted.some((g) => scopeCovers(g, wanted)));
}
