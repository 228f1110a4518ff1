// The organizations and roles an OpenID Connect sign-in gives, as the real
// product's org role mapper does (pkg/login/social/connectors/org_role_mapper.go;
// docs/authentication.md, "OpenID Connect"): org_mapping entries
// <ExternalOrg>:<OrgIdOrName>[:<Role>] ("*" as the external org matches every
// user, "*" as the organization names every one; "\:" is a colon inside a
// name), matched against org_attribute_path's list. The role_attribute_path
// role is merged in: every mapped organization gets the higher of the two.
// Nothing mapped (or no org_mapping): the main organization with the
// role_attribute_path role, else Viewer (the real product's auto_assign_org_role).
// Organizations are resolved at each sign-in (they can be made and removed at
// run time): one that does not exist is skipped with a warning, once.
import { isOrgRole, roleRank, type OrgRole } from "./basic-roles.ts";

const MAIN_ORG = 1;
const DEFAULT_ROLE: OrgRole = "Viewer";

export interface OrgMappingEntry {
  /** the external organization, "*": every user */
  external: string;
  /** an organization id, a name, or "*": every organization */
  org: string;
  /** the role; undefined: none named (Viewer; skipped with role_attribute_strict) */
  role: OrgRole | undefined;
  /** the entry as configured, for warnings */
  text: string;
}

/** splits on unescaped colons ("\:" is a colon); undefined when not 2 or 3 parts */
function split(entry: string): string[] | undefined {
  const parts: string[] = [];
  let current = "";
  for (let i = 0; i < entry.length; i++) {
    const c = entry[i]!;
    if (c === "\\" && entry[i + 1] === ":") {
      current += ":";
      i++;
    } else if (c === ":") {
      parts.push(current);
      current = "";
    } else current += c;
  }
  parts.push(current);
  return parts.length === 2 || parts.length === 3 ? parts : undefined;
}

/**
 * org_mapping's entries (the list's items, also split on spaces and commas as the real product
 * accepts); invalid ones are reported and left out.
 */
export function parseOrgMapping(list: readonly string[], strict: boolean): { entries: OrgMappingEntry[]; problems: string[] } {
  const entries: OrgMappingEntry[] = [];
  const problems: string[] = [];
  for (const text of list.flatMap((s) => s.split(/[\s,]+/)).filter((s) => s !== "")) {
    const parts = split(text);
    if (!parts || !parts[0] || !parts[1]) {
      problems.push(`${text}: not <ExternalOrg>:<OrgIdOrName>:<Role>`);
      continue;
    }
    const named = parts[2];
    let role: OrgRole | undefined;
    if (named !== undefined && named !== "") {
      if (isOrgRole(named)) role = named;
      else problems.push(`${text}: ${named} is not a role (None, Viewer, Editor or Admin)${strict ? ": skipped (role_attribute_strict)" : ": Viewer"}`);
    } else if (strict) {
      problems.push(`${text}: names no role: skipped (role_attribute_strict)`);
    }
    if (strict && !role) continue;
    entries.push({ external: parts[0], org: parts[1], role, text });
  }
  return { entries, problems };
}

const topRole = (a: OrgRole | undefined, b: OrgRole): OrgRole => (a === undefined || roleRank(b) > roleRank(a) ? b : a);

export interface OrgMapper {
  /**
   * the organizations and roles for the user: org id -> role. undefined: no valid role anywhere
   * and role_attribute_strict (the sign-in is refused).
   */
  map(externalOrgs: readonly string[], direct: OrgRole | undefined, orgs: ReadonlyMap<number, { id: number; name: string }>): Map<number, OrgRole> | undefined;
  /** whether org_mapping is set (memberships then follow it at each sign-in) */
  readonly active: boolean;
}

export function createOrgMapper(entries: readonly OrgMappingEntry[], strict: boolean, warn: (msg: string, fields: Record<string, unknown>) => void): OrgMapper {
  const warned = new Set<string>();

  /** the ids an entry names; [] (with a warning, once per entry) when its organization does not exist */
  const resolve = (entry: OrgMappingEntry, orgs: ReadonlyMap<number, { id: number; name: string }>): number[] => {
    if (entry.org === "*") return [...orgs.keys()];
    let id: number | undefined;
    if (/^\d+$/.test(entry.org)) id = orgs.has(Number(entry.org)) ? Number(entry.org) : undefined;
    else {
      const name = entry.org.toLowerCase();
      for (const o of orgs.values()) if (o.name.toLowerCase() === name) id = o.id;
    }
    if (id !== undefined) return [id];
    if (!warned.has(entry.text)) {
      warned.add(entry.text);
      warn("org_mapping names an organization that does not exist: entry skipped", { entry: entry.text });
    }
    return [];
  };

  const fallback = (direct: OrgRole | undefined, orgs: ReadonlyMap<number, unknown>): Map<number, OrgRole> | undefined => {
    if (strict && !direct) return undefined;
    return new Map(orgs.has(MAIN_ORG) ? [[MAIN_ORG, direct ?? DEFAULT_ROLE]] : []);
  };

  return {
    active: entries.length > 0,
    map(externalOrgs, direct, orgs) {
      if (!entries.length) return fallback(direct, orgs);
      const mine = new Set(externalOrgs);
      const roles = new Map<number, OrgRole>();
      for (const e of entries) {
        if (e.external !== "*" && !mine.has(e.external)) continue;
        for (const id of resolve(e, orgs)) roles.set(id, topRole(roles.get(id), e.role ?? DEFAULT_ROLE));
      }
      if (!roles.size) return fallback(direct, orgs);
      if (direct) for (const [id, role] of roles) roles.set(id, topRole(role, direct));
      return roles;
    },
  };
}
