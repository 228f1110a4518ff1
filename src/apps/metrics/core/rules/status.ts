// The Prometheus-compatible views of loaded rules (GET <p>/api/v1/rules) and
// active alerts (GET <p>/api/v1/alerts), field for field as Mimir's
// ruler/api.go marshals them (Go structs without omitempty, so every field is
// always present; label sets are JSON objects with sorted keys; times are
// RFC 3339 in UTC, Go's zero time before the first evaluation; alert values
// are strconv 'e' strings).
import type { Labels } from "../types.ts";
import { formatFloatE, formatGoTime } from "./go-format.ts";
import { labelsKey, type Alert, type AlertState, type GroupRuntime, type RuleRuntime } from "./group-eval.ts";

export interface RulesFilter {
  /** only alerting ("alert") or recording ("record") rules */
  type?: "alert" | "record";
  ruleNames?: string[];
  ruleGroups?: string[];
  files?: string[];
  /** alerting rules show alerts: null */
  excludeAlerts?: boolean;
}

const sorted = (labels: Labels | undefined): Labels =>
  Object.fromEntries(Object.entries(labels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

function alertJson(a: Alert) {
  return {
    labels: sorted(a.labels),
    annotations: sorted(a.annotations),
    state: a.state,
    activeAt: formatGoTime(a.activeAt),
    ...(a.keepFiringSince !== undefined ? { keepFiringSince: formatGoTime(a.keepFiringSince) } : {}),
    value: formatFloatE(a.value),
  };
}

/** the alerts the API shows: pending and firing ones, not those resolved */
function activeAlerts(r: RuleRuntime): Alert[] {
  return [...r.active.values()].filter((a) => a.resolvedAt === undefined).sort((x, y) => (labelsKey(x.labels) < labelsKey(y.labels) ? -1 : 1));
}

function ruleState(r: RuleRuntime): AlertState {
  let state: AlertState = "inactive";
  for (const a of r.active.values()) {
    if (a.state === "firing") return "firing";
    if (a.state === "pending") state = "pending";
  }
  return state;
}

function ruleJson(r: RuleRuntime, excludeAlerts: boolean) {
  const rule = r.rule;
  if (rule.alert) {
    return {
      state: ruleState(r),
      name: rule.alert,
      query: rule.expr,
      duration: (rule.for ?? 0) / 1000,
      keepFiringFor: (rule.keep_firing_for ?? 0) / 1000,
      labels: sorted(rule.labels),
      annotations: sorted(rule.annotations),
      alerts: excludeAlerts ? null : activeAlerts(r).map(alertJson),
      health: r.health,
      lastError: r.lastError,
      type: "alerting",
      lastEvaluation: formatGoTime(r.lastEvaluation),
      evaluationTime: r.evaluationTime,
    };
  }
  return {
    name: rule.record,
    query: rule.expr,
    labels: sorted(rule.labels),
    health: r.health,
    lastError: r.lastError,
    type: "recording",
    lastEvaluation: formatGoTime(r.lastEvaluation),
    evaluationTime: r.evaluationTime,
  };
}

/** data.groups of GET /api/v1/rules; groups left without rules by the filter are left out */
export function rulesJson(groups: GroupRuntime[], filter: RulesFilter = {}) {
  const set = (values: string[] | undefined) => (values && values.length > 0 ? new Set(values) : undefined);
  const files = set(filter.files);
  const groupNames = set(filter.ruleGroups);
  const ruleNames = set(filter.ruleNames);
  const out = [];
  for (const g of groups) {
    if (files && !files.has(g.namespace)) continue;
    if (groupNames && !groupNames.has(g.group.name)) continue;
    const rules = g.rules
      .filter((r) => !ruleNames || ruleNames.has(r.rule.alert ?? r.rule.record ?? ""))
      .filter((r) => filter.type === undefined || (filter.type === "alert") === Boolean(r.rule.alert))
      .map((r) => ruleJson(r, filter.excludeAlerts === true));
    if (rules.length === 0) continue;
    out.push({
      name: g.group.name,
      file: g.namespace,
      rules,
      interval: g.interval / 1000,
      lastEvaluation: formatGoTime(g.lastEvaluation),
      evaluationTime: g.evaluationTime,
      sourceTenants: null,
    });
  }
  return out;
}

/** data.alerts of GET /api/v1/alerts */
export function alertsJson(groups: GroupRuntime[]) {
  return groups.flatMap((g) => g.rules.filter((r) => r.rule.alert).flatMap((r) => activeAlerts(r).map(alertJson)));
}
