// What hangs off a dashboard and follows its life: library panel connections
// are remade when it is saved; connections, annotations and stars go when it
// is deleted (by itself or with its folder), as in the real product.
import type { AnnotationStore } from "./annotations.ts";
import type { LibraryElementStore } from "./library-elements.ts";
import type { StarStore } from "./stars.ts";

export interface SavedDashboard {
  uid: string;
  id: number;
  spec: Record<string, unknown>;
}

export interface DashboardDependents {
  saved(orgId: number, dashboard: SavedDashboard, userId: number, now: Date): Promise<void>;
  deleted(orgId: number, uids: string[]): Promise<void>;
}

export function dashboardDependents(library: LibraryElementStore, annotations: AnnotationStore, stars: StarStore): DashboardDependents {
  return {
    saved: (orgId, dashboard, userId, now) => library.connectDashboard(orgId, dashboard, userId, now),
    async deleted(orgId, uids) {
      await library.disconnectDashboards(orgId, uids);
      await annotations.deleteForDashboards(orgId, uids);
      await stars.forget(orgId, "dashboard.svc.app", "Dashboard", uids);
    },
  };
}
