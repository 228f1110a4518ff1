// Alert rules and their groups, as the real product's provisioning API keeps
// them (/api/v1/provisioning/alert-rules and .../folder/:uid/rule-groups/:g):
// rules in folders, grouped, each group with one evaluation interval; a
// folder refuses deletion while it holds rules, or takes them with it. Rules
// are kept, never evaluated. The rule's own checks are in alert-rule-model.ts.
import type { Sql, SqlTx } from "../../../../db/sql.ts";
import { ApiError } from "../../../../lib/errors.ts";
import { newUid } from "../../../../lib/ids.ts";
import { isUniqueViolation } from "../../../../db/errors.ts";
import { NAME_LIMITS, requireMaxLength } from "../identity/index.ts";
import { alertingError, formatGoSeconds, invalidRule, requireSameProvenance, type Provenance } from "./alerting-common.ts";
import { readRule, shapeRule, type AlertRuleInput, type ReadRule, type RuleRow } from "./alert-rule-model.ts";
import { ensureAlertingDefaults, receiverNames, timingNames } from "./notification-policies.ts";

export type { AlertRuleInput } from "./alert-rule-model.ts";

/** the real product's [unified_alerting] default_rule_evaluation_interval and base_interval, in seconds */
export const DEFAULT_INTERVAL = 60;
const BASE_INTERVAL = 10;

export interface RuleGroup {
  title: string;
  folderUid: string;
  interval: number;
  rules: RuleRow[];
}

export interface AlertRuleStore {
  create(orgId: number, input: AlertRuleInput, provenance: Provenance): Promise<Record<string, unknown>>;
  list(orgId: number): Promise<Array<Record<string, unknown>>>;
  /** the stored rule, undefined when there is none */
  row(orgId: number, uid: string): Promise<RuleRow | undefined>;
  /** PUT: undefined when there is no such rule */
  update(orgId: number, uid: string, input: AlertRuleInput, provenance: Provenance): Promise<Record<string, unknown> | undefined>;
  delete(orgId: number, uid: string, provenance: Provenance): Promise<void>;
  /** a group, undefined when it has no rules */
  group(orgId: number, folderUid: string, title: string): Promise<RuleGroup | undefined>;
  /** PUT of a group: its rules become these (absent: the rules stay, the interval changes) */
  replaceGroup(orgId: number, folderUid: string, title: string, input: { interval?: number | undefined; rules?: AlertRuleInput[] | undefined }, provenance: Provenance): Promise<RuleGroup>;
  /** false when the group has no rules */
  deleteGroup(orgId: number, folderUid: string, title: string, provenance: Provenance): Promise<boolean>;
  countIn(orgId: number, folderUids: string[]): Promise<number>;
  deleteIn(orgId: number, folderUids: string[]): Promise<void>;
}

const SELECT = "select id, uid, org_id, folder_uid, rule_group, title, body, updated_at, provenance, interval_seconds from alert_rules";
const uidTaken = () => new ApiError(409, "an alert rule with this uid already exists");

/** what the rule's notification settings name must exist: its contact point and mute timings */
async function checkReferences(tx: SqlTx, orgId: number, rules: ReadRule[]): Promise<void> {
  const named = rules.map((r) => r.body.notification_settings).filter((s) => s !== undefined);
  if (!named.length) return;
  await ensureAlertingDefaults(tx, orgId);
  const receivers = await receiverNames(tx, orgId);
  const timings = await timingNames(tx, orgId);
  for (const s of named) {
    if (!receivers.has(s.receiver as string)) throw invalidRule(`invalid notification settings: receiver '${String(s.receiver)}' does not exist`);
    for (const name of [...((s.mute_time_intervals as string[] | undefined) ?? []), ...((s.active_time_intervals as string[] | undefined) ?? [])]) {
      if (!timings.has(name)) throw invalidRule(`invalid notification settings: time interval '${name}' does not exist`);
    }
  }
}

/** the real product's ValidateRuleGroupInterval */
function checkInterval(seconds: number): void {
  if (seconds <= 0 || seconds % BASE_INTERVAL !== 0) {
    throw invalidRule(`interval (${formatGoSeconds(seconds)}) should be non-zero and divided exactly by scheduler interval: ${BASE_INTERVAL}`);
  }
}

