// Rule groups as the ruler stores them and as its configuration API writes
// them back: YAML the way yaml.v3 marshals Prometheus's rulefmt.RuleGroup
// (field order name, interval, query_offset, evaluation_delay, limit, rules;
// rule fields record/alert, expr, for, keep_firing_for, labels, annotations;
// zero values left out; map keys in yaml.v3's order).
// Decoding and validation of posted groups: group-decode.ts, group-validate.ts.
import { formatPromDuration } from "./durations.ts";
import { compareYamlKeys } from "./go-format.ts";
import { emitYaml, nodeString, rawScalar, sortedMap, type YamlMap } from "./yaml-emit.ts";

/** one rule as stored (durations in ms, omitted when zero; empty maps omitted) */
export interface Rule {
  record?: string;
  alert?: string;
  expr: string;
  for?: number;
  keep_firing_for?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** one rule group as stored in metrics_rule_groups.body */
export interface RuleGroup {
  name: string;
  /** ms; undefined uses the ruler's default interval */
  interval?: number;
  query_offset?: number;
  evaluation_delay?: number;
  limit?: number;
  rules: Rule[];
  align_evaluation_time_on_interval?: boolean;
}

function ruleYaml(rule: Rule): YamlMap {
  const m: YamlMap = new Map();
  if (rule.record) m.set("record", nodeString(rule.record));
  if (rule.alert) m.set("alert", nodeString(rule.alert));
  m.set("expr", nodeString(rule.expr));
  if (rule.for) m.set("for", formatPromDuration(rule.for));
  if (rule.keep_firing_for) m.set("keep_firing_for", formatPromDuration(rule.keep_firing_for));
  if (rule.labels && Object.keys(rule.labels).length > 0) m.set("labels", sortedMap(rule.labels));
  if (rule.annotations && Object.keys(rule.annotations).length > 0) m.set("annotations", sortedMap(rule.annotations));
  return m;
}

/** rulefmt.RuleGroup's fields in its order; zero values left out (omitempty) */
function groupYaml(group: RuleGroup): YamlMap {
  const m: YamlMap = new Map();
  m.set("name", group.name);
  if (group.interval) m.set("interval", formatPromDuration(group.interval));
  if (group.query_offset !== undefined) m.set("query_offset", formatPromDuration(group.query_offset));
  if (group.evaluation_delay !== undefined) m.set("evaluation_delay", formatPromDuration(group.evaluation_delay));
  if (group.limit) m.set("limit", rawScalar(String(group.limit)));
  m.set("rules", group.rules.map(ruleYaml));
  if (group.align_evaluation_time_on_interval) m.set("align_evaluation_time_on_interval", rawScalar("true"));
  return m;
}

/** one group, as GET .../rules/{namespace}/{group} answers it */
export function ruleGroupToYaml(group: RuleGroup): string {
  return emitYaml(groupYaml(group));
}

/** namespace -> groups, as GET .../rules[/{namespace}] answers ("{}\n" when empty) */
export function namespacesToYaml(namespaces: Map<string, RuleGroup[]>): string {
  const m: YamlMap = new Map();
  for (const ns of [...namespaces.keys()].sort(compareYamlKeys)) m.set(ns, namespaces.get(ns)!.map(groupYaml));
  return emitYaml(m);
}
