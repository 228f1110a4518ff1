// Builds the identity services over one database: the read model, the login
// throttle, sessions and the authenticator. Used by the dashboard app and by
// the offline admin commands, so both behave the same.
import type { ChangeFeed } from "../../../../db/change-feed.ts";
import type { Sql } from "../../../../db/sql.ts";
import { createAccessModel } from "./access-model.ts";
import { createAuthenticator, type Authenticator } from "./authenticate.ts";
import type { IdentityDeps } from "./identity-deps.ts";
import { createResourcePermissions } from "./resource-permissions.ts";
import { createLoginThrottle, createSharedLoginThrottle, type LoginThrottle } from "./login-throttle.ts";
import { createSessionStore, type SessionStore } from "./sessions.ts";

export interface IdentityOptions {
  edition: "oss" | "enterprise" | "cloud";
  basicAuthEnabled: boolean;
  loginMaxAttempts: number;
  loginLockoutMs: number;
  sessionLifetimeMs: number;
  now: () => number;
  onTokenUsed?: (tokenId: number) => void;
  /** security.totp_required_for_admins */
  totpRequiredForAdmins?: boolean;
  /** other nodes' writes (the running server's feed): lets the shared login throttle answer from memory where it may */
  changes?: ChangeFeed;
}

export interface IdentityServices {
  deps: IdentityDeps;
  auth: Authenticator;
  sessions: SessionStore;
  /** the login lock-out (second-factor codes count towards it too) */
  throttle: LoginThrottle;
}

export function createIdentity(pg: Sql, o: IdentityOptions): IdentityServices {
  const resourcePermissions = createResourcePermissions(pg);
  const model = createAccessModel(pg, { customRoles: o.edition !== "oss", dataSourcePermissions: o.edition !== "oss", resourcePermissions });
  // several nodes may share a PostgreSQL database: the lock-out must count every node's failures
  const throttle = pg.backend === "postgres"
    ? createSharedLoginThrottle(pg, o.loginMaxAttempts, o.loginLockoutMs, o.now, o.changes)
    : createLoginThrottle(o.loginMaxAttempts, o.loginLockoutMs, o.now);
  const sessions = createSessionStore(pg, o.sessionLifetimeMs, o.now);
  const auth = createAuthenticator({
    model,
    throttle,
    sessions,
    now: o.now,
    ...(o.onTokenUsed ? { onTokenUsed: o.onTokenUsed } : {}),
    totpRequiredForAdmins: o.totpRequiredForAdmins ?? false,
    // the cloud edition accepts service account tokens only
    basicAuthEnabled: o.basicAuthEnabled && o.edition !== "cloud",
  });
  return { deps: { pg, model, auth, edition: o.edition, now: o.now, resourcePermissions }, auth, sessions, throttle };
}