export function createAlertRuleStore(pg: Sql): AlertRuleStore {
  const rowOf = async (db: Sql | SqlTx, orgId: number, uid: string) =>
    (await db.query<RuleRow>(`${SELECT} where org_id = $1 and uid = $2`, [orgId, uid])).rows[0];

  const groupRows = async (db: Sql | SqlTx, orgId: number, folderUid: string, title: string) =>
    (await db.query<RuleRow>(`${SELECT} where org_id = $1 and folder_uid = $2 and rule_group = $3 order by group_index, id`, [orgId, folderUid, title])).rows;

  const insert = async (tx: SqlTx, orgId: number, rule: ReadRule, provenance: Provenance, interval: number, index: number) => {
    const uid = rule.uid ?? newUid();
    await tx.query(
      `insert into alert_rules (uid, org_id, folder_uid, rule_group, title, body, provenance, interval_seconds, group_index)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [uid, orgId, rule.folderUID, rule.ruleGroup, rule.title, rule.body, provenance, interval, index],
    ).catch((err: unknown) => {
      if (isUniqueViolation(err, "alert_rules_org_uid_key")) throw uidTaken();
      throw err;
    });
    return uid;
  };

  return {
    async create(orgId, input, provenance) {
      const rule = readRule(input);
      const uid = await pg.transaction(async (tx) => {
        await checkReferences(tx, orgId, [rule]);
        const group = await groupRows(tx, orgId, rule.folderUID, rule.ruleGroup);
        const interval = group[0]?.interval_seconds ?? DEFAULT_INTERVAL;
        return insert(tx, orgId, rule, provenance, interval, group.length);
      });
      return shapeRule((await rowOf(pg, orgId, uid))!);
    },

    async list(orgId) {
      return (await pg.query<RuleRow>(`${SELECT} where org_id = $1 order by id`, [orgId])).rows.map(shapeRule);
    },

    row: (orgId, uid) => rowOf(pg, orgId, uid),

    async update(orgId, uid, input, provenance) {
      // the path names the rule: a uid in the body is not checked
      const rule = readRule({ ...input, uid: undefined });
      const found = await pg.transaction(async (tx) => {
        const existing = await rowOf(tx, orgId, uid);
        if (!existing) return false;
        requireSameProvenance(existing.provenance, provenance, `cannot change provenance from '${existing.provenance}' to '${provenance}'`);
        await checkReferences(tx, orgId, [rule]);
        const moved = existing.folder_uid !== rule.folderUID || existing.rule_group !== rule.ruleGroup;
        const index = moved ? (await groupRows(tx, orgId, rule.folderUID, rule.ruleGroup)).length : undefined;
        // the interval stays the rule's own, as the real product keeps it
        await tx.query(
          `update alert_rules set folder_uid = $3, rule_group = $4, title = $5, body = $6, provenance = $7,
             group_index = coalesce($8, group_index), updated_at = now()
           where org_id = $1 and uid = $2`,
          [orgId, uid, rule.folderUID, rule.ruleGroup, rule.title, rule.body, provenance, index ?? null],
        );
        return true;
      });
      return found ? shapeRule((await rowOf(pg, orgId, uid))!) : undefined;
    },

    async delete(orgId, uid, provenance) {
      const existing = await rowOf(pg, orgId, uid);
      // the real product: deleting a rule that is not there is no error
      if (!existing) return;
      requireSameProvenance(existing.provenance, provenance, `cannot delete with provided provenance '${provenance}', needs '${existing.provenance}'`);
      await pg.query("delete from alert_rules where org_id = $1 and uid = $2", [orgId, uid]);
    },

    async group(orgId, folderUid, title) {
      const rules = await groupRows(pg, orgId, folderUid, title);
      if (!rules.length) return undefined;
      return { title, folderUid, interval: rules[0]!.interval_seconds, rules };
    },

    async replaceGroup(orgId, folderUid, title, input, provenance) {
      requireMaxLength("ruleGroup", title, NAME_LIMITS.alertRuleGroup);
      const interval = input.interval ?? 0;
      checkInterval(interval);
      const incoming = input.rules?.map((r) => readRule({ ...r, folderUID: folderUid, ruleGroup: title }));
      const seen = new Set<string>();
      for (const r of incoming ?? []) {
        if (r.uid && seen.has(r.uid)) throw invalidRule(`rule with UID '${r.uid}' appears more than once in the group`);
        if (r.uid) seen.add(r.uid);
      }
      await pg.transaction(async (tx) => {
        const current = await groupRows(tx, orgId, folderUid, title);
        // a provisioned rule is not changed or removed as editable, nor the other way (as single rules)
        for (const row of current) requireSameProvenance(row.provenance, provenance, `cannot change provenance from '${row.provenance}' to '${provenance}'`);
        if (!incoming) {
          await tx.query("update alert_rules set interval_seconds = $4 where org_id = $1 and folder_uid = $2 and rule_group = $3", [orgId, folderUid, title, interval]);
          return;
        }
        await checkReferences(tx, orgId, incoming);
        const kept = new Set(incoming.map((r) => r.uid).filter((u) => u !== undefined));
        for (const gone of current.filter((r) => !kept.has(r.uid))) await tx.query("delete from alert_rules where id = $1", [gone.id]);
        for (const [index, rule] of incoming.entries()) {
          // a rule of another group of the organization moves here, as in the real product
          const existing = rule.uid ? await rowOf(tx, orgId, rule.uid) : undefined;
          if (!existing) {
            await insert(tx, orgId, rule, provenance, interval, index);
            continue;
          }
          requireSameProvenance(existing.provenance, provenance, `cannot change provenance from '${existing.provenance}' to '${provenance}'`);
          await tx.query(
            `update alert_rules set folder_uid = $2, rule_group = $3, title = $4, body = $5, provenance = $6, interval_seconds = $7,
               group_index = $8, updated_at = now() where id = $1`,
            [existing.id, folderUid, title, rule.title, rule.body, provenance, interval, index],
          );
        }
      });
      return { title, folderUid, interval, rules: await groupRows(pg, orgId, folderUid, title) };
    },

    async deleteGroup(orgId, folderUid, title, provenance) {
      return pg.transaction(async (tx) => {
        const current = await groupRows(tx, orgId, folderUid, title);
        for (const row of current) requireSameProvenance(row.provenance, provenance, `cannot delete with provided provenance '${provenance}', needs '${row.provenance}'`);
        const r = await tx.query("delete from alert_rules where org_id = $1 and folder_uid = $2 and rule_group = $3", [orgId, folderUid, title]);
        return (r.affectedRows ?? 0) > 0;
      });
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

/** 404 of a group with no rules (the real product's alerting.alert-rule.notFound) */
export const groupNotFound = () => alertingError(404, "alerting.alert-rule.notFound");
