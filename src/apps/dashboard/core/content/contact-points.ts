// Contact points (/api/v1/provisioning/contact-points): the real product's
// integrations, grouped by name. Secure settings (contact-point-types.ts) are
// sealed with the secrets service, never stored or shown in plain text: they
// read as "[REDACTED]", and "[REDACTED]" written back keeps the stored value.
// A contact point a policy or a rule sends to cannot go; a rename follows.
import type { Sql, SqlTx } from "../../../../db/sql.ts";
import { ApiError } from "../../../../lib/errors.ts";
import { newUid } from "../../../../lib/ids.ts";
import type { SealedField, Secrets } from "../secrets/index.ts";
import { alertingError, invalidSpec, requireSameProvenance, type Provenance } from "./alerting-common.ts";
import { secureKeysOf, settingsProblem, valueAt, withValueAt } from "./contact-point-types.ts";
import { ensureAlertingDefaults, policyOf, renameReceiver, storePolicy, treeUsesReceiver } from "./notification-policies.ts";

export const REDACTED = "[REDACTED]";

export interface ContactPointInput {
  uid?: string | undefined;
  name: string;
  type?: string | undefined;
  settings?: Record<string, unknown> | undefined;
  disableResolveMessage?: boolean | undefined;
}

export interface ContactPoint {
  uid: string;
  name: string;
  type: string;
  settings: Record<string, unknown>;
  disableResolveMessage: boolean;
  provenance: Provenance;
}

type Row = { id: number; uid: string; name: string; type: string; settings: Record<string, unknown>; disable_resolve_message: boolean; provenance: Provenance };

const owner = (id: number) => `contactpoint:${id}`;
const UID = /^[a-zA-Z0-9\-_]+$/;

/** the real product's util.ValidateUID, in its words */
function uidProblem(uid: string): string | undefined {
  if (uid.length > 40) return "UID is longer than 40 symbols";
  return UID.test(uid) ? undefined : "invalid format of UID. Only letters, numbers, '-' and '_' are allowed";
}

/** the settings with their secure values taken out, and those values */
function splitSecrets(type: string, settings: Record<string, unknown>): { open: Record<string, unknown>; secure: Array<{ field: string; value: string }> } {
  let open = settings;
  const secure: Array<{ field: string; value: string }> = [];
  for (const field of secureKeysOf(type)) {
    const value = valueAt(open, field);
    if (typeof value !== "string") continue;
    open = withValueAt(open, field, undefined);
    if (value !== "") secure.push({ field, value });
  }
  return { open, secure };
}

/** refuses what the real product refuses before storing: no type, no settings, settings its notifier would not take */
function validate(input: ContactPointInput, uid: string, settings: Record<string, unknown> | undefined): asserts settings is Record<string, unknown> {
  if (!input.type) throw invalidSpec("type should not be an empty string");
  if (!settings) throw invalidSpec("settings should not be empty");
  const problem = settingsProblem(input.type, settings);
  if (problem) {
    const name = input.name ? `${JSON.stringify(input.name)} ` : "";
    throw invalidSpec(`failed to validate integration ${name}(UID ${uid}) of type ${JSON.stringify(input.type)}: ${problem}`);
  }
}

export interface ContactPointStore {
  list(orgId: number, name?: string): Promise<ContactPoint[]>;
  create(orgId: number, input: ContactPointInput, provenance: Provenance): Promise<ContactPoint>;
  update(orgId: number, uid: string, input: ContactPointInput, provenance: Provenance): Promise<void>;
  delete(orgId: number, uid: string): Promise<void>;
  /** every contact point with its secure settings opened (the export with decrypt=true) */
  listDecrypted(orgId: number): Promise<ContactPoint[]>;
}

