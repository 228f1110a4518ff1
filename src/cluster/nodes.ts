// The nodes sharing one PostgreSQL database (issue 26): each keeps a row in
// cluster_nodes (its name, roles, the URLs of its listeners, whether it runs
// the stores now) and a heartbeat every few seconds. The admin page and
// /api/admin/cluster list them; standby store nodes find the active one here.
import { hostname } from "node:os";
import type { Sql } from "../db/sql.ts";
import { newUid } from "../lib/ids.ts";
import type { Logger } from "../lib/logger.ts";

/** how often a node says it is alive */
export const HEARTBEAT_MS = 2_000;
/** a node not heard of for this long is down (its row stays, shown as down, for an hour) */
export const DOWN_AFTER_MS = 10_000;
const FORGET_AFTER = "1 hour";

export interface NodeInfo {
  id: string;
  name: string;
  roles: string[];
  urls: Record<string, string>;
  version: string;
  storeActive: boolean;
  startedAt: string;
  heartbeatAt: string;
  up: boolean;
  self: boolean;
}

export interface Membership {
  readonly id: string;
  readonly name: string;
  /** the listeners' URLs as other nodes reach them, once they listen */
  setUrls(urls: Record<string, string>): Promise<void>;
  /** this node runs the stores now (the only one: the others' flags are cleared in the same statement) */
  becomeStoreActive(): Promise<void>;
  list(): Promise<NodeInfo[]>;
  /** the URLs of the node running the stores, when one is up (cached a second) */
  activeStores(): Promise<NodeInfo | undefined>;
  leave(): Promise<void>;
}

/** this node's default name: the host name and the dashboard's port (several nodes may run on one host) */
export function defaultNodeName(port: number): string {
  return `${hostname()}:${port}`;
}

export async function joinCluster(sql: Sql, o: { name: string; roles: string[]; version: string; logger: Logger }): Promise<Membership> {
  const id = newUid();
  await sql.query("delete from cluster_nodes where heartbeat_at < now() - $1::interval", [FORGET_AFTER]);
  await sql.query("insert into cluster_nodes (id, name, roles, version) values ($1, $2, $3, $4)", [id, o.name, o.roles, o.version]);
  const beat = setInterval(() => {
    sql.query("update cluster_nodes set heartbeat_at = now() where id = $1", [id]).catch((err: unknown) => o.logger.warn("the node's heartbeat could not be written", { err: String(err) }));
  }, HEARTBEAT_MS);
  beat.unref?.();
  let cached: { at: number; node: Promise<NodeInfo | undefined> } | undefined;
  const list = async (): Promise<NodeInfo[]> => {
    const r = await sql.query<{
      id: string; name: string; roles: string[]; urls: Record<string, string>; version: string; store_active: boolean; started_at: Date; heartbeat_at: Date; up: boolean;
    }>(
      `select id, name, roles, urls, version, store_active, started_at, heartbeat_at,
              heartbeat_at > now() - $1::interval as up
         from cluster_nodes order by started_at, id`,
      [`${DOWN_AFTER_MS} milliseconds`],
    );
    return r.rows.map((n) => ({
      id: n.id, name: n.name, roles: n.roles, urls: n.urls, version: n.version, storeActive: n.store_active,
      startedAt: n.started_at.toISOString(), heartbeatAt: n.heartbeat_at.toISOString(), up: n.up, self: n.id === id,
    }));
  };
  return {
    id,
    name: o.name,
    async setUrls(urls) {
      await sql.query("update cluster_nodes set urls = $2 where id = $1", [id, JSON.stringify(urls)]);
    },
    async becomeStoreActive() {
      await sql.query("update cluster_nodes set store_active = (id = $1)", [id]);
      cached = undefined;
    },
    list,
    activeStores() {
      const now = Date.now();
      if (!cached || now - cached.at > 1_000) {
        cached = { at: now, node: list().then((all) => all.find((n) => n.storeActive && n.up)) };
        cached.node.catch(() => (cached = undefined));
      }
      return cached.node;
    },
    async leave() {
      clearInterval(beat);
      await sql.query("delete from cluster_nodes where id = $1", [id]).catch(() => undefined);
    },
  };
}
