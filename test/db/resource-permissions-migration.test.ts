// Migration 11: folders and dashboards at the root that exist before managed
// permissions get the defaults a new one gets, so no Viewer or Editor loses
// access on upgrade; those inside folders inherit.
import { PGlite } from "@electric-sql/pglite";
import { describe, expect, it } from "vitest";
import { migrate } from "../../src/db/migrate.ts";
import { migrations } from "../../src/db/migrations/index.ts";
import { silentLogger as logger } from "../../src/lib/logger.ts";

describe("migration 11 (resource permissions)", () => {
  it("gives existing root folders and dashboards Editor Edit and Viewer View, in the organization of their namespace", async () => {
    const pg = new PGlite();
    await migrate(pg, migrations.filter((m) => m.version < 11), logger, "test");
    const add = (group: string, resource: string, namespace: string, name: string, folder?: string) =>
      pg.query(
        "insert into resources (api_group, resource, namespace, name, resource_version, object) values ($1, $2, $3, $4, 1, $5)",
        [group, resource, namespace, name, { metadata: { name, annotations: folder ? { "svc.app/folder": folder } : {} }, spec: {} }],
      );
    await add("folder.svc.app", "folders", "default", "f1");
    await add("folder.svc.app", "folders", "default", "f1-sub", "f1");
    await add("dashboard.svc.app", "dashboards", "org-7", "d-root");
    await add("dashboard.svc.app", "dashboards", "default", "d-in", "f1");
    await add("playlist.svc.app", "playlists", "default", "p1");
    await migrate(pg, migrations, logger, "test");
    const rows = await pg.query<{ org_id: number; kind: string; uid: string; builtin_role: string; permission: number }>(
      "select org_id, kind, uid, builtin_role, permission from resource_permissions order by org_id, kind, uid, permission",
    );
    expect(rows.rows).toEqual([
      { org_id: 1, kind: "folders", uid: "f1", builtin_role: "Viewer", permission: 1 },
      { org_id: 1, kind: "folders", uid: "f1", builtin_role: "Editor", permission: 2 },
      { org_id: 7, kind: "dashboards", uid: "d-root", builtin_role: "Viewer", permission: 1 },
      { org_id: 7, kind: "dashboards", uid: "d-root", builtin_role: "Editor", permission: 2 },
    ]);
    await pg.close();
  });
});