export function createContactPointStore(pg: Sql, secrets: Secrets): ContactPointStore {
  const select = "select id, uid, name, type, settings, disable_resolve_message, provenance from alerting_contact_points where org_id = $1";

  const rows = async (orgId: number, name?: string) => {
    await ensureAlertingDefaults(pg, orgId);
    const r = name === undefined
      ? await pg.query<Row>(`${select} order by name, uid`, [orgId])
      : await pg.query<Row>(`${select} and name = $2 order by uid`, [orgId, name]);
    return r.rows;
  };

  const shape = (row: Row, secure: Record<string, string>): ContactPoint => ({
    uid: row.uid,
    name: row.name,
    type: row.type,
    settings: Object.entries(secure).reduce((s, [field, value]) => withValueAt(s, field, value), row.settings),
    disableResolveMessage: row.disable_resolve_message,
    provenance: row.provenance,
  });

  /** the stored secure fields of each row, as "[REDACTED]" */
  const redactedOf = async (list: Row[]) => {
    const r = await pg.query<{ owner: string; field: string }>("select owner, field from secrets where owner = any($1::text[])", [list.map((row) => owner(row.id))]);
    const out = new Map<string, Record<string, string>>();
    for (const { owner: o, field } of r.rows) out.set(o, { ...out.get(o), [field]: REDACTED });
    return out;
  };

  const seal = (id: number, secure: Array<{ field: string; value: string }>): Promise<SealedField[]> =>
    Promise.all(secure.map((s) => secrets.seal(owner(id), s.field, s.value)));

  /** the name left without integrations: references to it follow the new name */
  const followRename = async (tx: SqlTx, orgId: number, from: string, to: string) => {
    const left = await tx.query("select 1 from alerting_contact_points where org_id = $1 and name = $2", [orgId, from]);
    if (left.rows.length) return;
    const { tree, provenance } = await policyOf(tx, orgId);
    if (treeUsesReceiver(tree, from)) await storePolicy(tx, orgId, renameReceiver(tree, from, to), provenance);
    await tx.query(
      `update alert_rules set body = jsonb_set(body, '{notification_settings,receiver}', to_jsonb($3::text))
        where org_id = $1 and body->'notification_settings'->>'receiver' = $2`,
      [orgId, from, to],
    );
  };

  return {
    async list(orgId, name) {
      const list = await rows(orgId, name);
      const redacted = await redactedOf(list);
      return list.map((row) => shape(row, redacted.get(owner(row.id)) ?? {}));
    },

    async listDecrypted(orgId) {
      const list = await rows(orgId);
      return Promise.all(list.map(async (row) => shape(row, await secrets.open(owner(row.id)))));
    },

    async create(orgId, input, provenance) {
      validate(input, input.uid ?? "", input.settings);
      const uid = input.uid || newUid();
      const problem = uidProblem(uid);
      if (problem) throw invalidSpec(`cannot create contact point with UID '${uid.slice(0, 60)}': ${problem}`);
      await ensureAlertingDefaults(pg, orgId);
      const { open, secure } = splitSecrets(input.type!, input.settings);
      const id = (await pg.query<{ id: number }>("select nextval(pg_get_serial_sequence('alerting_contact_points', 'id'))::int as id")).rows[0]!.id;
      const sealed = await seal(id, secure);
      await pg.transaction(async (tx) => {
        const taken = await tx.query<{ name: string }>("select name from alerting_contact_points where org_id = $1 and uid = $2", [orgId, uid]);
        if (taken.rows[0]) {
          throw invalidSpec(`receiver configuration with UID '${uid}' already exist in contact point '${taken.rows[0].name}'. Please use unique identifiers for receivers across all contact points`);
        }
        await tx.query(
          `insert into alerting_contact_points (id, org_id, uid, name, type, settings, disable_resolve_message, provenance)
           values ($1, $2, $3, $4, $5, $6, $7, $8)`,
          [id, orgId, uid, input.name, input.type, open, input.disableResolveMessage ?? false, provenance],
        );
        await secrets.write(tx, owner(id), sealed);
      });
      const row = { id, uid, name: input.name, type: input.type!, settings: open, disable_resolve_message: input.disableResolveMessage ?? false, provenance };
      return shape(row, Object.fromEntries(secure.map((s) => [s.field, REDACTED])));
    },

    async update(orgId, uid, input, provenance) {
      if (!input.settings) throw invalidSpec("settings should not be empty");
      await ensureAlertingDefaults(pg, orgId);
      const existing = (await pg.query<Row>(`${select} and uid = $2`, [orgId, uid])).rows[0];
      if (!existing) throw new ApiError(404, `object not found: contact point with uid '${uid.slice(0, 60)}' not found`);
      // "[REDACTED]" keeps what is stored
      const stored = await secrets.open(owner(existing.id));
      let settings = input.settings;
      for (const field of secureKeysOf(input.type ?? "")) {
        if (valueAt(settings, field) === REDACTED) settings = withValueAt(settings, field, stored[field] ?? "");
      }
      validate(input, uid, settings);
      requireSameProvenance(existing.provenance, provenance, `cannot change provenance from '${existing.provenance}' to '${provenance}'`);
      const { open, secure } = splitSecrets(input.type!, settings);
      const sealed = await seal(existing.id, secure);
      await pg.transaction(async (tx) => {
        const r = await tx.query(
          `update alerting_contact_points set name = $3, type = $4, settings = $5, disable_resolve_message = $6, provenance = $7, updated_at = now()
            where org_id = $1 and id = $2`,
          [orgId, existing.id, input.name, input.type, open, input.disableResolveMessage ?? false, provenance],
        );
        if (!r.affectedRows) throw new ApiError(404, `object not found: contact point with uid '${uid.slice(0, 60)}' not found`);
        await secrets.remove(tx, owner(existing.id));
        await secrets.write(tx, owner(existing.id), sealed);
        if (existing.name !== input.name) await followRename(tx, orgId, existing.name, input.name);
      });
    },

    async delete(orgId, uid) {
      await ensureAlertingDefaults(pg, orgId);
      await pg.transaction(async (tx) => {
        const existing = (await tx.query<Row>(`${select} and uid = $2`, [orgId, uid])).rows[0];
        // the real product: deleting what is not there is no error
        if (!existing) return;
        const others = await tx.query("select 1 from alerting_contact_points where org_id = $1 and name = $2 and id <> $3", [orgId, existing.name, existing.id]);
        if (!others.rows.length) {
          if (treeUsesReceiver((await policyOf(tx, orgId)).tree, existing.name)) {
            throw alertingError(409, "alerting.notifications.contact-points.referenced", "Contact point is currently referenced by a notification policy.");
          }
          const rules = await tx.query("select 1 from alert_rules where org_id = $1 and body->'notification_settings'->>'receiver' = $2 limit 1", [orgId, existing.name]);
          if (rules.rows.length) {
            throw alertingError(409, "alerting.notifications.contact-points.used-by-rule", "Contact point is currently used in the notification settings of one or many alert rules.");
          }
        }
        // its sealed secrets go with the row (a trigger)
        await tx.query("delete from alerting_contact_points where id = $1", [existing.id]);
      });
    },
  };
}

