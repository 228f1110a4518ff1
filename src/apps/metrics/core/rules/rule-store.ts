// Rule groups in PGlite (metrics_rule_groups): the ruler keeps every group in
// memory and writes through, so reads never touch the database; this file
// is only the persistence.
import type { Sql } from "../../../../db/sql.ts";
import type { RuleGroup } from "./group-format.ts";

export interface StoredGroup {
  tenant: string;
  namespace: string;
  group: RuleGroup;
}

export interface RuleStore {
  loadAll(): Promise<StoredGroup[]>;
  /** creates or replaces the group of that name in the namespace */
  put(tenant: string, namespace: string, group: RuleGroup): Promise<void>;
  /** false when there was no such group */
  delete(tenant: string, namespace: string, name: string): Promise<boolean>;
  /** the number of groups deleted */
  deleteNamespace(tenant: string, namespace: string): Promise<number>;
}

export function createRuleStore(pg: Sql): RuleStore {
  return {
    async loadAll() {
      const res = await pg.query<{ tenant: string; namespace: string; body: RuleGroup }>(
        "select tenant, namespace, body from metrics_rule_groups order by tenant, namespace, name",
      );
      return res.rows.map((r) => ({ tenant: r.tenant, namespace: r.namespace, group: r.body }));
    },
    async put(tenant, namespace, group) {
      await pg.query(
        `insert into metrics_rule_groups (tenant, namespace, name, body) values ($1, $2, $3, $4::jsonb)
         on conflict (tenant, namespace, name) do update set body = excluded.body, updated_at = now()`,
        [tenant, namespace, group.name, JSON.stringify(group)],
      );
    },
    async delete(tenant, namespace, name) {
      const res = await pg.query("delete from metrics_rule_groups where tenant = $1 and namespace = $2 and name = $3", [tenant, namespace, name]);
      return (res.affectedRows ?? 0) > 0;
    },
    async deleteNamespace(tenant, namespace) {
      const res = await pg.query("delete from metrics_rule_groups where tenant = $1 and namespace = $2", [tenant, namespace]);
      return res.affectedRows ?? 0;
    },
  };
}
