import type { Backups } from "../../backup/service.ts";
import type { Config } from "../../config/schema.ts";
import type { Database } from "../../db/open.ts";
import type { Lifecycle } from "../../lib/lifecycle.ts";
import type { Logger } from "../../lib/logger.ts";
import type { StoreAccess } from "../../store-access/access-store.ts";

/** Everything the dashboard app needs, passed explicitly (no globals). */
import type { DiskGuard } from "../../lib/disk-guard.ts";
import type { Membership } from "../../cluster/nodes.ts";

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
  /** the server's backups, with the stores' files (server.ts); default: made by the dashboard, of the database and the data dir's other files */
  backups?: Backups | undefined;
  /** the data dir's cap (server.ts): its last measurement shows on the overview */
  disk?: DiskGuard | undefined;
  /** the nodes sharing a PostgreSQL database (server.ts); undefined with the embedded database */
  cluster?: Membership | undefined;
}

/** listener name ("dashboard", "logs", "metrics", "logs proxy") -> the port it listens on */
export type BoundPorts = Partial<Record<string, number>>;
