// Identity: who calls and what they may do (README.md). The entry the other
// feature folders of core/ import identity through; routes import the
// service files themselves.
export { type AccessModel } from "./access-model.ts";
export { type Identity } from "./authenticate.ts";
export { DATASOURCE_LEVEL_ACTIONS, type DataSourcePermissionLevel } from "./datasource-permission-levels.ts";
export { changed, type IdentityDeps } from "./identity-deps.ts";
export { NAME_LIMITS, requireMaxLength } from "./name-limits.ts";
export { hasPermission, type PermissionSet } from "./permissions.ts";
export { avatarUrl } from "./users.ts";
