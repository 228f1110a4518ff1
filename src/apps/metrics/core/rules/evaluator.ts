// The ruler: every tenant's rule groups in memory (loaded from PGlite at
// start, written through on change), each evaluated on its own timer, and
// the operations of the configuration and status APIs.
// Scheduling follows Prometheus: a group runs every `interval` at a fixed
// phase within the interval (a hash of tenant, namespace and group, or 0
// with align_evaluation_time_on_interval), so groups spread out; a slow
// evaluation skips the slots it overran. A posted group replaces the old one
// at once (keeping the state of unchanged rules) and is first evaluated at
// its next slot; a deleted group stops and its series are marked stale.
import type { Sql } from "../../../../db/sql.ts";
import { ApiError } from "../../../../lib/errors.ts";
import { jsonTextProblem } from "../../../../lib/json-safety.ts";
import { storableTextProblem } from "../../../../lib/storable-text.ts";
import type { Logger } from "../../../../lib/logger.ts";
import type { Labels, MetricsLimitsSource, SampleToWrite } from "../types.ts";
import { decodeRuleGroup, type DecodedGroup } from "./group-decode.ts";
import type { RuleGroup } from "./group-format.ts";
import { validateRuleGroup } from "./group-validate.ts";
import { copyState, evaluateGroup, newGroupRuntime, staleSamplesOf, type EvalDeps, type GroupRuntime } from "./group-eval.ts";
import { createRuleStore } from "./rule-store.ts";
import { alertsJson, rulesJson, type RulesFilter } from "./status.ts";

export type { RulesFilter } from "./status.ts";

export interface RuleEngine {
  /** throws an Error whose message is Prometheus's parse error, e.g. `1:4: parse error: unexpected end of input inside braces` */
  validate(expr: string): void;
  /** evaluates expr at time t (ms) for a tenant: the instant vector (a scalar result is one sample with empty labels) */
  instant(tenant: string, expr: string, t: number): Promise<Array<{ labels: Labels; value: number }>>;
}

export interface RuleDeps {
  pg: Sql;
  engine: RuleEngine;
  /** stores samples for a tenant through the normal ingest path (limits apply); throws ApiError when refused */
  write(tenant: string, samples: SampleToWrite[]): Promise<void>;
  limits: MetricsLimitsSource;
  logger: Logger;
  now: () => number;
  /** interval of groups that name none, ms */
  defaultInterval: number;
}

export interface Ruler {
  /** namespace -> its groups (by name); only `namespace` when given */
  listGroups(tenant: string, namespace?: string): Map<string, RuleGroup[]>;
  getGroup(tenant: string, namespace: string, name: string): RuleGroup | undefined;
  /**
   * POST of one group in YAML: decodes, validates, checks the ruler limits,
   * stores it (replacing a same-named group of the namespace) and schedules
   * it. Throws ApiError 400 with the real ruler's message.
   */
  setGroup(tenant: string, namespace: string, yaml: string): Promise<void>;
  /** false when there is no such group */
  deleteGroup(tenant: string, namespace: string, name: string): Promise<boolean>;
  /** false when the namespace has no groups */
  deleteNamespace(tenant: string, namespace: string): Promise<boolean>;
  /** data.groups of GET /api/v1/rules */
  rules(tenant: string, filter?: RulesFilter): unknown[];
  /** data.alerts of GET /api/v1/alerts */
  alerts(tenant: string): unknown[];
  /** evaluates a group now at deps.now() (tests, tools); false when there is no such group */
  evaluateNow(tenant: string, namespace: string, name: string): Promise<boolean>;
  /** stops every timer and waits for running evaluations */
  close(): Promise<void>;
}

interface Entry {
  runtime: GroupRuntime;
  /** the group's phase within its interval, ms */
  offset: number;
  timer?: ReturnType<typeof setTimeout>;
  /** the evaluations of this group, one after another */
  chain: Promise<void>;
  stopped: boolean;
}

