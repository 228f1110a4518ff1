// The tenant of every request while auth_enabled is off (reference §1):
// "fake", whatever X-Scope-OrgID says. With it on, the tenant comes from the
// header or the credentials (store-access/authorize.ts).
export const NO_AUTH_TENANT = "fake";
