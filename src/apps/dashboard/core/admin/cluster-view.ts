// What the cluster of this Outpost looks like from here (issue 26): the
// database backend, every node sharing it (name, roles, the URLs of its
// listeners, version, whether it runs the stores now, whether it is up).
// With the embedded database there is one node, this process.
import { defaultNodeName, type Membership, type NodeInfo } from "../../../../cluster/nodes.ts";
import { VERSION } from "../../../../version.ts";
import type { DashboardDeps } from "../../deps.ts";

export interface ClusterView {
  backend: "pglite" | "postgres";
  nodes: NodeInfo[];
  /** the name of the node running the stores now, or null (a failover under way, or no store node) */
  storeNode: string | null;
}

/** what the cluster looks like from here, read at most every 2 s (the health check may be polled hard) */
export function clusterView(deps: Pick<DashboardDeps, "db" | "config" | "boundPorts"> & { cluster?: Membership | undefined }): () => Promise<ClusterView> {
  let cached: { at: number; view: Promise<ClusterView> } | undefined;
  const read = async (): Promise<ClusterView> => {
    if (deps.cluster) {
      const nodes = await deps.cluster.list();
      return { backend: deps.db.backend, nodes, storeNode: nodes.find((n) => n.storeActive && n.up)?.name ?? null };
    }
    // the embedded database: this process alone
    const target = deps.config.server.target;
    const name = deps.config.server.node_name || defaultNodeName(deps.boundPorts?.["dashboard"] ?? deps.config.dashboard.http_port);
    const started = new Date(Date.now() - performance.now()).toISOString();
    const self: NodeInfo = {
      id: deps.db.installationUid, name, roles: target === "all" ? ["dashboard", "stores"] : [target], urls: {}, version: VERSION,
      storeActive: target !== "dashboard", startedAt: started, heartbeatAt: new Date().toISOString(), up: true, self: true,
    };
    return { backend: deps.db.backend, nodes: [self], storeNode: self.storeActive ? name : null };
  };
  return () => {
    const now = Date.now();
    if (!cached || now - cached.at > 2_000) {
      cached = { at: now, view: read() };
      cached.view.catch(() => (cached = undefined));
    }
    return cached.view;
  };
}

