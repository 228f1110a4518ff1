// Validation of a decoded rule group as Mimir's ValidateRuleGroup does it:
// group problems carry the prefix "invalid rules configuration: ", rule
// problems are Prometheus rulefmt.Error texts
// (`<line>:<col>: group "g", rule <i>, "<name>": <error>`, rule indexes from 0
// as Mimir counts them, positions of the record / alert / expr values, 0:0
// when absent), all joined by ", " by the API.
import type { DecodedGroup, RulePositions } from "./group-decode.ts";
import type { Rule } from "./group-format.ts";
import { goQuote } from "./go-format.ts";
import { templateParseError } from "./templates.ts";

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function isValidMetricName(name: string): boolean {
  return METRIC_NAME.test(name);
}

export function isValidLabelName(name: string): boolean {
  return LABEL_NAME.test(name);
}

interface RuleProblem {
  message: string;
  node?: string;
  nodeAlt?: string;
}

/** Prometheus's rulefmt Rule.Validate */
function ruleProblems(rule: Rule, pos: RulePositions, validateExpr: (expr: string) => void): RuleProblem[] {
  const out: RuleProblem[] = [];
  if (rule.record && rule.alert) out.push({ message: "only one of 'record' and 'alert' must be set", node: pos.record, nodeAlt: pos.alert });
  if (!rule.record && !rule.alert) out.push({ message: "one of 'record' or 'alert' must be set", node: pos.record, nodeAlt: pos.alert });
  if (rule.expr === "") out.push({ message: "field 'expr' must be set in rule", node: pos.expr });
  else {
    try {
      validateExpr(rule.expr);
    } catch (err) {
      out.push({ message: `could not parse expression: ${(err as Error).message}`, node: pos.expr });
    }
  }
  if (rule.record) {
    if (rule.annotations) out.push({ message: "invalid field 'annotations' in recording rule", node: pos.record });
    if (rule.for) out.push({ message: "invalid field 'for' in recording rule", node: pos.record });
    if (rule.keep_firing_for) out.push({ message: "invalid field 'keep_firing_for' in recording rule", node: pos.record });
    if (!isValidMetricName(rule.record)) out.push({ message: `invalid recording rule name: ${rule.record}`, node: pos.record });
  }
  for (const [k, v] of Object.entries(rule.labels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (!isValidLabelName(k) || k === "__name__") out.push({ message: `invalid label name: ${k}` });
    if (LONE_SURROGATE.test(v)) out.push({ message: `invalid label value: ${v}` });
  }
  for (const k of Object.keys(rule.annotations ?? {}).sort()) {
    if (!isValidLabelName(k)) out.push({ message: `invalid annotation name: ${k}` });
  }
  if (rule.alert) {
    for (const [kind, map] of [["label", rule.labels], ["annotation", rule.annotations]] as const) {
      for (const k of Object.keys(map ?? {}).sort()) {
        const err = templateParseError(map![k]!, rule.alert);
        if (err) out.push({ message: `${kind} ${goQuote(k)}: ${err}` });
      }
    }
  }
  return out;
}

/**
 * Mimir's ValidateRuleGroup: every problem of a decoded group, as the texts
 * the API joins with ", "; empty when the group is valid.
 */
export function validateRuleGroup(decoded: DecodedGroup, validateExpr: (expr: string) => void): string[] {
  const { group, positions, sourceTenants } = decoded;
  if (group.name === "") return ["invalid rules configuration: rule group name must not be empty"];
  if (group.rules.length === 0) return [`invalid rules configuration: rule group '${group.name}' has no rules`];
  const errs: string[] = [];
  if (sourceTenants.length > 0) {
    // tenant federation is not available in Outpost
    errs.push(
      `invalid rules configuration: rule group '${group.name}' is a federated rule group, but rules federation is disabled; please contact your service administrator to have it enabled`,
    );
  }
  if (group.evaluation_delay !== undefined && group.query_offset !== undefined && group.evaluation_delay !== group.query_offset) {
    errs.push(
      `invalid rules configuration: rule group '${group.name}' has both query_offset and (deprecated) evaluation_delay set, but to different values; please remove the deprecated evaluation_delay and use query_offset instead`,
    );
  }
  group.rules.forEach((rule, i) => {
    const name = rule.alert || rule.record || "";
    for (const p of ruleProblems(rule, positions[i]!, validateExpr)) {
      const where = p.nodeAlt !== undefined ? `${p.node}: ${p.nodeAlt}: ` : p.node !== undefined ? `${p.node}: ` : "";
      errs.push(`${where}group ${goQuote(group.name)}, rule ${i}, ${goQuote(name)}: ${p.message}`);
    }
  });
  return errs;
}
