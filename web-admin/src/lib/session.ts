// Who is signed in, and what this server is: read once after sign-in from
// GET /api/user, /api/frontend/settings and /api/user/orgs.
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import { api } from "./api.ts";

export interface User {
  id: number;
  uid?: string;
  login: string;
  name: string;
  email: string;
  orgId: number;
  /** server administrator (the real product's isGrafanaAdmin, with the neutral name) */
  isSvcAdmin: boolean;
  theme?: string;
}

export interface FrontendSettings {
  buildInfo?: { version?: string; commit?: string; edition?: string };
  licenseInfo?: Record<string, unknown>;
  outpost?: { edition?: "oss" | "enterprise" | "cloud"; version?: string; adminPasswordIsDefault?: boolean };
}

export interface UserOrg {
  orgId: number;
  name: string;
  role: string;
}

/** action -> scopes the signed-in user holds (GET /api/access-control/user/permissions) */
export type Permissions = Record<string, string[]>;

export interface Session {
  user: User;
  permissions: Permissions;
  settings: FrontendSettings;
  orgs: UserOrg[];
  /** reads everything again (after a password change or an org switch) */
  refresh: () => Promise<void>;
}

export async function loadSession(): Promise<Omit<Session, "refresh">> {
  const user = await api<User>("/api/user");
  const [settings, orgs, permissions] = await Promise.all([
    api<FrontendSettings>("/api/frontend/settings").catch(() => ({}) as FrontendSettings),
    api<UserOrg[]>("/api/user/orgs").catch(() => [] as UserOrg[]),
    // an older server without the list: show every action and let the API refuse
    api<Permissions>("/api/access-control/user/permissions").catch(() => undefined),
  ]);
  return { user, settings, orgs, permissions: permissions ?? new Proxy({}, { get: () => ["*"] }) };
}

export const SessionContext = createContext<Session | undefined>(undefined);

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error("useSession outside a signed-in page");
  return s;
}

export function editionOf(s: Session): "oss" | "enterprise" | "cloud" {
  return s.settings.outpost?.edition ?? "oss";
}

/** whether the signed-in user may do `action` on some object (the API still decides on each request) */
export function can(s: Session, action: string): boolean {
  return (s.permissions[action]?.length ?? 0) > 0;
}
