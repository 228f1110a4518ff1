// Team LBAC rules of log store data sources (spec "Data source LBAC rules"):
// per data source, per team, label selectors a member's log queries are held
// to. Stored in datasource_lbac_rules (rows go with their data source or team,
// by foreign key) and read from memory by the query paths (DESIGN rule 7):
// the whole table is loaded once, parsed, and dropped after every write.
//
// Who is restricted follows the real product's Team LBAC: a member of teams
// with rules on the data source sees only streams matching at least one of
// those rules; a user in no team with rules keeps full access; organization
// Admins and server admins are never restricted.
import type { Sql } from "../../../../db/sql.ts";
import { ApiError, badRequest, forbidden } from "../../../../lib/errors.ts";
import { reloadable, type ReadModelStats } from "../../../../lib/reloadable.ts";
import type { AccessModel } from "../identity/index.ts";
import type { Identity } from "../identity/index.ts";
import type { DataSourceRecord } from "./datasource-registry.ts";
import type { LogQueryRestriction, RestrictionOf } from "./log-query-restriction.ts";
import { combineRules, injectMatchers, parseRule } from "./logql-inject.ts";
import type { LabelMatcher } from "./logql-matchers.ts";

/** the only data source type whose queries the rules can be applied to */
export const LBAC_TYPE = "loki";

export interface TeamRules {
  teamUid: string;
  rules: string[];
}

/** an entry of PUT: the team as either spelling of the spec shows it */
export interface TeamRulesInput {
  teamUid?: string | undefined;
  teamUId?: string | undefined;
  rules: string[];
}

/** a team's parsed rules, or that they no longer parse (then its members are refused, not let through) */
type Parsed = { rules: LabelMatcher[][] } | { broken: true };

/** data source id -> team id -> rules */
type ReadModel = Map<number, Map<number, Parsed>>;

export interface Lbac {
  /** another node changed the table: what is held is read again at next use */
  invalidate(): void;
  /** GET: the stored rules, by team uid */
  list(ds: DataSourceRecord): Promise<TeamRules[]>;
  /** PUT: the list replaces every stored rule of the data source */
  replace(ds: DataSourceRecord, input: readonly TeamRulesInput[]): Promise<TeamRules[]>;
  /** the query paths' hook (core/datasources/log-query-restriction.ts) */
  restrictionOf: RestrictionOf;
  /** loads of the rules so far (GET /metrics) */
  readonly stats: ReadModelStats;
}

