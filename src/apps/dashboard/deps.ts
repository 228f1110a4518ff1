import type { Config } from "../../config/schema.ts";
import type { Database } from "../../db/open.ts";
import type { Lifecycle } from "../../lib/lifecycle.ts";
import type { Logger } from "../../lib/logger.ts";
import type { StoreAccess } from "../../store-access/access-store.ts";

/** Everything the dashboard app needs, passed explicitly (no globals). */
export interface DashboardDeps {
  config: Config;
  db: Database;
  logger: Logger;
  lifecycle: Lifecycle;
  /** admin page files keyed by URL path */
  adminFiles: Map<string, Uint8Array>;
  /** the clock, in epoch milliseconds (tests move it) */
  now?: () => number;
  /** the ports the listeners were bound to, filled in once they listen (a port configured as 0 is chosen then) */
  boundPorts?: BoundPorts;
  /** the stores' access policies and tokens, one set for the process (server.ts); default: opened by the dashboard */
  access?: StoreAccess | undefined;
}

/** listener name ("dashboard", "logs", "metrics", "logs proxy") -> the port it listens on */
export type BoundPorts = Partial<Record<string, number>>;
