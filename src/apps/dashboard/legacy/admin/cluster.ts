// The nodes of this Outpost (issue 26): GET /api/admin/cluster for server
// admins — the database backend, every node sharing it (name, roles, the
// URLs of its listeners, version, whether it runs the stores now, whether it
// is up) — and the same without addresses in GET /api/health, which load
// balancers and monitors read. With the embedded database there is one node.
import type { Router } from "../../access/guard.ts";
import type { ClusterView } from "../../core/admin/cluster-view.ts";

export function registerCluster(r: Router, view: () => Promise<ClusterView>): void {
  r.get("/api/admin/cluster", { action: "server.stats:read" }, async (c) => c.json(await view()), {
    responses: { 200: "the database backend, the nodes sharing it and which one runs the stores" },
  });
}
