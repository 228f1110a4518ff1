// A minimal alert-rule store (the real product's provisioning API shape):
// enough for folders to own rules, refuse deletion while they hold some, and
// delete them with forceDeleteRules=true.
import type { PGlite } from "@electric-sql/pglite";
import { ApiError, notFound } from "../../../../lib/errors.ts";
import { newUid } from "../../../../lib/ids.ts";
import { isUniqueViolation } from "../../../../db/errors.ts";
import { NAME_LIMITS, requireMaxLength } from "../identity/index.ts";

export interface AlertRuleInput {
  uid?: string | undefined;
  title: string;
  ruleGroup: string;
  folderUID: string;
  condition: string;
  data: unknown[];
  [key: string]: unknown;
}

export interface AlertRuleStore {
  create(orgId: number, input: AlertRuleInput): Promise<Record<string, unknown>>;
  list(orgId: number): Promise<Array<Record<string, unknown>>>;
  get(orgId: number, uid: string): Promise<Record<string, unknown>>;
  delete(orgId: number, uid: string): Promise<void>;
  countIn(orgId: number, folderUids: string[]): Promise<number>;
  deleteIn(orgId: number, folderUids: string[]): Promise<void>;
}

export function createAlertRuleStore(pg: PGlite): AlertRuleStore {
  const shape = (row: { id: number; uid: string; org_id: number; body: Record<string, unknown>; updated_at: string }) => ({
    ...row.body,
    id: row.id,
    uid: row.uid,
    orgID: row.org_id,
    updated: new Date(row.updated_at).toISOString(),
    provenance: "api",
  });
  return {
    async create(orgId, input) {
      const uid = input.uid?.trim() || newUid();
      if (!/^[a-zA-Z0-9_-]{1,40}$/.test(uid)) throw new ApiError(400, "invalid alert rule uid: at most 40 letters, digits, - or _");
      requireMaxLength("title", input.title, NAME_LIMITS.alertRuleTitle);
      requireMaxLength("ruleGroup", input.ruleGroup, NAME_LIMITS.alertRuleGroup);
      const body = { ...input, uid };
      const r = await pg
        .query<{ id: number; uid: string; org_id: number; body: Record<string, unknown>; updated_at: string }>(
          `insert into alert_rules (uid, org_id, folder_uid, rule_group, title, body) values ($1, $2, $3, $4, $5, $6) returning *`,
          [uid, orgId, input.folderUID, input.ruleGroup, input.title, body],
        )
        .catch((err: unknown) => {
          if (isUniqueViolation(err, "alert_rules_uid_key")) throw new ApiError(409, "an alert rule with this uid already exists");
          throw err;
        });
      return shape(r.rows[0]!);
    },
    async list(orgId) {
      const r = await pg.query<{ id: number; uid: string; org_id: number; body: Record<string, unknown>; updated_at: string }>(
        "select * from alert_rules where org_id = $1 order by id",
        [orgId],
      );
      return r.rows.map(shape);
    },
    async get(orgId, uid) {
      const r = await pg.query<{ id: number; uid: string; org_id: number; body: Record<string, unknown>; updated_at: string }>(
        "select * from alert_rules where org_id = $1 and uid = $2",
        [orgId, uid],
      );
      if (!r.rows[0]) throw notFound("alert rule not found");
      return shape(r.rows[0]);
    },
    async delete(orgId, uid) {
      await pg.query("delete from alert_rules where org_id = $1 and uid = $2", [orgId, uid]);
    },
    async countIn(orgId, folderUids) {
      const r = await pg.query<{ n: number }>(
        "select count(*)::int as n from alert_rules where org_id = $1 and folder_uid = any($2::text[])",
        [orgId, folderUids],
      );
      return r.rows[0]!.n;
    },
    async deleteIn(orgId, folderUids) {
      await pg.query("delete from alert_rules where org_id = $1 and folder_uid = any($2::text[])", [orgId, folderUids]);
    },
  };
}