export function createLbac(pg: Sql, model: AccessModel): Lbac {
  const rules = reloadable(() => loadReadModel(pg));
  const readModel = () => rules.get();
  const invalidate = () => rules.invalidate();

  return {
    invalidate,
    async list(ds) {
      const r = await pg.query<{ uid: string; rules: string[] }>(
        `select t.uid, r.rules from datasource_lbac_rules r join teams t on t.id = r.team_id
          where r.datasource_id = $1 order by t.id`,
        [ds.id],
      );
      return r.rows.map((row) => ({ teamUid: row.uid, rules: row.rules }));
    },

    async replace(ds, input) {
      // the real product keeps provisioned data sources as the file says, rules included
      if (ds.readOnly) throw forbidden("Cannot update LBAC rules of read-only data source");
      if (ds.type !== LBAC_TYPE) {
        throw badRequest(`LBAC rules are only supported for data sources of type "${LBAC_TYPE}"; data source "${ds.name}" is of type "${ds.type}"`);
      }
      const entries = input.map((e, i) => {
        const what = `rules[${i}]`;
        if (e.teamUid !== undefined && e.teamUId !== undefined && e.teamUid !== e.teamUId) {
          throw badRequest(`${what}: teamUid and teamUId name different teams`);
        }
        const teamUid = e.teamUid ?? e.teamUId;
        if (!teamUid) throw badRequest(`${what}.teamUid is required`);
        if (!e.rules.length) throw badRequest(`${what}.rules must hold at least one rule (leave the team out to remove its rules)`);
        e.rules.forEach((rule, j) => parseRule(rule, `${what}.rules[${j}]`));
        return { what, teamUid, rules: e.rules };
      });
      const seen = new Map<string, string>();
      for (const e of entries) {
        const first = seen.get(e.teamUid);
        if (first) throw badRequest(`${e.what}: team ${JSON.stringify(e.teamUid)} is already listed in ${first}`);
        seen.set(e.teamUid, e.what);
      }
      const teams = await pg.query<{ id: number; uid: string }>("select id, uid from teams where org_id = $1 and uid = any($2)", [
        ds.orgId, entries.map((e) => e.teamUid),
      ]);
      const idOf = new Map(teams.rows.map((t) => [t.uid, t.id]));
      const missing = entries.find((e) => !idOf.has(e.teamUid));
      if (missing) throw badRequest(`${missing.what}.teamUid: team ${JSON.stringify(missing.teamUid)} not found in this organization`);
      try {
        await pg.transaction(async (tx) => {
          await tx.query("delete from datasource_lbac_rules where datasource_id = $1", [ds.id]);
          for (const e of entries) {
            await tx.query("insert into datasource_lbac_rules (datasource_id, team_id, rules) values ($1, $2, $3)", [
              ds.id, idOf.get(e.teamUid), JSON.stringify(e.rules),
            ]);
          }
        });
      } catch (err) {
        // the data source or a team was deleted meanwhile
        if (/foreign key/i.test(String(err))) throw badRequest("the data source or one of the teams no longer exists");
        throw err;
      } finally {
        invalidate();
      }
      return entries.map((e) => ({ teamUid: e.teamUid, rules: e.rules }));
    },

    async restrictionOf(ds: DataSourceRecord, identity: Identity): Promise<LogQueryRestriction | undefined> {
      if (ds.type !== LBAC_TYPE) return undefined;
      if (identity.orgRole === "Admin" || identity.user.isServerAdmin) return undefined;
      const byTeam = (await readModel()).get(ds.id);
      if (!byTeam) return undefined;
      const snap = await model.snapshot();
      const mine = (snap.teamsOfUser.get(identity.user.id) ?? []).filter((t) => t.orgId === ds.orgId);
      const rules: LabelMatcher[][] = [];
      for (const t of mine) {
        const parsed = byTeam.get(t.teamId);
        if (!parsed) continue;
        if ("broken" in parsed) return refusing(forbidden("the LBAC rules of your team on this data source cannot be applied: a stored rule is not a valid label selector"));
        rules.push(...parsed.rules);
      }
      if (!rules.length) return undefined;
      let restriction: LabelMatcher[];
      try {
        restriction = combineRules(rules);
      } catch (err) {
        if (err instanceof ApiError) return refusing(err);
        throw err;
      }
      return { rewrite: (query) => injectMatchers(query, restriction) };
    },
    stats: rules.stats,
  };
}

/** a restriction no query passes: rules that cannot be applied refuse rather than let through */
const refusing = (err: ApiError): LogQueryRestriction => ({
  rewrite() {
    throw err;
  },
});

async function loadReadModel(pg: Sql): Promise<ReadModel> {
  const r = await pg.query<{ datasource_id: number; team_id: number; rules: unknown }>(
    "select datasource_id, team_id, rules from datasource_lbac_rules",
  );
  const out: ReadModel = new Map();
  for (const row of r.rows) {
    let parsed: Parsed;
    try {
      if (!Array.isArray(row.rules) || !row.rules.every((x) => typeof x === "string")) throw new Error("the stored rules are not a list of selectors");
      parsed = { rules: row.rules.map((text: string) => parseRule(text)) };
    } catch {
      parsed = { broken: true };
    }
    const byTeam = out.get(row.datasource_id) ?? new Map<number, Parsed>();
    byTeam.set(row.team_id, parsed);
    out.set(row.datasource_id, byTeam);
  }
  return out;
}
