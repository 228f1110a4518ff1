// Shared by the tabs of the users page: API shapes, who may do what, and
// small helpers (debounced search, "last seen").
import { useEffect, useState } from "preact/hooks";
import { ago, dateTime } from "../lib/format.ts";
import type { Session } from "../lib/session.ts";

/** the organization roles, lowest first (core/basic-roles.ts ORG_ROLES) */
export const ORG_ROLES = ["None", "Viewer", "Editor", "Admin"] as const;

export const PER_PAGE = 20;

/** GET /api/users/search (server admins) */
export interface ServerUser {
  id: number;
  uid?: string;
  name: string;
  login: string;
  email: string;
  isAdmin?: boolean;
  isDisabled?: boolean;
  lastSeenAt?: string | null;
  lastSeenAtAge?: string;
}

export interface UserSearch {
  totalCount: number;
  users: ServerUser[];
  page: number;
  perPage: number;
}

/** GET /api/org/users: the members of the current organization */
export interface OrgUser {
  orgId: number;
  userId: number;
  email: string;
  name: string;
  login: string;
  role: string;
  lastSeenAt?: string | null;
  isDisabled?: boolean;
}

/** GET /api/orgs (server admins) */
export interface Org {
  id: number;
  name: string;
}

/** whether the signed-in user is a server administrator (GET /api/user's isSvcAdmin) */
export function isServerAdmin(session: Session): boolean {
  return session.user.isSvcAdmin === true;
}

/** the signed-in user's role in the current organization */
export function currentRole(session: Session): string | undefined {
  return session.orgs.find((o) => o.orgId === session.user.orgId)?.role;
}

/** organization admins (and server admins) change roles and manage members */
export function isOrgAdmin(session: Session): boolean {
  return isServerAdmin(session) || currentRole(session) === "Admin";
}

export function currentOrgName(session: Session): string {
  return session.orgs.find((o) => o.orgId === session.user.orgId)?.name ?? `organization ${session.user.orgId}`;
}

/** the value, once it has stopped changing for `ms` (search boxes) */
export function useDebounced<T>(value: T, ms = 250): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return settled;
}

/** at least this old means "never seen": the server reports such users as seen 10 years before they were created */
const NEVER_MS = 9.9 * 365 * 86_400_000;

/** "3 min ago", or "never" */
export function LastSeen(props: { at: string | null | undefined }) {
  const t = props.at ? Date.parse(props.at) : NaN;
  if (!props.at || Number.isNaN(t) || Date.now() - t >= NEVER_MS) return <span class="muted">never</span>;
  return <time dateTime={props.at} title={dateTime(props.at)}>{ago(props.at)}</time>;
}
