import type { Config } from "../../config/schema.ts";
import type { IdentityOptions } from "./core/identity/identity.ts";

/** the identity settings of a configuration */
export function identityOptionsFrom(config: Config, now: () => number): IdentityOptions {
  return {
    edition: config.server.edition,
    basicAuthEnabled: config.security.basic_auth_enabled,
    loginMaxAttempts: config.security.login_max_attempts,
    loginLockoutMs: config.security.login_lockout_duration,
    sessionLifetimeMs: config.security.session_lifetime,
    totpRequiredForAdmins: config.security.totp_required_for_admins,
    now,
  };
}
