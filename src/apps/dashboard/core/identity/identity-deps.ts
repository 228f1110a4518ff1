import type { Sql } from "../../../../db/sql.ts";
import type { AccessModel } from "./access-model.ts";
import type { Authenticator } from "./authenticate.ts";
import type { ResourcePermissions } from "./resource-permissions.ts";

/** what the identity services need: the database and the read model they keep current */
export interface IdentityDeps {
  pg: Sql;
  model: AccessModel;
  auth: Authenticator;
  edition: "oss" | "enterprise" | "cloud";
  now: () => number;
  /** managed folder and dashboard permissions */
  resourcePermissions: ResourcePermissions;
}

/** run after every write to identity tables */
export function changed(deps: IdentityDeps): void {
  deps.model.invalidate();
  deps.auth.forget();
}
