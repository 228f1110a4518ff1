// GET /api/health: {database, version (the API version: API_VERSION), commit, outpostVersion}; 503 with database "failing"
// when the database cannot answer (the real product's shape). With several nodes on one PostgreSQL database
// also this node's name, the nodes (names, roles, up, which runs the stores) and the store node.
import { API_VERSION, COMMIT, VERSION } from "../../../../version.ts";
import type { Router } from "../../access/guard.ts";
import type { DashboardDeps } from "../../deps.ts";
import { createHealthProbe } from "../../core/admin/health.ts";
import type { ClusterView } from "../../core/admin/cluster-view.ts";

export function registerHealth(r: Router, deps: DashboardDeps, view: () => Promise<ClusterView>): void {
  const healthy = createHealthProbe(deps.db);
  r.get("/api/health", { public: true }, async (c) => {
    const ok = await healthy();
    c.header("Cache-Control", "no-store");
    const body: Record<string, unknown> = { database: ok ? "ok" : "failing", version: API_VERSION, commit: COMMIT, outpostVersion: VERSION };
    // several nodes on one database: which they are and which runs the stores (names and roles only: this is public)
    if (ok && deps.cluster) {
      const v = await view().catch(() => undefined);
      if (v) {
        body["node"] = deps.cluster.name;
        body["storeNode"] = v.storeNode;
        body["nodes"] = v.nodes.map((n) => ({ name: n.name, roles: n.roles, storeActive: n.storeActive, up: n.up }));
      }
    }
    return c.json(body, ok ? 200 : 503);
  });
}