const keyOf = (namespace: string, name: string) => `${namespace}\u0000${name}`;

/** FNV-1a, to spread groups over their interval */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

export async function createRuler(deps: RuleDeps): Promise<Ruler> {
  const store = createRuleStore(deps.pg);
  const logger = deps.logger.child({ component: "ruler" });
  const evalDeps: EvalDeps = { instant: (tenant, expr, t) => deps.engine.instant(tenant, expr, t), write: deps.write, logger };
  const tenants = new Map<string, Map<string, Entry>>();
  const locks = new Map<string, Promise<void>>();
  const pending = new Set<Promise<void>>();
  let closed = false;

  const groupsOf = (tenant: string) => {
    let groups = tenants.get(tenant);
    if (!groups) tenants.set(tenant, (groups = new Map()));
    return groups;
  };

  const track = (p: Promise<void>) => {
    pending.add(p);
    void p.finally(() => pending.delete(p));
    return p;
  };

  /** one mutation of a tenant's groups at a time, so limits hold under concurrent requests */
  async function exclusive<T>(tenant: string, fn: () => Promise<T>): Promise<T> {
    const previous = locks.get(tenant) ?? Promise.resolve();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const mine = previous.then(() => gate);
    locks.set(tenant, mine);
    await previous;
    try {
      return await fn();
    } finally {
      release();
      if (locks.get(tenant) === mine) locks.delete(tenant);
    }
  }

  function run(entry: Entry): Promise<void> {
    const p = entry.chain.then(async () => {
      try {
        await evaluateGroup(entry.runtime, deps.now(), evalDeps);
      } catch (err) {
        logger.error("rule group evaluation failed", { tenant: entry.runtime.tenant, group: entry.runtime.group.name, err });
      }
    });
    entry.chain = p;
    return track(p);
  }

  function schedule(entry: Entry): void {
    if (closed || entry.stopped) return;
    const interval = Math.max(entry.runtime.interval, 1);
    const now = deps.now();
    const phase = (((now - entry.offset) % interval) + interval) % interval;
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      if (closed || entry.stopped) return;
      void run(entry).then(() => schedule(entry));
    }, interval - phase);
    (entry.timer as { unref?: () => void }).unref?.();
  }

  async function stop(entry: Entry): Promise<void> {
    entry.stopped = true;
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = undefined;
    await entry.chain;
  }

  async function install(tenant: string, namespace: string, group: RuleGroup): Promise<void> {
    const groups = groupsOf(tenant);
    const key = keyOf(namespace, group.name);
    const runtime = newGroupRuntime(tenant, namespace, group, deps.defaultInterval);
    const old = groups.get(key);
    if (old) {
      await stop(old);
      copyState(runtime, old.runtime);
    }
    const offset = group.align_evaluation_time_on_interval ? 0 : hash(`${tenant}\u0000${key}`) % Math.max(runtime.interval, 1);
    const entry: Entry = { runtime, offset, chain: Promise.resolve(), stopped: false };
    groups.set(key, entry);
    schedule(entry);
  }

  /** stops a removed group and ends its series */
  async function retire(entry: Entry): Promise<void> {
    await stop(entry);
    const g = entry.runtime;
    const stale = staleSamplesOf(g, deps.now() - (g.group.query_offset ?? g.group.evaluation_delay ?? 0));
    if (stale.length === 0) return;
    void track(deps.write(g.tenant, stale).catch((err: unknown) => logger.debug("writing stale markers failed", { err })));
  }

  const sortedEntries = (tenant: string) =>
    [...(tenants.get(tenant)?.values() ?? [])]
      .map((e) => e.runtime)
      .sort((a, b) => (a.namespace < b.namespace ? -1 : a.namespace > b.namespace ? 1 : a.group.name < b.group.name ? -1 : a.group.name > b.group.name ? 1 : 0));

  for (const stored of await store.loadAll()) await install(stored.tenant, stored.namespace, stored.group);
  logger.debug("rule groups loaded", { groups: [...tenants.values()].reduce((n, g) => n + g.size, 0) });

  return {
    listGroups(tenant, namespace) {
      const out = new Map<string, RuleGroup[]>();
      for (const g of sortedEntries(tenant)) {
        if (namespace !== undefined && g.namespace !== namespace) continue;
        out.set(g.namespace, [...(out.get(g.namespace) ?? []), g.group]);
      }
      return out;
    },

    getGroup(tenant, namespace, name) {
      return tenants.get(tenant)?.get(keyOf(namespace, name))?.runtime.group;
    },

    async setGroup(tenant, namespace, yaml) {
      let decoded: DecodedGroup;
      try {
        decoded = decodeRuleGroup(yaml);
      } catch (err) {
        logger.debug("unable to decode rule group", { tenant, err });
        throw new ApiError(400, "unable to decode rule group");
      }
      const errors = validateRuleGroup(decoded, (expr) => deps.engine.validate(expr));
      if (errors.length > 0) throw new ApiError(400, errors.join(", "));
      const group = decoded.group;
      // the group is stored as jsonb and the namespace as text: neither holds NUL or unpaired surrogates
      const unstorable = storableTextProblem(namespace) ? `namespace ${storableTextProblem(namespace)}` : jsonTextProblem(JSON.stringify(group));
      if (unstorable) throw new ApiError(400, `invalid rules configuration: ${unstorable}`);
      const maxRules = deps.limits.of(tenant).ruler_max_rules_per_rule_group;
      if (maxRules > 0 && group.rules.length > maxRules) {
        throw new ApiError(400, `per-user rules per rule group limit (limit: ${maxRules} actual: ${group.rules.length}) exceeded`);
      }
      await exclusive(tenant, async () => {
        if (closed) throw new ApiError(503, "the ruler is stopping");
        const groups = tenants.get(tenant);
        const maxGroups = deps.limits.of(tenant).ruler_max_rule_groups_per_tenant;
        // a group replacing its namespace's same-named group is not counted twice
        const count = (groups?.size ?? 0) + (groups?.has(keyOf(namespace, group.name)) ? 0 : 1);
        if (maxGroups > 0 && count > maxGroups) {
          throw new ApiError(400, `per-user rule groups limit (limit: ${maxGroups} actual: ${count}) exceeded`);
        }
        await store.put(tenant, namespace, group);
        await install(tenant, namespace, group);
      });
    },

    async deleteGroup(tenant, namespace, name) {
      return exclusive(tenant, async () => {
        const groups = tenants.get(tenant);
        const key = keyOf(namespace, name);
        const entry = groups?.get(key);
        if (!groups || !entry) return false;
        await store.delete(tenant, namespace, name);
        groups.delete(key);
        if (groups.size === 0) tenants.delete(tenant);
        await retire(entry);
        return true;
      });
    },

    async deleteNamespace(tenant, namespace) {
      return exclusive(tenant, async () => {
        const groups = tenants.get(tenant);
        const entries = [...(groups?.entries() ?? [])].filter(([, e]) => e.runtime.namespace === namespace);
        if (!groups || entries.length === 0) return false;
        await store.deleteNamespace(tenant, namespace);
        for (const [key] of entries) groups.delete(key);
        if (groups.size === 0) tenants.delete(tenant);
        for (const [, entry] of entries) await retire(entry);
        return true;
      });
    },

    rules(tenant, filter) {
      return rulesJson(sortedEntries(tenant), filter);
    },

    alerts(tenant) {
      return alertsJson(sortedEntries(tenant));
    },

    async evaluateNow(tenant, namespace, name) {
      const entry = tenants.get(tenant)?.get(keyOf(namespace, name));
      if (!entry || closed) return false;
      await run(entry);
      return true;
    },

    async close() {
      closed = true;
      for (const groups of tenants.values()) {
        for (const entry of groups.values()) {
          if (entry.timer) clearTimeout(entry.timer);
          entry.timer = undefined;
        }
      }
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
  };
}
